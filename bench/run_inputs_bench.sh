#!/bin/bash
# One device-machine call: the lean path's inputs written straight into
# device-local host-visible memory (vkrun --inputs direct, the default where
# the device has such memory) against staging copied in by the run
# (--inputs staged), for ResNet-50, MobileNetV2 and SqueezeNet 1.1
# (torchvision, random weights, batch 1), fp32 and fp16, blocking and
# spinning waits; runs interleaved (direct, staged, staged, direct) so clock
# drift hits both; outputs of the two compared bit for bit; the GPU time from
# --profile; torch + cuDNN in a CUDA graph with its copies (bench/peers.py)
# in the same run. Carry .gl, .bench-bin (bench/stage.sh); tables last.
set -u
. bench/device_env.sh
nvidia-smi -q -d MEMORY | grep -A3 -i "bar1" | tee -a $R/device.txt
python3 bench/export_e2e.py $R/e2e >$R/e2e_export.txt 2>&1 || tail -5 $R/e2e_export.txt
mkdir -p $R/a
for m in resnet50 mobilenet_v2 squeezenet1_1; do
  for p in fp32 fp16; do
    a=$R/a/$m.$p
    $B/tools/vkc compile $R/e2e/$m.onnx --input-shape input=1,3,224,224 --precision $p \
      -o $a.vkm 2>$a.err || { echo "$m $p compile failed: $(head -c 300 $a.err)"; continue; }
    in="--input input=$R/e2e/$m.input.npy"
    for i in direct staged; do
      $B/tools/vkrun $a.vkm $in --inputs $i --output $a.$i.out >/dev/null 2>>$a.err
    done
    cmp -s $a.direct.out/output.npy $a.staged.out/output.npy && echo same >$a.cmp || echo DIFFERENT >$a.cmp
    for w in block spin; do
      for k in 1 2; do
        for i in $([ $k = 1 ] && echo "direct staged" || echo "staged direct"); do
          $B/tools/vkrun $a.vkm $in --inputs $i --wait $w --bench 300 --warmup 20 --warmup-ms 500 \
            --json >$a.$i.$w.$k.json 2>>$a.err
        done
      done
    done
    $B/tools/vkrun $a.vkm $in --bench 50 --warmup 5 --warmup-ms 300 --profile --json >$a.prof.json 2>>$a.err
    [ -s $a.err ] && echo "$m $p: $(head -c 300 $a.err)"
  done
done
python3 bench/peers.py $R >$R/peers.json 2>$R/peers.err || echo "peers.py failed: $(tail -c 300 $R/peers.err)"
python3 bench/summarize_inputs.py $R | tee $R/summary.md
