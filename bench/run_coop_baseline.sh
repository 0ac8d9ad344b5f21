#!/bin/bash
# The tensor-core baseline in one device call (issue 32): the device's
# ceilings measured by vkml-peaks and by torch; the cooperative-matrix GEMM and
# conv templates on GEMM 4096^3 and RetinaNet's 3x3 256->256 conv at 100x100
# (fp16; sampled sweeps, each point paired with the default, chained, cache
# flushed; the conv's implicit GEMM also as a 1x1 conv and as a plain GEMM of
# the same sizes); cuBLAS / cuDNN on the same shapes (CUDA graphs); ResNet-50 fp16's
# profile with every op's % of its roof, and its load to first result (cold,
# then warm: the SPIR-V validation's share shows in "pipelines").
# Expects the carried .gl and .bench-bin (bench/stage.sh). Results in
# $OUT/coop_baseline.tgz and a short table last.
set -u
. bench/device_env.sh
W=/tmp/cb; mkdir -p $W/k
echo "== vkml-peaks =="
$B/bench/vkml-peaks --json | tee $W/peaks.json
echo "== torch ceilings =="
python3 bench/peaks.py | tee $W/torch_peaks.json
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
for sw in gemm_4096:gemm_coopmat:${GEMM_POINTS:-30} retina_3x3_256_100:conv2d_coopmat:${CONV_POINTS:-30} \
    retina_1x1_2304_256_100:conv2d_coopmat:20 retina_3x3_256_100_as_gemm:gemm_coopmat:20; do
  IFS=: read -r m tp n <<<"$sw"
  timeout ${SWEEP_S:-150} $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 --ref default \
    --template $tp --sample $n --runs 10 --json-file $W/sweep.$m.json >$W/sweep.$m.txt \
    2>$W/sweep.$m.err || echo "sweep $m: rc $?"
  echo "== $m $tp fp16"; sed -n '/^best/,$p' $W/sweep.$m.txt
done
echo "== torch: cuBLAS / cuDNN, fp16, CUDA graph replay =="
python3 - <<'EOF' | tee $W/torch_kernels.json
import json, torch
torch.backends.cudnn.benchmark = True
def graph_ms(fn, reps=50):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(5): fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g): fn()
    for _ in range(20): g.replay()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); g.replay(); b.record(); torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
r = {}
a = torch.rand(4096, 4096, device="cuda").half(); b = torch.rand(4096, 4096, device="cuda").half()
ms = graph_ms(lambda: a @ b); r["gemm_4096_fp16_ms"] = ms; r["gemm_4096_fp16_tflops"] = 2 * 4096**3 / ms / 1e9
x = torch.rand(1, 256, 100, 100, device="cuda").half(); w = torch.rand(256, 256, 3, 3, device="cuda").half()
bias = torch.rand(256, device="cuda").half()
ms = graph_ms(lambda: torch.relu(torch.nn.functional.conv2d(x, w, bias, padding=1)))
r["conv_3x3_256_100_fp16_ms"] = ms; r["conv_3x3_256_100_fp16_tflops"] = 2 * 256 * 256 * 9 * 100 * 100 / ms / 1e9
print(json.dumps(r))
EOF
echo "== ResNet-50 fp16: load (cold, warm) and profile =="
python3 bench/export_e2e.py $W/e2e >$W/e2e_export.txt 2>&1 || tail -5 $W/e2e_export.txt
$B/tools/vkc compile $W/e2e/resnet50.onnx --input-shape input=1,3,224,224 --precision fp16 \
  -o $W/r50.vkm 2>$W/compile.err || head -3 $W/compile.err
for t in cold warm; do
  $B/tools/vkrun $W/r50.vkm --input input=$W/e2e/resnet50.input.npy --bench 50 --warmup 5 \
    >$W/r50.$t.txt 2>&1; grep -E "^bench|load to" $W/r50.$t.txt
done
$B/tools/vkrun $W/r50.vkm --input input=$W/e2e/resnet50.input.npy --bench 50 --warmup 5 \
  --warmup-ms 300 --replay --profile >$W/r50.profile.txt 2>&1
sed -n '/^op /,/^total/p' $W/r50.profile.txt | sort -k5 -g -r | head -25
tar czf $OUT/coop_baseline.tgz -C $W --exclude=k --exclude=e2e .
echo "== summary =="
python3 - $W <<'EOF'
import json, re, sys
w = sys.argv[1]
p = json.load(open(f"{w}/peaks.json")); t = json.load(open(f"{w}/torch_peaks.json"))
k = json.load(open(f"{w}/torch_kernels.json"))
print(f"vkml-peaks: fp32 FMA {p['fma_f32_gflops']/1e3:.1f} TF, fp16 FMA {p['fma_f16_gflops']/1e3:.1f} TF, "
      f"coopmat f16acc {p['coopmat_f16_gflops']/1e3:.1f} TF, f32acc {p['coopmat_f32_gflops']/1e3:.1f} TF, copy {p['copy_gbs']:.0f} GB/s")
print(f"torch: fp16 matmul 8192 {t['fp16_matmul_TFLOPs']:.1f} TF, fp32 {t['fp32_matmul_TFLOPs']:.1f} TF, copy {t['copy_GBps']:.0f} GB/s")
print(f"cuBLAS gemm 4096 fp16 graph: {k['gemm_4096_fp16_ms']*1e3:.1f} us ({k['gemm_4096_fp16_tflops']:.0f} TF); "
      f"cuDNN conv 3x3 256@100 fp16: {k['conv_3x3_256_100_fp16_ms']*1e3:.1f} us ({k['conv_3x3_256_100_fp16_tflops']:.0f} TF)")
cf = 2 * 256 * 256 * 9 * 100 * 100
for m, fl in (("gemm_4096", 2 * 4096**3), ("retina_3x3_256_100", cf), ("retina_1x1_2304_256_100", cf),
              ("retina_3x3_256_100_as_gemm", cf)):
    try:
        txt = open(f"{w}/sweep.{m}.txt").read()
        for line in txt.splitlines():
            if line.startswith("best") or line.startswith("default"):
                us = re.search(r"([0-9.]+) us", line)
                tf = fl / float(us.group(1)) / 1e6 if us else 0
                print(f"{m}: {line.strip()[:110]}  => {tf:.0f} TF")
    except OSError as e:
        print(m, "no sweep:", e)
EOF
