#!/usr/bin/env python3
"""Peers of vkml on the detection models export_detection.py wrote to DIR
(same machine, same run): torchvision's own model in PyTorch eager on CUDA
(random seeded weights as exported; wall time of the image copied in,
forward, the three outputs copied out: median of 20 after 5 warm-up runs)
and onnxruntime on the CPU (median of 10 after 2). Detection models are
not captured in CUDA graphs here: their post-processing has data-dependent
shapes, which graph capture refuses. Prints one JSON object.
usage: detection_peers.py DIR name..."""
import json, os, statistics, sys, time
import numpy as np
import torch, torchvision, onnxruntime as ort

sys.path.insert(0, os.path.dirname(__file__))
from export_detection import models  # noqa: E402  (the same constructors)


def torch_eager_ms(model, x):
    """Median wall time (ms) of 20 runs after 5 warm-ups: the image copied
    in, forward, the three outputs copied out."""
    def run():
        with torch.no_grad():
            out = model([x.cuda()])[0]
        return [out[k].cpu() for k in ("boxes", "scores", "labels")]

    for _ in range(5):
        run()
    ts = []
    for _ in range(20):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        run()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def main():
    d = sys.argv[1]
    res = {}
    for name in sys.argv[2:]:
        r = {}
        torch.manual_seed(0)
        make, size = models[name]
        model = make().eval().cuda()
        x = torch.from_numpy(np.load(os.path.join(d, name + ".input.npy")))
        r["torch_cuda_eager_ms"] = torch_eager_ms(model, x)
        with torch.no_grad():
            r["torch_detections"] = int(model([x.cuda()])[0]["boxes"].shape[0])
        sess = ort.InferenceSession(os.path.join(d, name + ".onnx"), providers=["CPUExecutionProvider"])
        feeds = {sess.get_inputs()[0].name: x.numpy()}
        for _ in range(2):
            sess.run(None, feeds)
        ts = []
        for _ in range(10):
            t0 = time.perf_counter()
            sess.run(None, feeds)
            ts.append((time.perf_counter() - t0) * 1e3)
        r["ort_cpu_ms"] = statistics.median(ts)
        res[name] = r
    res["versions"] = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                       "onnxruntime": ort.__version__}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
