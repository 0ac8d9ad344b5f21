#!/usr/bin/env python3
"""The zoo runner (issue 33): every torchvision model exported as a user
would, run by vkml with --fallback never in fp32 and fp16, compared with
onnxruntime, timed against torch CUDA eager fp32, and a coverage table.

    python3 bench/zoo.py all RESULTS --bin DIR [--work DIR] [--budget-s S] [--only a,b]
                         [--families f,g]
    python3 bench/zoo.py table RESULTS > table.md

all: per model not yet in RESULTS (random seeded weights, eval, batch 1)
WORK/NAME.onnx (torch.onnx.export, opset 17, dynamo=False), its inputs,
onnxruntime CPU's outputs, then the vkml runs below, and RESULTS/NAME.json
(family, input and output names,
torch CUDA eager fp32 median ms: TF32 off, inputs copied in and outputs out
each run, median of 20 after 5). Models that torch or onnxruntime cannot
export or run are recorded as such (they are outside the goal: "every
model onnxruntime runs"). Families: classification (224x224), segmentation
(224x224; the 'out' output), detection (one 320x320 image; score threshold
0.01 and min/max size 320 so detections exist with random weights), video
(16 frames, 112x112; s3d, swin3d and mvit 224x224), optical_flow (two
224x224 frames; the last flow). Quantized models are left out, and models
of over 2 GB of fp32 weights (ONNX's protobuf limit without external data)
are recorded as not exported.

Weight matrices torchvision initializes to all zeros (ViT's head) get random
ones (normal, std 0.02): otherwise the output is zero whatever the body does.

The attention fast path: torch's exporter fails on nn.MultiheadAttention's
fused fast path (vit_*, and others built on it). The user-side workaround,
applied here before every export: torch.backends.mha.set_fastpath_enabled(False).

Then per precision, `vkc compile --fallback never` (the last line of a
refusal recorded), `vkrun --bench 10 --output`, the outputs against
onnxruntime's: max |d| / max |ref| over the outputs (detections: rows
matched as sets, compare_roi_heads.py's rule; fp16 detections: finite), the
whole run's median. The work files are deleted after each model.
Resumable: a model with a record is skipped; no model starts after
--budget-s seconds.

table: the coverage table (markdown) from the results."""
import glob
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FAMILIES = ("classification", "segmentation", "detection", "video", "optical_flow")
BIG_VIDEO = ("s3d", "swin3d", "mvit")
TOL = {"fp32": 1e-5, "fp16": 5e-2}


def models_of(family):
    import torchvision.models as tm
    mod = {"classification": tm, "segmentation": tm.segmentation, "detection": tm.detection,
           "video": tm.video, "optical_flow": tm.optical_flow}[family]
    return sorted(tm.list_models(module=mod))


def nonzero_weights(model):
    """Random weights where torchvision initializes a weight matrix to all
    zeros (ViT's classification head): with it the output is 0 whatever the
    body computes, and a comparison with onnxruntime would prove nothing."""
    import torch
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not bool(p.any()):
                torch.nn.init.normal_(p, std=0.02)
    return model


def build(family, name):
    return nonzero_weights(build_raw(family, name))


def build_raw(family, name):
    import torch
    import torchvision.models as tm
    torch.manual_seed(0)
    if family == "detection":
        kw = {"weights": None, "weights_backbone": None}
        if "keypoint" in name or "rcnn" in name:
            kw.update(box_score_thresh=0.01, min_size=320, max_size=320)
        elif "ssdlite" in name:
            kw.update(score_thresh=0.01)
        elif name.startswith(("retinanet", "fcos", "ssd")):
            kw.update(score_thresh=0.01)
            if not name.startswith("ssd"):
                kw.update(min_size=320, max_size=320)
        return tm.get_model(name, **kw).eval()
    if family in ("segmentation", "video", "optical_flow") or name.startswith("fcn"):
        kw = {"weights": None}
        if family == "segmentation":
            kw["weights_backbone"] = None  # its default downloads ImageNet weights
        return tm.get_model(name, **kw).eval()
    return tm.get_model(name, weights=None).eval()


class Wrap:
    """The traced callable: dict outputs to one tensor, flows to the last."""

    def __new__(cls, family, model):
        import torch

        class W(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, *x):
                y = self.m(*x)
                if family == "segmentation":
                    return y["out"]
                if family == "optical_flow":
                    return y[-1]
                return y
        return W().eval()


def inputs_of(family, name):
    import torch
    g = torch.Generator().manual_seed(1)
    if family == "detection":
        return [torch.rand(3, 320, 320, generator=g)]
    if family == "video":
        s = 224 if name.startswith(BIG_VIDEO) else 112
        return [torch.rand(1, 3, 16, s, s, generator=g) * 2 - 1]
    if family == "optical_flow":
        return [torch.rand(1, 3, 224, 224, generator=g) * 2 - 1 for _ in range(2)]
    return [torch.rand(1, 3, 224, 224, generator=g) * 2 - 1]


