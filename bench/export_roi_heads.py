#!/usr/bin/env python3
"""Exports torchvision's two-stage detectors whose RoI heads run over a
run-time count of RoIs (random, seeded weights; eval mode; score threshold
lowered so detections exist; the transform's min/max size fixed to SIZE so
the image is not resized) to ONNX as a user would (torch.onnx.export, opset
11, input "image"), with the model's own output names (boxes, labels,
scores, keypoints, keypoints_scores, masks), and records onnxruntime's CPU
outputs on one random image: OUT/NAME.onnx, NAME.input.npy,
NAME.ort.OUTPUT.npy, and NAME.outputs (the names, one a line).
usage: export_roi_heads.py OUTDIR [NAME[@SIZE] ...]"""
import os
import sys
import time

import numpy as np
import onnxruntime as ort
import torch
import torchvision

M = torchvision.models.detection
MODELS = {
    "keypointrcnn_resnet50_fpn": lambda s: M.keypointrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.01, min_size=s, max_size=s),
    "fasterrcnn_resnet50_fpn_v2": lambda s: M.fasterrcnn_resnet50_fpn_v2(
        weights=None, weights_backbone=None, box_score_thresh=0.01, min_size=s, max_size=s),
    "fasterrcnn_resnet50_fpn": lambda s: M.fasterrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.01, min_size=s, max_size=s),
    "maskrcnn_resnet50_fpn": lambda s: M.maskrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.01, min_size=s, max_size=s),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for arg in sys.argv[2:] or [m + "@320" for m in MODELS]:
        name, _, size = arg.partition("@")
        size = int(size or 320)
        tag = f"{name}@{size}"
        torch.manual_seed(0)
        model = MODELS[name](size).eval()
        x = torch.rand(3, size, size)
        with torch.no_grad():
            names = list(model([x])[0].keys())
        path = os.path.join(out, tag + ".onnx")
        t0 = time.time()
        try:
            torch.onnx.export(model, ([x],), path, opset_version=11, input_names=["image"],
                              output_names=names, dynamo=False)
            ys = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
                None, {"image": x.numpy()})
        except Exception as e:  # noqa: BLE001 (reported, the next model goes on)
            print(f"{tag}: export or onnxruntime failed: {str(e).splitlines()[0][:300]}")
            continue
        np.save(os.path.join(out, tag + ".input.npy"), x.numpy())
        for k, y in zip(names, ys):
            np.save(os.path.join(out, f"{tag}.ort.{k}.npy"), y)
        with open(os.path.join(out, tag + ".outputs"), "w") as f:
            f.write("\n".join(names) + "\n")
        print(f"{tag}: outputs {names}, {len(ys[0])} detections, export+ort {time.time() - t0:.1f} s",
              flush=True)
    print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnxruntime",
          ort.__version__)


if __name__ == "__main__":
    main()
