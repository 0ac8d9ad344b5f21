#!/bin/bash
# Builds of libvkml_compiler side by side on one machine (the scalar conv
# templates' variants): each VARIANT is a folder .bench-V holding a
# libvkml_compiler.so.0 that replaces .bench-bin's ("bin": .bench-bin's own).
# 1. fp32 convolutions alone (gen_kernel_models.py's retina and kernels
#    sets, CONVS): vkml-sweep --fix, the node's default and one POINT each,
#    two rounds, the variants' order reversed in the second.
# 2. End to end in PRECS (default fp32; E2E_MODELS: detection models from
#    export_detection.py, ResNet-50 and MobileNetV2 at 224 from
#    export_e2e.py), ROUNDS rounds alternating the variants; every
#    variant's fp32 outputs checked against onnxruntime. TORCH: PyTorch
#    CUDA eager on those detection models before and after.
# 3. SWEEPS for each of SWEEP_VARIANTS (below).
# 4. RetinaNet's fp32 profile (vkc run --profile) for the variants in PROFILE.
# Carry .gl, .bench-bin and the .bench-V folders. Results in
# $OUT/variants.tgz; the tables last.
set -u
. bench/device_env.sh
R=/tmp/cv; rm -rf $R; mkdir -p $R
M=/tmp/cvm; mkdir -p $M
D=/tmp/det; mkdir -p $D
VARIANTS=${VARIANTS:-"v0 bin"}
touch $R/checks.txt
REV=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
lib() { [ "$1" = bin ] && echo $PWD/.bench-bin || echo $PWD/.bench-$1; }
python3 bench/gen_kernel_models.py $M retina >$R/models.txt
python3 bench/gen_kernel_models.py $M kernels >>$R/models.txt
CONVS=${CONVS-"retina_3x3_256_100 retina_cls_256_819_100 retina_3x3_256_50 big_3x3_256_56 r50_3x3_64_56 r50_3x3_256_14 r50_1x1_64_256_56 mv2_pw_144_24_56"}
POINT=${POINT:-"conv2d_direct:WG_M=16,WG_N=16,TM=8,TN=8,BK=8"}
for r in 1 2; do
  order=$VARIANTS; [ $r = 2 ] && order=$REV
  for m in $CONVS; do
    for v in $order; do
      LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$(lib $v):$PWD/.bench-bin timeout 60 \
        $B/bench/vkml-sweep $M/$m.vkir --precision fp32 --ref default --template ${POINT%%:*} \
        --fix ${POINT#*:} --runs 10 --json-file $R/sw.$m.$v.$r.json >$R/sw.$m.$v.$r.txt 2>&1 ||
        echo "sweep $m $v: rc $?"
    done
  done
done
# TORCH (detection model names): PyTorch CUDA eager (detection_torch_variants.py)
# before and after vkml's runs
torch_peers() {
  [ -n "${TORCH:-}" ] && python3 bench/detection_torch_variants.py $D $TORCH >$R/torch.$1.json 2>$R/torch.$1.err
}
for m in ${TORCH:-}; do
  [ -f $D/$m.onnx ] || python3 bench/export_detection.py $D $m 2>&1 | grep -v -i warn | tail -1
done
torch_peers 1
for m in ${E2E_MODELS-retinanet resnet50 mobilenet_v2}; do
  det=0; case $m in retinanet|ssd300|ssdlite|frcnn) det=1 ;; esac
  if [ $det = 1 ]; then
    [ -f $D/$m.onnx ] || python3 bench/export_detection.py $D $m 2>&1 | grep -v -i warn | tail -1
    args="$D/$m.onnx --input image=$D/$m.input.npy"
  else
    [ -f $D/e2e/$m.onnx ] || python3 bench/export_e2e.py $D/e2e >$R/export.txt 2>&1 || tail -3 $R/export.txt
    args="$D/e2e/$m.onnx --input-shape input=1,3,224,224 --input input=$D/e2e/$m.input.npy"
  fi
  for p in ${PRECS:-fp32}; do
    for r in $(seq ${ROUNDS:-2}); do
      order=$VARIANTS; [ $((r % 2)) = 0 ] && order=$REV
      for v in $order; do
        o=$D/o_$m$v; [ $p = fp16 ] && o=$D/o16_$m$v
        rm -rf $o
        LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$(lib $v):$PWD/.bench-bin timeout 240 \
          $B/tools/vkc run $args --precision $p --output $o --bench 20 --warmup-ms 500 --json \
          >$R/e2e.$m.$p.$v.$r.json 2>$R/e2e.$m.$p.$v.$r.err || echo "$m $v $p: rc $? $(tail -c 300 $R/e2e.$m.$p.$v.$r.err)"
      done
    done
  done
  for v in $VARIANTS; do
    if [ $det = 1 ]; then
      echo "$m $v: $(python3 tests/tools/compare_detections.py $D $m $D/o_$m$v 1e-3 1e-5)" >>$R/checks.txt
    else
      python3 -c "import numpy as np,sys; print(sys.argv[3], sys.argv[4], 'max abs err vs ORT %.2g' % np.abs(np.load(sys.argv[1]).astype(float) - np.load(sys.argv[2])).max())" \
        $D/o_$m$v/output.npy $D/e2e/$m.ort.npy $m $v >>$R/checks.txt 2>&1
    fi
  done
