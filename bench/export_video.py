#!/usr/bin/env python3
"""Exports torchvision's video classifiers (random seeded weights, eval,
batch 1, 16 frames; 112x112 for the ResNet-3D family, 224x224 for s3d and
swin3d) to ONNX as a user would (torch.onnx.export, opset 17, input
"input", output "output"), records onnxruntime's CPU output on one random
clip (NAME.input.npy, NAME.ort.npy), and times torch CUDA eager fp32 (TF32
off; the clip copied in and the logits out each run; median of 20 after 5)
into OUT/torch_eager.json.
usage: export_video.py OUTDIR NAME..."""
import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort
import torch
import torchvision

SIZE = {"s3d": 224, "swin3d_t": 224, "swin3d_s": 224, "swin3d_b": 224}


def main():
    out, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    eager = {}
    for name in names:
        torch.manual_seed(0)
        model = getattr(torchvision.models.video, name)(weights=None).eval()
        s = SIZE.get(name, 112)
        x = torch.rand(1, 3, 16, s, s) * 2 - 1
        path = os.path.join(out, name + ".onnx")
        t0 = time.time()
        try:
            torch.onnx.export(model, x, path, opset_version=17, input_names=["input"],
                              output_names=["output"], dynamo=False)
            y = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
                None, {"input": x.numpy()})[0]
        except Exception as e:  # noqa: BLE001 (reported; the next model goes on)
            print(f"{name}: export or onnxruntime failed: {str(e).splitlines()[0][:300]}")
            continue
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        np.save(os.path.join(out, name + ".ort.npy"), y)
        m = model.cuda()
        ts = []
        with torch.inference_mode():
            for i in range(25):
                torch.cuda.synchronize()
                t1 = time.perf_counter()
                m(x.cuda()).cpu()
                torch.cuda.synchronize()
                if i >= 5:
                    ts.append((time.perf_counter() - t1) * 1e3)
        eager[name] = sorted(ts)[len(ts) // 2]
        print(f"{name}: input {list(x.shape)}, export+ort {time.time() - t0:.1f} s, "
              f"torch eager {eager[name]:.3f} ms", flush=True)
        del m
    with open(os.path.join(out, "torch_eager.json"), "w") as f:
        json.dump(eager, f)
    print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnxruntime",
          ort.__version__)


if __name__ == "__main__":
    main()
