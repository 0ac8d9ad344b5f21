#!/usr/bin/env python3
"""Exports torchvision ResNet-50, MobileNetV2 and SqueezeNet 1.1 (random
weights, eval mode) to ONNX with dynamic batch/height/width, and records
onnxruntime's CPU output on one random input each.
usage: export_e2e.py OUTDIR"""
import os, sys
import numpy as np
import torch, torchvision, onnxruntime as ort

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
for name in ["resnet50", "mobilenet_v2", "squeezenet1_1"]:
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, x, path, opset_version=13, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch", 2: "height", 3: "width"}}, dynamo=False)
    y = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"input": x.numpy()})[0]
    np.save(os.path.join(out, name + ".input.npy"), x.numpy())
    np.save(os.path.join(out, name + ".ort.npy"), y)
    print(name, os.path.getsize(path))
print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnxruntime", ort.__version__)
