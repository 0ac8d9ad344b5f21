#!/bin/bash
# One device call: quantized models a user makes with onnxruntime's tools
# (bench/quant_models.py: quantize_dynamic -> ConvInteger / MatMulInteger /
# DynamicQuantizeLinear; quantize_static QOperator -> QLinearConv /
# QLinearMatMul) from torchvision exports (MODELS, default ResNet-18 and
# ViT-B/16), compiled by vkc (fp32, --fallback never), run by vkrun with the
# exported input: the output against onnxruntime CPU's on the same quantized
# model, vkrun --bench against onnxruntime CPU and against the float model on
# vkml, two reps; with .bench-bin/old, the previous build's compiles of the
# quantized ones alongside; per-op profiles of ResNet-18's. Expects .gl, .bench-pack (bench/stage.sh). Results in $OUT/quant.tgz,
# a table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/quant; mkdir -p $W
M=${MODELS:-"resnet18 vit_b_16"}
python3 bench/torchvision_peer.py export $W $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
python3 bench/quant_models.py $W $M >$W/quant.out 2>$W/quant.err || tail -5 $W/quant.err
# VAR: the variant as the table names it; with .bench-bin/old (the previous
# build's vkc), its compiles as VAR.old, run alternately with this build's
for m in $M; do
  for v in fp32 dyn qop; do
    f=$W/$m.$v.onnx; [ $v = fp32 ] && f=$W/$m.onnx
    vs=$v; [ -x $B/old/vkc ] && [ $v != fp32 ] && vs="$v $v.old"
    for var in $vs; do
      t=$B/tools; [ $var != ${var%.old} ] && t=$B/old
      $t/vkc compile $f --fallback never --dump-after dce -o $W/$m.$var.vkm >$W/$m.$var.cerr 2>&1 ||
        echo "$m $var: compile failed: $(grep -v '^ ' $W/$m.$var.cerr | tail -c 400)"
    done
    for rep in 1 2; do
      for var in $vs; do
        $B/tools/vkrun $W/$m.$var.vkm --input input=$W/$m.input.npy --bench 50 --warmup 5 \
          --warmup-ms 300 --output $W/$m.$var.out >$W/$m.$var.$rep.txt 2>&1 ||
          echo "$m $var: run failed: $(tail -c 300 $W/$m.$var.$rep.txt)"
      done
    done
  done
done
for v in fp32 dyn qop dyn.old qop.old; do
  [ -f $W/resnet18.$v.vkm ] || continue
  $B/tools/vkrun $W/resnet18.$v.vkm --profile --bench 30 --warmup 5 >$W/resnet18.$v.prof.txt 2>&1
done
tar czf $OUT/quant.tgz -C $W --exclude='*.onnx' --exclude='*.vkm' .
python3 - "$W" $M <<'PY'
import json, os, re, sys
import numpy as np
w, models = sys.argv[1], sys.argv[2:]
p = os.path.join(w, "ort.json")
ort = json.load(open(p)) if os.path.exists(p) and os.path.getsize(p) else {}
print("model variant | vkml median ms (2 reps) | ort CPU ms | max|d|/max|ort| | argmax same | int32 reduce_sums (chunked k) | integer ops")
for m in models:
    for v in ("fp32", "dyn", "dyn.old", "qop", "qop.old"):
        key = m + "." + v
        if not os.path.exists(os.path.join(w, key + ".1.txt")):
            continue
        try:
            ms = " / ".join(re.search(r"median ([0-9.]+) ms", open(os.path.join(w, f"{key}.{r}.txt")).read()).group(1)
                            for r in (1, 2))
            ref = np.load(os.path.join(w, m + ("" if v == "fp32" else "." + v.split(".")[0]) + ".ort.npy"))
            od = os.path.join(w, key + ".out")
            o = np.load(os.path.join(od, os.listdir(od)[0]))
            err = np.abs(o - ref).max() / np.abs(ref).max()
            nop = os.path.join(w, m + "." + v.split(".")[0] + ".noopt.ort.npy")
            if os.path.exists(nop):
                r2 = np.load(nop)
                err = f"{err:.2e} (unoptimised ort: {np.abs(o - r2).max() / np.abs(r2).max():.2e}; ort vs it {np.abs(ref - r2).max() / np.abs(r2).max():.2e})"
            else:
                err = f"{err:.2e}"
            same = int((o.argmax(-1) == ref.argmax(-1)).all())
        except Exception as e:
            ms, err, same = "-", "-", "-"
        try:
            chunked = len({l.split("=")[0].strip() for l in open(os.path.join(w, key + ".cerr"))
                           if re.search(r"= reduce_sum.*: i32\[", l)})
        except Exception:
            chunked = "-"
        info = ort.get(m + "." + v.split(".")[0], {})
        ops = {k: n for k, n in info.get("ops", {}).items() if "Integer" in k or "QLinear" in k or "Quantize" in k}
        print(f"{m} {v} | {ms} | {info.get('ms', float('nan')):.2f} | {err} | {same} | {chunked} | {ops} {info.get('error', '')}")
PY
