#!/usr/bin/env python3
"""Exports the one-op models whose schedule spaces the tuning benchmark
searches exhaustively (bench/run_tune_h100.sh): layers of ResNet-50 and
MobileNetV2 at batch 1 (random weights).
usage: export_tune.py OUTDIR"""
import os, sys
import torch

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
MODELS = {
    # ResNet-50 stem max-pool, 64x112x112 -> 56x56
    "maxpool_r50": (torch.nn.MaxPool2d(3, 2, 1), (1, 64, 112, 112)),
    # MobileNetV2 block-2 depthwise 3x3, 144 channels at 56x56
    "dw3x3_mnv2": (torch.nn.Conv2d(144, 144, 3, 1, 1, groups=144), (1, 144, 56, 56)),
    # ResNet-50 layer-1 1x1 reduce, 256 -> 64 at 56x56
    "conv1x1_r50": (torch.nn.Conv2d(256, 64, 1), (1, 256, 56, 56)),
    # ResNet-50 layer-1 3x3, 64 -> 64 at 56x56
    "conv3x3_r50": (torch.nn.Conv2d(64, 64, 3, 1, 1), (1, 64, 56, 56)),
    # workloads whose default was far from the tuned best on the H100
    # (2026-11-24, part 1: 2.0x, 1.75x, 1.65x, unconfirmed):
    # ResNet-50 layer-4 3x3, 512 -> 512 at 7x7
    "conv3x3_512_7": (torch.nn.Conv2d(512, 512, 3, 1, 1), (1, 512, 7, 7)),
    # MobileNetV2 1x1 project, 576 -> 160 at 7x7
    "pw576_160_7": (torch.nn.Conv2d(576, 160, 1), (1, 576, 7, 7)),
    # MobileNetV2 1x1 expand, 16 -> 96 at 112x112
    "pw16_96_112": (torch.nn.Conv2d(16, 96, 1), (1, 16, 112, 112)),
}
for name, (m, shape) in MODELS.items():
    m = m.eval()
    x = torch.rand(*shape) * 2 - 1
    torch.onnx.export(m, x, os.path.join(out, name + ".onnx"), opset_version=13,
                      input_names=["input"], output_names=["output"], dynamo=False)
    print(name, shape)
