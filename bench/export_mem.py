#!/usr/bin/env python3
"""Exports the memory-planning models of issue 9 (the TFLite-GPU paper's
Table 3 set) to ONNX with random weights, eval mode, batch 1:
  mobilenet_v1   built here (Howard et al. 2017: 13 depthwise-separable
                 blocks, width 1.0), 224x224
  mobilenet_v2   torchvision, 224x224
  deeplabv3      torchvision deeplabv3_mobilenet_v3_large (torchvision has no
                 MobileNetV2 DeepLab, the paper's TFLite model), 257x257 (the
                 TFLite DeepLab input size), output 'out' only
and a random input each (NAME.input.npy).
usage: export_mem.py OUTDIR"""
import os
import sys

import numpy as np
import torch
import torchvision
from torch import nn


def conv_bn(cin, cout, stride, groups=1):
    k = 3 if groups > 1 or cin == 3 else 1
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class MobileNetV1(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + \
              [(1024, 2), (1024, 1)]
        layers, cin = [conv_bn(3, 32, 2)], 32
        for cout, s in cfg:
            layers += [conv_bn(cin, cin, s, groups=cin), conv_bn(cin, cout, 1)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(1024, 1000)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class DeepLabOut(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    models = {
        "mobilenet_v1": (MobileNetV1(), 224),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(weights=None), 224),
        "deeplabv3": (DeepLabOut(torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, aux_loss=False)), 257),
    }
    for name, (model, size) in models.items():
        model.eval()
        x = torch.rand(1, 3, size, size) * 2 - 1
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                          output_names=["output"], dynamo=False)
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        print(name, size, os.path.getsize(path))


main()
