#!/usr/bin/env python3
"""PyTorch CUDA eager on the detection models of export_detection.py, three
ways (same seeded weights, the input DIR/NAME.input.npy): as it runs by
default (cuDNN convolutions may use TF32 tensor cores:
torch.backends.cudnn.allow_tf32), with TF32 off (full fp32, as vkml's fp32
convolutions compute), and in fp16 (model.half()). Wall time of the image
copied in, forward, outputs copied out: median of 20 after 5 warm-ups.
Prints one JSON object. usage: detection_torch_variants.py DIR name..."""
import json, os, sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from detection_peers import torch_eager_ms as timed  # noqa: E402
from export_detection import models  # noqa: E402

d = sys.argv[1]
res = {"cudnn_allow_tf32_default": torch.backends.cudnn.allow_tf32,
       "matmul_allow_tf32_default": torch.backends.cuda.matmul.allow_tf32}


for name in sys.argv[2:]:
    torch.manual_seed(0)
    make, size = models[name]
    model = make().eval().cuda()
    x = torch.from_numpy(np.load(os.path.join(d, name + ".input.npy")))
    r = {"default_ms": timed(model, x)}
    torch.backends.cudnn.allow_tf32 = False
    r["tf32_off_ms"] = timed(model, x)
    torch.backends.cudnn.allow_tf32 = True
    r["fp16_ms"] = timed(model.half(), x.half())
    res[name] = r
print(json.dumps(res))