def eager_ms(model, xs, family):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    m = model.cuda()
    ts = []
    with torch.inference_mode():
        for i in range(25):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            ins = [x.cuda() for x in xs]
            y = m(ins) if family == "detection" else m(*ins)
            if isinstance(y, (list, tuple)):
                y = y[0]
            if isinstance(y, dict):
                [v.cpu() for v in y.values()]
            else:
                y.cpu()
            torch.cuda.synchronize()
            if i >= 5:
                ts.append((time.perf_counter() - t0) * 1e3)
    m.cpu()
    torch.cuda.empty_cache()
    return sorted(ts)[len(ts) // 2]


def export_one(out, family, name):  # out: the work dir
    import onnxruntime as ort
    import torch
    torch.backends.mha.set_fastpath_enabled(False)  # the exporter's workaround (see above)
    rec = {"name": name, "family": family}
    path = os.path.join(out, name + ".onnx")
    try:
        model = build(family, name)
        n_params = sum(p.numel() for p in model.parameters())
        if n_params * 4 > 2e9:
            rec["export_error"] = (f"not exported: {n_params / 1e6:.0f}M parameters, over ONNX's "
                                   "2 GB protobuf limit without external data")
            return rec
        xs = inputs_of(family, name)
        if family == "detection":
            with torch.no_grad():
                outs = list(model(xs)[0].keys())
            args, in_names = (xs,), ["image"]
        else:
            model = Wrap(family, model)
            outs = ["output"]
            args, in_names = tuple(xs), ["input", "input2"][:len(xs)]
        t0 = time.time()
        torch.onnx.export(model, args, path, opset_version=17, input_names=in_names,
                          output_names=outs, dynamo=False)
        rec["export_s"] = round(time.time() - t0, 1)
    except Exception as e:  # noqa: BLE001 (recorded; the next model goes on)
        rec["export_error"] = str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__
        return rec
    try:
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        feeds = {n: x.numpy() for n, x in zip(in_names, xs)}
        ys = sess.run(None, feeds)
    except Exception as e:  # noqa: BLE001
        rec["ort_error"] = str(e).strip().splitlines()[0][:300]
        return rec
    for i, (n, x) in enumerate(zip(in_names, xs)):
        np.save(os.path.join(out, f"{name}.{n}.npy"), x.numpy())
    for k, y in zip(outs, ys):
        np.save(os.path.join(out, f"{name}.ort.{k}.npy"), y)
    rec.update(inputs=in_names, outputs=outs, onnx_mb=round(os.path.getsize(path) / 1e6, 1))
    try:
        rec["eager_ms"] = round(eager_ms(model.m if hasattr(model, "m") else model, xs, family), 3)
    except Exception as e:  # noqa: BLE001
        rec["eager_error"] = str(e).strip().splitlines()[0][:200]
    return rec


def compare(rec, out, prec, got_dir):
    if rec["family"] == "detection":
        from compare_roi_heads import match, TOL as DT
        ref = {k: np.load(f"{out}/{rec['name']}.ort.{k}.npy") for k in rec["outputs"]}
        got = {k: np.load(f"{got_dir}/{k}.npy") for k in rec["outputs"]}
        pairs = match(ref, got, *DT[prec])
        n_ref, n_got = len(ref["labels"]), len(got["labels"])
        return {"rows": [n_ref, n_got, len(pairs)],
                "ok": len(pairs) == n_ref == n_got if prec == "fp32" else bool(np.isfinite(got["scores"]).all())}
    worst, ref_max = 0.0, 0.0
    finite = True
    for k in rec["outputs"]:
        ref = np.load(f"{out}/{rec['name']}.ort.{k}.npy").astype(np.float64)
        got = np.load(f"{got_dir}/{k}.npy").astype(np.float64)
        if ref.shape != got.shape:
            return {"rel": None, "ok": False, "why": f"shape {got.shape} vs {ref.shape}"}
        finite &= bool(np.isfinite(got).all())
        ref_max = max(ref_max, float(np.abs(ref).max()))
        worst = max(worst, float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30)))
    # ref_max: random weights may leave outputs below fp16's range (its least
    # subnormal is 6e-8), or push them past it
    return {"rel": worst, "ok": finite and worst <= TOL[prec], "ref_max": ref_max}


