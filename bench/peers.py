#!/usr/bin/env python3
"""Times torch on CUDA, on the same device and in the same run, as a peer of
vkml's benchmark (bench/run_h200.sh):

- per kernel: the one-node models gen_kernel_models.py wrote to OUTDIR/k
  (shapes and attributes read back from the .vkir files listed in
  OUTDIR/kernels.txt, so the two cannot drift apart): conv2d with bias
  (torch.nn.functional.conv2d; vkml's kernel also applies the ReLU it fuses,
  which eager torch would run as a second kernel), matmul, add; fp32 with
  TF32 off; CUDA events around each call, median of 50 after 5 warm-up calls;
- end to end: torchvision resnet50, mobilenet_v2, squeezenet1_1 (random
  weights, eval mode, batch 1, 224x224) in fp32 (TF32 off) and fp16
  (model.half()): CUDA events around forward, median of 50 runs after 10
  warm-up runs, input already on the device ("ms"); and the same with the
  input copied from and the output back to the host, wall time ("io_ms",
  what `vkc run --bench` measures); and captured in a CUDA graph, the peer
  to beat ("graph_ms": replay by CUDA events; "graph_io_ms": wall time of
  pinned input copied in, replay, output copied out);
- onnxruntime on the CPU for the ONNX files export_e2e.py wrote to
  OUTDIR/e2e, when present (median of 20 runs after 3).

Prints one JSON object on stdout. A failing case prints a message on stderr,
records {"error": ...} and the rest goes on.
usage: peers.py OUTDIR"""
import json
import os
import re
import statistics
import sys
import time

KERNEL_WARMUP, KERNEL_RUNS = 5, 50
E2E_WARMUP, E2E_RUNS = 10, 50
ORT_WARMUP, ORT_RUNS = 3, 20
MODELS = ["resnet50", "mobilenet_v2", "squeezenet1_1"]


def warn(msg):
    print(f"peers.py: {msg}", file=sys.stderr, flush=True)


# ---- the per-kernel models, read back from their .vkir text -----------------

TYPE = r"(\w+)\[([\d,]*)\]"


def dims(text):
    return [int(d) for d in text.split(",") if d]


def parse_vkir(path):
    """The single compute node of a gen_kernel_models.py model: its op, its
    operand shapes (in order) and its attributes."""
    shapes = {}
    node = None
    for line in open(path):
        line = line.strip()
        if line.startswith("graph @"):
            for name, _, d in re.findall(r"%(\w+): " + TYPE, line.split("->")[0]):
                shapes[name] = dims(d)
            continue
        m = re.match(r"%(\w+) = const " + TYPE, line)
        if m:
            shapes[m.group(1)] = dims(m.group(3))
            continue
        m = re.match(r"%(\w+) = (\w+) ([^{:]*)(\{[^}]*\})? : " + TYPE, line)
        if m:
            operands = [o.strip().lstrip("%") for o in m.group(3).split(",") if o.strip()]
            attrs = {}
            for k, v in re.findall(r"(\w+)=(\[[^\]]*\]|[\w.-]+)", m.group(4) or ""):
                attrs[k] = dims(v.strip("[]")) if v.startswith("[") else v
            node = {"op": m.group(2), "operands": [shapes[o] for o in operands],
                    "out": dims(m.group(6)), "attrs": attrs}
    if node is None:
        raise ValueError(f"{path}: no compute node found")
    return node


def kernel_case(torch, node):
    """A zero-argument function running the node's op in torch on CUDA."""
    F = torch.nn.functional
    dev = "cuda"
    op, shp, at = node["op"], node["operands"], node["attrs"]
    rnd = lambda s: torch.rand(*s, device=dev) * 2 - 1  # noqa: E731
    if op == "conv2d":
        x, w = rnd(shp[0]), rnd(shp[1])
        b = rnd(shp[2]) if len(shp) > 2 else None
        pads = at.get("pads", [0, 0, 0, 0])
        if pads[0] != pads[2] or pads[1] != pads[3]:
            raise ValueError(f"asymmetric pads {pads}")
        stride = tuple(at.get("strides", [1, 1]))
        dil = tuple(at.get("dilations", [1, 1]))
        group = int(at.get("group", 1))
        return lambda: F.conv2d(x, w, b, stride, (pads[0], pads[1]), dil, group)
    if op == "matmul":
        a, b = rnd(shp[0]), rnd(shp[1])
        return lambda: torch.matmul(a, b)
    if op == "add":
        a, b = rnd(shp[0]), rnd(shp[1])
        y = torch.empty(node["out"], device=dev)
        return lambda: torch.add(a, b, out=y)
    raise ValueError(f"op {op} has no torch counterpart here")


def cuda_ms(torch, fn, warmup, runs):
    """Median of CUDA-event times around fn (ms): bench/cuda_timing.py's,
    imported here because torch is only imported once it is needed."""
    from cuda_timing import cuda_ms as timed
    return timed(fn, warmup, runs)


