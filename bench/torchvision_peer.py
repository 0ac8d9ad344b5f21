#!/usr/bin/env python3
"""torchvision classifiers for the device scripts (run_winograd.sh,
run_session_check.sh), two commands:

  export OUTDIR MODEL...   each model (random weights, seed 0, eval, batch 1,
                           224x224, opset 17, input "input", output "output",
                           static shapes; all-zero weight matrices, as ViT's
                           head, filled with random values; the attention
                           fast path off, as bench/zoo.py) to
                           OUTDIR/MODEL.onnx, its input to MODEL.input.npy
                           and onnxruntime's CPU output to MODEL.ort.npy
                           (opset 13 until 2026-11-28)
  graph [--half] MODEL...  the peer: torch+cuDNN (TF32 off, cudnn.benchmark)
                           captured in a CUDA graph, wall ms of a whole run
                           (pinned input in, replay, output out; peers.py's
                           cuda_graph), fp32 (fp16 model and input with
                           --half); prints {MODEL: ms} as JSON
  eager MODEL...           torch CUDA eager fp32 (TF32 off), wall ms of a
                           whole run (input in, forward, output out), median
                           of 100 after 20 (bench/zoo.py's protocol, five
                           times its runs: its 20 moved by up to 2x between
                           calls); prints {MODEL: ms} as JSON"""
import json
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402  (cuda_graph: the same protocol as the other peers)


def export(out, names):
    import onnxruntime as ort
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.backends.mha.set_fastpath_enabled(False)  # the exporter fails on it (bench/zoo.py)
    for name in names:
        model = getattr(torchvision.models, name)(weights=None).eval()
        with torch.no_grad():  # all-zero weights (ViT's head) would make the outputs vacuous
            for prm in model.parameters():
                if prm.dim() >= 2 and not prm.any():
                    prm.uniform_(-0.05, 0.05)
        x = torch.rand(1, 3, 224, 224) * 2 - 1
        p = os.path.join(out, name + ".onnx")
        torch.onnx.export(model, x, p, opset_version=17, input_names=["input"],
                          output_names=["output"], dynamo=False)
        y = ort.InferenceSession(p, providers=["CPUExecutionProvider"]).run(
            None, {"input": x.numpy()})[0]
        np.save(os.path.join(out, name + ".input.npy"), x.numpy())
        np.save(os.path.join(out, name + ".ort.npy"), y)


def model_and_input(name):
    """The model on the GPU (random weights, TF32 off) and a host input."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = getattr(torchvision.models, name)(weights=None).eval().cuda()
    return model, torch.rand(1, 3, 224, 224) * 2 - 1


def graph(names, half=False):
    torch.backends.cudnn.benchmark = True
    res = {}
    for name in names:
        model, x = model_and_input(name)
        if half:
            model, x = model.half(), x.half()
        with torch.inference_mode():
            res[name] = peers.cuda_graph(torch, model, x)[1]
    print(json.dumps(res))


def eager(names):
    import time
    res = {}
    for name in names:
        model, x = model_and_input(name)
        ts = []
        with torch.inference_mode():
            for i in range(120):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                model(x.cuda()).cpu()
                torch.cuda.synchronize()
                if i >= 20:
                    ts.append((time.perf_counter() - t0) * 1e3)
        res[name] = round(float(np.median(ts)), 3)
        model.cpu()
        torch.cuda.empty_cache()
    print(json.dumps(res))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "graph" and sys.argv[2] == "--half":
        graph(sys.argv[3:], half=True)
    elif len(sys.argv) >= 3 and sys.argv[1] == "graph":
        graph(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "eager":
        eager(sys.argv[2:])
    else:
        sys.exit(__doc__)
