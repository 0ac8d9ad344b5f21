#!/bin/bash
# One device call (H100): NVIDIA's own cooperative-matrix sample
# (jeffbolznv/vk_cooperative_matrix_perf, fp16 inputs only: the patch beside
# this script) on GEMM 4096^3 as the ceiling a coopmat1 / coopmat2 kernel
# reaches on this driver; vkml-peaks in the same call; the ONNX node suite
# with every node on the GPU (fp32, fp16); the division test; the CPU conv
# kernels against onnxruntime on 16 threads and 1.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vd; mkdir -p $W/data; tar -xJf .bench-data/node.tar.xz -C $W/data
$B/bench/vkml-peaks --json -o $W/peaks.json >$W/peaks.txt 2>&1; tail -8 $W/peaks.txt
(cd $B/vkcmp && VKCMP_F16_ONLY=1 timeout 200 ./vkcmp >$W/vkcmp.txt 2>&1; echo "vkcmp rc $?")
grep -E "shader:|cooperativeMatrixProps|TFlops" $W/vkcmp.txt | awk '/shader:/{s=$2} /cooperativeMatrixProps/{p=$0} /TFlops/{print s, $0}' | sort -t' ' -k2 | tail -60
export VKML_VALIDATION=1
for p in fp32 fp16; do
  timeout 150 $B/tests/onnx_conformance --device gpu --precision $p --fallback never --expected /dev/null $W/data/node >$W/node_$p.txt 2>&1
  echo "node/ all-GPU $p: rc $? $(tail -1 $W/node_$p.txt)"; grep -E "^FAIL" $W/node_$p.txt | grep -v "cannot run on the GPU" | head -12
done
env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH timeout 60 $B/tests/test_vk_elementwise --filter "vk_elementwise/@(trig_accuracy|div_correctly_rounded|fmod_exact)" >$W/acc.txt 2>&1
echo "trig, div, fmod: rc $? $(grep Synthesis $W/acc.txt)"
unset VKML_VALIDATION
for t in 16 1; do
  timeout 100 python3 bench/cpu_conv_peers.py --bin $B/bench/vkml-cpu-conv --threads $t --runs 10 >$W/cpu_conv_$t.md 2>&1
  echo "cpu conv $t threads: rc $?"; cat $W/cpu_conv_$t.md | tail -16
done
tar czf $OUT/vendor.tgz -C $W --exclude=data .