done
torch_peers 2
# SWEEPS (model:template:knobs ...): every point with those knobs fixed,
# for each variant in SWEEP_VARIANTS
for v in ${SWEEP_VARIANTS:-}; do
  for sw in ${SWEEPS:-}; do
    IFS=: read -r m tp fx <<<"$sw"
    LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$(lib $v):$PWD/.bench-bin timeout 120 \
      $B/bench/vkml-sweep $M/$m.vkir --precision fp32 --ref default --template $tp --fix $fx --all \
      --runs 10 --json-file $R/sa.$m.$tp.$v.json >$R/sa.$m.$tp.$v.txt 2>&1 || echo "sweep $sw $v: rc $?"
    echo "== $m $tp $fx ($v)"; sed -n '/^best/,$p' $R/sa.$m.$tp.$v.txt | head -6
  done
done
# fp32 profiles of RetinaNet (PROFILE: the variants to profile)
for v in ${PROFILE:-}; do
  LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$(lib $v):$PWD/.bench-bin timeout 240 $B/tools/vkc run $D/retinanet.onnx \
    --input image=$D/retinanet.input.npy --precision fp32 --bench 3 --profile >$R/prof.$v.txt 2>&1
done
tar czf $OUT/variants.tgz -C $R .
python3 - $R "$VARIANTS" "$CONVS" "${E2E_MODELS-retinanet resnet50 mobilenet_v2}" <<'PY'
import glob, json, sys
import numpy as np
R, variants, convs, models = sys.argv[1], *[a.split() for a in sys.argv[2:5]]
flops = {l.split()[0]: int(l.split()[1]) for l in open(f"{R}/models.txt")}
def med(xs):
    return float(np.median(xs)) if xs else float("nan")
print("fp32 convs alone: the default's us (median of 2 rounds) and TFLOP/s; the fixed point's us")
print("| conv | default | " + " | ".join(variants) + " | point: " + " | ".join(variants) + " |")
print("|---|---|" + "---|" * (2 * len(variants)))
for m in convs:
    d, p, name = {}, {}, ""
    for v in variants:
        ds, ps = [], []
        for f in glob.glob(f"{R}/sw.{m}.{v}.*.json"):
            try:
                pts = json.load(open(f))["points"]
            except (OSError, ValueError, KeyError):
                continue
            for q in pts:
                if not q.get("ok"):
                    continue
                if q["default"]:
                    ds.append(q["median_us"]); name = q["template"] + " " + q["schedule"]
                else:
                    ps.append(q["median_us"])
        d[v], p[v] = med(ds), med(ps)
    print(f"| {m} | {name} | " + " | ".join(f"{d[v]:.1f} ({flops[m] / d[v] / 1e6:.1f})" for v in variants)
          + " | " + " | ".join(f"{p[v]:.1f}" for v in variants) + " |")
print("\nend to end, ms (median of the rounds' medians)")
print("| model | precision | " + " | ".join(variants) + " |")
print("|---|---|" + "---|" * len(variants))
for m, p in [(m, p) for m in models for p in ("fp32", "fp16")]:
    row = []
    for v in variants:
        xs = []
        for f in glob.glob(f"{R}/e2e.{m}.{p}.{v}.*.json"):
            try:
                xs.append(json.load(open(f))["bench"]["median_ms"])
            except (OSError, ValueError, KeyError):
                pass
        row.append(f"{med(xs):.3f} ({len(xs)})")
    if any(not r.startswith("nan") for r in row):
        print(f"| {m} | {p} | " + " | ".join(row) + " |")
for i in (1, 2):
    try:
        t = json.load(open(f"{R}/torch.{i}.json"))
        print(f"torch run {i}:", "; ".join(f"{m}: " + ", ".join(f"{k} {v:.2f}" for k, v in d.items() if k.endswith("_ms")) for m, d in t.items() if isinstance(d, dict)))
    except (OSError, ValueError):
        pass
print(open(f"{R}/checks.txt").read())
for f in sorted(glob.glob(f"{R}/prof.*.txt")):
    by = {}
    for line in open(f):
        x = line.split()
        if len(x) > 4 and x[3] == "gpu":
            by.setdefault(x[0], [0.0, 0])
            by[x[0]][0] += float(x[4]); by[x[0]][1] += 1
    print(f.split("/")[-1], "GPU ms by op:", ", ".join(f"{k} {v[0]:.2f} ({v[1]})" for k, v in sorted(by.items(), key=lambda kv: -kv[1][0])[:8]))
PY
