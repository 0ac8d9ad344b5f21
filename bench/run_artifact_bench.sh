#!/bin/bash
# One device-machine call for the artifact issue: for ResNet-50, MobileNetV2
# and SqueezeNet 1.1 (torchvision, random weights, batch 1, 224x224), fp32
# and fp16: vkc compile to .vkm; vkrun load to first result with cold caches
# (empty vkml cache, NVIDIA's shader disk cache off) and warm; vkrun --bench
# whole-run latency (lean path, blocking and spinning waits), GPU time and
# the overhead split, outputs against onnxruntime; the C API (vkml-instances:
# 1 vs 8 instances' device memory, whole runs with copies / zero copy); then
# torch + cuDNN in a CUDA graph with its copies (bench/peers.py), same run.
# Carry .gl, .bench-bin (bench/stage.sh); writes under $OUT, tables last.
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$PWD/.bench-bin
B=.bench-bin
R=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
ldd $B/tools/vkrun | grep -c "shaderc\|protobuf\|sqlite" | sed 's/^/vkrun links shaderc|protobuf|sqlite: /' | tee $R/ldd.txt

echo "== export =="
python3 bench/export_e2e.py $R/e2e >$R/e2e_export.txt 2>&1 || tail -5 $R/e2e_export.txt
grep -v Warning $R/e2e_export.txt | tail -4
mkdir -p $R/a
for m in resnet50 mobilenet_v2 squeezenet1_1; do
  for p in fp32 fp16; do
    a=$R/a/$m.$p
    export XDG_CACHE_HOME=/tmp/c-compile
    /usr/bin/time -f "%e s %M KB" -o $a.compile.time $B/tools/vkc compile $R/e2e/$m.onnx \
      --input-shape input=1,3,224,224 --precision $p -o $a.vkm 2>$a.err || { echo "$m $p compile failed: $(head -c 300 $a.err)"; continue; }
    in="--input input=$R/e2e/$m.input.npy"
    # cold: nothing cached anywhere
    export XDG_CACHE_HOME=/tmp/c-$m-$p
    __GL_SHADER_DISK_CACHE=0 $B/tools/vkrun $a.vkm $in --bench 1 --warmup 0 --warmup-ms 0 --json >$a.cold.json 2>>$a.err
    # fill both caches, then warm
    $B/tools/vkrun $a.vkm $in --bench 1 --warmup 0 --warmup-ms 0 >/dev/null 2>>$a.err
    $B/tools/vkrun $a.vkm $in --bench 1 --warmup 0 --warmup-ms 0 --json >$a.warm.json 2>>$a.err
    $B/tools/vkrun $a.vkm $in --output $a.out --bench 200 --warmup 20 --warmup-ms 500 --json >$a.bench.json 2>>$a.err
    $B/tools/vkrun $a.vkm $in --bench 200 --warmup 20 --warmup-ms 500 --wait spin --json >$a.spin.json 2>>$a.err
    $B/tools/vkrun $a.vkm $in --bench 200 --warmup 20 --warmup-ms 500 --wait hybrid --json >$a.hybrid.json 2>>$a.err
    $B/tools/vkrun $a.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --profile --json >$a.prof.json 2>>$a.err
    $B/tools/vkrun $a.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --replay --profile --json >$a.replay.json 2>>$a.err
    $B/bench/vkml-instances $a.vkm --instances 8 --runs 200 --warmup 50 >$a.api.json 2>>$a.err
    [ -s $a.err ] && echo "$m $p: $(head -c 300 $a.err)"
  done
done

echo "== peers (torch CUDA graph) =="
python3 bench/peers.py $R >$R/peers.json 2>$R/peers.err || echo "peers.py failed: $(tail -c 300 $R/peers.err)"
python3 bench/summarize_artifact.py $R | tee $R/summary.md
echo
echo "fp16 outputs against torch fp16 and fp32 (same weights and input):"
python3 bench/check_fp16.py $R 2>$R/check_fp16.err | tee -a $R/summary.md