def wall_ms(fn, warmup, runs):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def kernels(torch, R, out):
    listing = os.path.join(R, "kernels.txt")
    if not os.path.exists(listing):
        warn(f"{listing} missing: no per-kernel peers")
        return
    for line in open(listing):
        parts = line.split()
        if not parts:
            continue
        name = parts[0]
        try:
            node = parse_vkir(os.path.join(R, "k", name + ".vkir"))
            fn = kernel_case(torch, node)
            ms = cuda_ms(torch, fn, KERNEL_WARMUP, KERNEL_RUNS)
            out[name] = {"op": node["op"], "ms": ms}
        except Exception as e:  # noqa: BLE001 - one case failing must not stop the rest
            warn(f"kernel {name}: {type(e).__name__}: {e}")
            out[name] = {"error": f"{type(e).__name__}: {e}"}
        finally:
            fn = None
            torch.cuda.empty_cache()


def cuda_graph(torch, model, host):
    """The peer to beat: the forward pass captured in a CUDA graph (cuDNN
    kernels, no Python launch overhead). Returns (replay ms by CUDA events,
    wall ms of a whole run: pinned host input copied in, replay, output
    copied out and synchronised: what vkml's whole-run time covers)."""
    pinned = host.pin_memory()
    static_in = pinned.cuda()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):  # warm up (cuDNN autotuning) outside the capture
            model(static_in)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = model(static_in)
    out_host = torch.empty(static_out.shape, dtype=static_out.dtype, pin_memory=True)

    def whole():
        static_in.copy_(pinned, non_blocking=True)
        g.replay()
        out_host.copy_(static_out, non_blocking=True)
        torch.cuda.current_stream().synchronize()

    return cuda_ms(torch, g.replay, E2E_WARMUP, E2E_RUNS), wall_ms(whole, E2E_WARMUP, E2E_RUNS)


def e2e(torch, R, out):
    try:
        import torchvision
    except Exception as e:  # noqa: BLE001
        warn(f"torchvision: {e}")
        for m in MODELS:
            out[m] = {"error": f"torchvision: {e}"}
        return
    torch.manual_seed(0)
    for m in MODELS:
        res = out.setdefault(m, {})
        for prec in ["fp32", "fp16"]:
            try:
                model = getattr(torchvision.models, m)(weights=None).eval().cuda()
                host = torch.rand(1, 3, 224, 224) * 2 - 1
                if prec == "fp16":
                    model, host = model.half(), host.half()
                x = host.cuda()
                with torch.inference_mode():
                    res[prec + "_ms"] = cuda_ms(torch, lambda: model(x), E2E_WARMUP, E2E_RUNS)
                    res[prec + "_io_ms"] = wall_ms(lambda: model(host.cuda()).cpu(), E2E_WARMUP,
                                                   E2E_RUNS)
                    graph_ms, graph_io_ms = cuda_graph(torch, model, host)
                    res[prec + "_graph_ms"] = graph_ms
                    res[prec + "_graph_io_ms"] = graph_io_ms
            except Exception as e:  # noqa: BLE001
                warn(f"e2e {m} {prec}: {type(e).__name__}: {e}")
                res[prec + "_error"] = f"{type(e).__name__}: {e}"
            finally:
                model = x = None
                torch.cuda.empty_cache()


def ort_cpu(R, out):
    paths = [(m, os.path.join(R, "e2e", m + ".onnx")) for m in MODELS]
    if not any(os.path.exists(p) for _, p in paths):
        return
    try:
        import numpy as np
        import onnxruntime as ort
    except Exception as e:  # noqa: BLE001
        warn(f"onnxruntime: {e}")
        return
    for m, path in paths:
        res = out.setdefault(m, {})
        try:
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            x = np.load(os.path.join(R, "e2e", m + ".input.npy"))
            name = sess.get_inputs()[0].name
            res["ort_cpu_ms"] = wall_ms(lambda: sess.run(None, {name: x}), ORT_WARMUP, ORT_RUNS)
            res["ort_version"] = ort.__version__
        except Exception as e:  # noqa: BLE001
            warn(f"onnxruntime {m}: {type(e).__name__}: {e}")
            res["ort_cpu_error"] = f"{type(e).__name__}: {e}"


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    R = sys.argv[1]
    result = {"settings": {"tf32": False, "cudnn_benchmark": True,
                           "kernel_warmup": KERNEL_WARMUP, "kernel_runs": KERNEL_RUNS,
                           "e2e_warmup": E2E_WARMUP, "e2e_runs": E2E_RUNS},
              "kernels": {}, "e2e": {}}
    try:
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("CUDA is not available to torch")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        # cuDNN's own algorithm search, as a performance-minded user would run it
        torch.backends.cudnn.benchmark = True
        result.update({"torch": torch.__version__, "cuda": torch.version.cuda,
                       "cudnn": torch.backends.cudnn.version(),
                       "gpu": torch.cuda.get_device_name()})
    except Exception as e:  # noqa: BLE001
        warn(f"torch: {type(e).__name__}: {e}")
        result["error"] = f"torch: {type(e).__name__}: {e}"
        torch = None
    if torch is not None:
        kernels(torch, R, result["kernels"])
        e2e(torch, R, result["e2e"])
    ort_cpu(R, result["e2e"])
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
