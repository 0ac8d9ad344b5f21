"""One device call's check of --layout auto (the default) against --layout
default on models beyond issue 32's eight: each exported as a user would
(zoo.export_one), compiled fp16 with --fallback never both ways, run on the
same input, compared with onnxruntime fp32 as the zoo compares (zoo.compare:
detections as sets of rows), timed (vkrun --bench 20, median), with the
count of convs the auto compile runs nhwc and of its reorders.

usage: layout_check.py WORKDIR BINDIR FAMILY:MODEL...
Prints a JSON line per model, then a table."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo  # noqa: E402


def variant(rec, work, bindir, name, args):
    m = rec["name"]
    vkm = f"{work}/{m}.{name}.vkm"
    c = subprocess.run([f"{bindir}/tools/vkc", "compile", f"{work}/{m}.onnx", "--fallback", "never",
                        "--precision", "fp16", "--dump-after", "layout", "-o", vkm, *args],
                       capture_output=True, text=True, timeout=300)
    if c.returncode:
        return {"compile": (c.stderr.strip().splitlines() or ["?"])[-1][:200]}
    ir = c.stderr
    res = {"nhwc_convs": len(re.findall(r"= conv2d@gpu .* nhwc$", ir, re.M)),
           "reorders": len(re.findall(r" = reorder ", ir))}
    od = f"{work}/{m}.{name}.out"
    os.makedirs(od, exist_ok=True)
    ins = [a for n in rec["inputs"] for a in ("--input", f"{n}={work}/{m}.{n}.npy")]
    r = subprocess.run([f"{bindir}/tools/vkrun", vkm, *ins, "--output", od, "--bench", "20",
                        "--warmup", "3"], capture_output=True, text=True, timeout=300)
    if r.returncode:
        res["run"] = (r.stderr.strip().splitlines() or ["?"])[-1][:200]
        return res
    med = re.search(r"median ([0-9.]+) ms", r.stdout)
    res["ms"] = float(med.group(1)) if med else None
    res.update(zoo.compare(rec, work, "fp16", od))
    return res


def main(argv):
    work, bindir = argv[0], argv[1]
    os.makedirs(work, exist_ok=True)
    rows = []
    for spec in argv[2:]:
        fam, name = spec.split(":")
        rec = zoo.export_one(work, fam, name)
        if "export_error" in rec or "ort_error" in rec:
            rows.append((name, rec.get("export_error") or rec.get("ort_error")))
            print(json.dumps(rec), flush=True)
            continue
        rec["default"] = variant(rec, work, bindir, "default", ["--layout", "default"])
        rec["auto"] = variant(rec, work, bindir, "auto", [])
        print(json.dumps(rec), flush=True)
        rows.append((name, rec))
    print("| model | default ms | auto ms | auto nhwc convs, reorders | default vs ORT | auto vs ORT |")
    print("|---|---|---|---|---|---|")
    for name, rec in rows:
        if isinstance(rec, str):
            print(f"| {name} | {rec} |")
            continue
        d, a = rec["default"], rec["auto"]

        def cmp(v):
            if "compile" in v or "run" in v:
                return v.get("compile") or v.get("run")
            if "rows" in v:
                return f"rows {v['rows']} {'ok' if v['ok'] else 'NOT ok'}"
            return f"{v.get('rel', float('nan')):.1e} {'ok' if v['ok'] else 'NOT ok'}"
        print(f"| {name} | {d.get('ms')} | {a.get('ms')} | {a.get('nhwc_convs')}, {a.get('reorders')} "
              f"| {cmp(d)} | {cmp(a)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
