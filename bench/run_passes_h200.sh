#!/bin/bash
# One device-machine call for the compile-pipeline issue (passes and memory
# planning): intermediate memory per planner on the TFLite-GPU paper's models
# (fp32, fp16), and end-to-end latency and dispatch count without and with
# the optimizing passes (vkc run --no-opt vs default) next to torch on CUDA,
# eager and captured in a CUDA graph (bench/peers.py), same run. Carry .gl,
# .bench-bin (bench/stage.sh); writes under $OUT, prints the tables last.
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export XDG_CACHE_HOME=/tmp/vkml-cache
B=.bench-bin
R=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
git log -1 --format=%H >$R/commit.txt 2>/dev/null || true

echo "== export =="
python3 bench/export_mem.py $R/mem >$R/export_mem.txt 2>&1 || tail -5 $R/export_mem.txt
python3 bench/export_e2e.py $R/e2e >$R/e2e_export.txt 2>&1 || tail -5 $R/e2e_export.txt
cat $R/export_mem.txt $R/e2e_export.txt | grep -v Warning | tail -8

echo "== memory plans (vkc run --stats) =="
for m in mobilenet_v1:224 mobilenet_v2:224 deeplabv3:257; do
  name=${m%%:*} s=${m#*:}
  for p in fp32 fp16; do
    $B/tools/vkc run $R/mem/$name.onnx --input-shape input=1,3,$s,$s --device 0 --precision $p \
      --input input=$R/mem/$name.input.npy --stats --json >$R/mem/$name.$p.json \
      2>$R/mem/$name.$p.err || echo "$name $p failed: $(head -c 300 $R/mem/$name.$p.err)"
  done
done

echo "== latency without / with the optimizing passes =="
for m in resnet50 mobilenet_v2 squeezenet1_1; do
  for p in fp32 fp16; do
    for o in noopt opt; do
      flag=""; [ $o = noopt ] && flag=--no-opt
      $B/tools/vkc run $R/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p $flag \
        --input input=$R/e2e/$m.input.npy --output $R/e2e/$m.$p.$o --bench 50 --warmup 5 \
        --warmup-ms 500 --json >$R/e2e/$m.$p.$o.json 2>$R/e2e/$m.$p.$o.err ||
        echo "$m $p $o failed: $(head -c 300 $R/e2e/$m.$p.$o.err)"
      # steps and kernel times in a separate run (timestamps cost a little)
      $B/tools/vkc run $R/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p $flag \
        --input input=$R/e2e/$m.input.npy --bench 20 --warmup 5 --warmup-ms 300 --replay \
        --profile --json >$R/e2e/$m.$p.$o.prof.json 2>>$R/e2e/$m.$p.$o.err
    done
  done
done

echo "== peers (torch CUDA: eager and CUDA graph) =="
python3 bench/peers.py $R >$R/peers.json 2>$R/peers.err || echo "peers.py failed: $(tail -c 300 $R/peers.err)"
grep -v Warning $R/peers.err | tail -5
python3 bench/summarize_passes.py $R | tee $R/summary.md
