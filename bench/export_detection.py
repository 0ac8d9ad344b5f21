#!/usr/bin/env python3
"""Exports torchvision detection models (random, seeded weights; eval mode;
score threshold lowered so that detections exist) to ONNX at a fixed input
size, as a user would (torch.onnx.export, opset 11), and records
onnxruntime's CPU outputs on one random input each.
usage: export_detection.py OUTDIR [name ...]"""
import os, sys, time
import numpy as np
import torch, torchvision, onnxruntime as ort

M = torchvision.models.detection
models = {
    "ssdlite": (lambda: M.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                        score_thresh=0.01), 320),
    "ssd300": (lambda: M.ssd300_vgg16(weights=None, weights_backbone=None, score_thresh=0.01), 300),
    "frcnn": (lambda: M.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, box_score_thresh=0.01), 320),
    "retinanet": (lambda: M.retinanet_resnet50_fpn(weights=None, weights_backbone=None,
                                                   score_thresh=0.01), 512),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    names = sys.argv[2:] or list(models)
    for name in names:
        torch.manual_seed(0)
        make, size = models[name]
        model = make().eval()
        x = torch.rand(1, 3, size, size)
        path = os.path.join(out, name + ".onnx")
        t0 = time.time()
        torch.onnx.export(model, ([x[0]],), path, opset_version=11, input_names=["image"],
                          output_names=["boxes", "scores", "labels"], dynamo=False)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feeds = {sess.get_inputs()[0].name: x[0].numpy()}
        ys = sess.run(None, feeds)
        np.save(os.path.join(out, name + ".input.npy"), x[0].numpy())
        for k, y in zip(["boxes", "scores", "labels"], ys):
            np.save(os.path.join(out, "%s.ort.%s.npy" % (name, k)), y)
        with torch.no_grad():
            ref = model([x[0]])[0]
        print("%s: %d bytes, export+ort %.1f s, ort %d detections, torch %d" %
              (name, os.path.getsize(path), time.time() - t0, len(ys[0]), len(ref["boxes"])))
    print("torch", torch.__version__, "torchvision", torchvision.__version__, "onnxruntime", ort.__version__)


if __name__ == "__main__":
    main()
