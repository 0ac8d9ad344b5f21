#!/usr/bin/env python3
"""Peer of the RoiAlign benchmark, same device and run: torchvision's CUDA
roi_align (aligned=True is ONNX's half_pixel; sampling_ratio 0 is its -1),
CUDA events around each call, median of 50 after 5, tensors resident; its
outputs against vkml's (NAME.gpu/y.npy). Prints one JSON object.
usage: roi_peers.py DIR CASES_TXT"""
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_timing import cuda_ms  # noqa: E402
import torchvision

D, CASES = sys.argv[1], sys.argv[2]
out = {"torch": torch.__version__, "torchvision": torchvision.__version__,
       "gpu": torch.cuda.get_device_name(0), "cases": {}}


for line in open(CASES):
    name, oh, ow, ratio, scale = line.split()
    oh, ow, ratio, scale = int(oh), int(ow), int(ratio), float(scale)
    x = torch.from_numpy(np.load(f"{D}/{name}.x.npy")).cuda()
    rois = torch.from_numpy(np.load(f"{D}/{name}.rois.npy")).cuda()
    bi = torch.from_numpy(np.load(f"{D}/{name}.bi.npy")).cuda()
    boxes = torch.cat([bi[:, None].float(), rois], dim=1)
    f = lambda: torchvision.ops.roi_align(x, boxes, (oh, ow), spatial_scale=scale,  # noqa: E731
                                          sampling_ratio=ratio if ratio > 0 else -1,
                                          aligned=True)
    r = {"torch_ms": cuda_ms(f)}
    try:
        got = np.load(f"{D}/{name}.gpu/y.npy")
        r["max_abs_diff_vs_vkml"] = float(np.abs(f().cpu().numpy() - got).max())
    except Exception as e:  # noqa: BLE001
        r["diff_error"] = str(e)
    out["cases"][name] = r
print(json.dumps(out, indent=1))