def run_vkml(rec, work, bindir):
    name, res = rec["name"], {}
    for prec in ("fp32", "fp16"):
        vkm = f"{work}/{name}.{prec}.vkm"
        try:
            c = subprocess.run([f"{bindir}/tools/vkc", "compile", f"{work}/{name}.onnx",
                                "--fallback", "never", "--precision", prec, "-o", vkm],
                               capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            res[prec] = {"compile": "timed out after 300 s"}
            continue
        if c.returncode:
            res[prec] = {"compile": (c.stderr.strip().splitlines() or ["?"])[-1][:300]}
            continue
        od = f"{work}/{name}.{prec}.out"
        os.makedirs(od, exist_ok=True)
        ins = [a for n in rec["inputs"] for a in ("--input", f"{n}={work}/{name}.{n}.npy")]
        try:
            r = subprocess.run([f"{bindir}/tools/vkrun", vkm, *ins, "--output", od, "--bench", "5",
                                "--warmup", "1"], capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            res[prec] = {"run": "timed out after 300 s"}
            continue
        if r.returncode:
            res[prec] = {"run": (r.stderr.strip().splitlines() or ["?"])[-1][:300]}
            continue
        med = re.search(r"median ([0-9.]+) ms", r.stdout)
        res[prec] = {"ms": float(med.group(1)) if med else None}
        try:
            res[prec].update(compare(rec, work, prec, od))
        except Exception as e:  # noqa: BLE001
            res[prec].update({"ok": False, "why": str(e)[:200]})
    return res


def cmd_all(results, work, bindir, budget, only, families):
    import torch
    import torchvision
    os.makedirs(results, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    names = [(f, n) for f in families for n in models_of(f) if not only or n in only]
    print(f"{len(names)} models; torch {torch.__version__}, torchvision {torchvision.__version__}",
          flush=True)
    t_start = time.time()
    for f, n in names:
        if os.path.exists(os.path.join(results, n + ".json")):
            continue
        if time.time() - t_start > budget:
            print("budget spent", flush=True)
            break
        t0 = time.time()
        rec = export_one(work, f, n)
        if "outputs" in rec:
            rec["vkml"] = run_vkml(rec, work, bindir)
        subprocess.run(f"rm -rf {work}/{n}.*", shell=True)
        with open(os.path.join(results, n + ".json"), "w") as fh:
            json.dump(rec, fh)
        what = rec.get("export_error") or rec.get("ort_error") or json.dumps(rec.get("vkml"))
        print(f"{f}/{n}: {time.time() - t0:.1f} s, {what[:400]}", flush=True)


def cmd_table(out):
    recs = [json.load(open(j)) for j in sorted(glob.glob(f"{out}/*.json"))]
    print("| family | model | fp32: all-GPU, max\\|d\\|/max\\|ort\\| (detections: rows ort/vkml/matched) "
          "| fp16 | vkml fp32 ms | torch eager fp32 ms | fp32 / eager |")
    print("|---|---|---|---|---|---|---|")
    counts = {}
    for r in sorted(recs, key=lambda r: (FAMILIES.index(r["family"]), r["name"])):
        f = r["family"]
        c = counts.setdefault(f, [0, 0, 0])
        if "outputs" not in r:
            why = r.get("export_error") and "torch export: " + r["export_error"] or \
                "onnxruntime: " + r.get("ort_error", "?")
            print(f"| {f} | {r['name']} | not counted ({why[:150]}) | | | | |")
            continue
        c[0] += 1
        cells = []
        v = r.get("vkml", {})
        for prec in ("fp32", "fp16"):
            x = v.get(prec)
            if x is None:
                cells.append("not run")
            elif "compile" in x:
                cells.append("refused: " + x["compile"][:160])
            elif "run" in x:
                cells.append("run failed: " + x["run"][:160])
            elif "rows" in x:
                cells.append(f"{'OK' if x['ok'] else 'DIFFERS'} rows {x['rows']}")
            else:
                rel = x.get("rel")
                cells.append(f"{'OK' if x['ok'] else 'DIFFERS'} {rel:.1e}" if rel is not None else
                             f"DIFFERS {x.get('why', '')}")
        ok32 = v.get("fp32", {}).get("ok")
        c[1] += bool(ok32)
        ms, e = v.get("fp32", {}).get("ms"), r.get("eager_ms")
        c[2] += bool(ok32 and ms and e and ms < e)
        ratio = f"{ms / e:.2f}x" if ms and e else ""
        print(f"| {f} | {r['name']} | {cells[0]} | {cells[1]} | {ms or ''} | {e or ''} | {ratio} |")
    print()
    for f, (n, ok, fast) in counts.items():
        print(f"- {f}: {ok} of {n} models onnxruntime runs are all-GPU and correct in fp32; "
              f"{fast} of them faster than torch CUDA eager fp32")


def main(argv):
    if len(argv) < 2 or argv[0] not in ("all", "table"):
        sys.exit(__doc__)
    cmd, out, rest = argv[0], argv[1], argv[2:]
    opt = {rest[i]: rest[i + 1] for i in range(0, len(rest) - 1, 2)}
    if cmd == "all":
        only = set(opt["--only"].split(",")) if "--only" in opt else None
        fams = opt.get("--families", ",".join(FAMILIES)).split(",")
        cmd_all(out, opt.get("--work", "/tmp/zoo-work"), opt.get("--bin", ".bench-bin"),
                float(opt.get("--budget-s", "1e9")), only, fams)
    else:
        cmd_table(out)


if __name__ == "__main__":
    main(sys.argv[1:])
