#!/bin/bash
# Issue 32's compiler decision, in one device call: the tensor-core kernels
# in their VK_KHR_cooperative_matrix form (glslang 15, the default where the
# device has it) against their VK_NV_cooperative_matrix form (shaderc;
# VKML_COOPMAT=nv) on the same device, and gemm_coopmat2
# (VK_NV_cooperative_matrix2): the GPU tests of both forms and of
# gemm_coopmat2, vkml-peaks, GEMM 4096^3 and RetinaNet's 3x3 256->256 conv at
# 100x100 (fp16; chained, 128 MiB flushed, each point paired with the
# family's default), cuBLAS on the GEMM (CUDA graph), ResNet-50 fp16 whole
# runs in both forms. Expects the carried .gl and .bench-bin (bench/stage.sh).
# Results in $OUT/coop_api.tgz and a short table last.
set -u
. bench/device_env.sh
W=/tmp/ca; mkdir -p $W/k
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
echo "== what the driver lists =="
python3 bench/vk_coopmat_probe.py 2>&1 | tee $W/probe.txt
echo "== GPU tests: KHR form (default), NV form, gemm_coopmat2 =="
for api in all nv; do
  for t in "test_vk_gemm --filter vk_gemm/coopmat*" "test_vk_conv_coopmat"; do
    env VKML_COOPMAT=$api $TL timeout 200 $B/tests/$t >$W/test.$api.${t%% *}.txt 2>&1
    echo "$api ${t%% *}: rc $? $(grep -E 'Synthesis' $W/test.$api.${t%% *}.txt)"
    grep -E "Assert|FAIL|skip" $W/test.$api.${t%% *}.txt | head -5
  done
done
echo "== vkml-peaks, each form =="
for api in all nv; do
  VKML_COOPMAT=$api $B/bench/vkml-peaks --no-write | tee $W/peaks.$api.txt
done
$B/bench/vkml-peaks --no-write --json >$W/peaks.json
python3 bench/gen_kernel_models.py $W/k kernels >/dev/null
python3 bench/gen_kernel_models.py $W/k retina >/dev/null
sweep() { # api model template extra... : one sweep, JSON kept
  local api=$1 m=$2 tp=$3; shift 3
  VKML_COOPMAT=$api timeout ${SWEEP_S:-120} $B/bench/vkml-sweep $W/k/$m.vkir --precision fp16 \
    --ref default --template $tp --runs 10 --json-file $W/sweep.$api.$m.$tp.json "$@" \
    >$W/sweep.$api.$m.$tp.txt 2>$W/sweep.$api.$m.$tp.err || echo "sweep $api $m $tp: rc $?"
  echo "== $api $m $tp"; sed -n '/^best/,$p' $W/sweep.$api.$m.$tp.txt | head -8
}
for api in all nv; do
  sweep $api gemm_4096 gemm_coopmat --fix WM=4,WN=4,TM=4,TN=4,BK=16,ACC=16
  sweep $api retina_3x3_256_100 conv2d_coopmat --fix WM=2,WN=2,TM=4,TN=2,BK=16,ACC=32
done
sweep all gemm_4096 gemm_coopmat2 --sample ${CM2_POINTS:-28}
sweep all retina_3x3_256_100_as_gemm gemm_coopmat2 --sample ${CM2_CONV_POINTS:-12}
echo "== cuBLAS GEMM 4096^3 fp16 (CUDA graph) =="
python3 - <<'EOF' | tee $W/cublas.json
import json, torch
a = torch.rand(4096, 4096, device="cuda").half(); b = torch.rand(4096, 4096, device="cuda").half()
s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(5): a @ b
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g): c = a @ b
for _ in range(20): g.replay()
ts = []
for _ in range(50):
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record(); g.replay(); e1.record(); torch.cuda.synchronize(); ts.append(e0.elapsed_time(e1))
ts.sort(); ms = ts[25]
print(json.dumps({"gemm_4096_fp16_us": ms * 1e3, "tflops": 2 * 4096**3 / ms / 1e9}))
EOF
echo "== ResNet-50 fp16 whole runs, each form =="
python3 bench/export_e2e.py $W/e2e >$W/e2e_export.txt 2>&1 || tail -3 $W/e2e_export.txt
for api in all nv; do
  VKML_COOPMAT=$api $B/tools/vkc compile $W/e2e/resnet50.onnx --input-shape input=1,3,224,224 \
    --precision fp16 -o $W/r50.$api.vkm 2>$W/compile.$api.err || head -3 $W/compile.$api.err
done
for rep in 1 2; do
  for api in all nv; do
    VKML_COOPMAT=$api $B/tools/vkrun $W/r50.$api.vkm --input input=$W/e2e/resnet50.input.npy \
      --bench 100 --warmup 10 --warmup-ms 300 >$W/r50.$api.$rep.txt 2>&1
    echo "$api rep $rep: $(grep -E '^bench' $W/r50.$api.$rep.txt)"
  done
done
tar czf $OUT/coop_api.tgz -C $W --exclude=k --exclude=e2e --exclude='*.vkm' .
echo "== summary =="
python3 bench/sweep_best.py $W
