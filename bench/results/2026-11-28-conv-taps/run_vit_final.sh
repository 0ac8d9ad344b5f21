#!/bin/bash
# Call 9 of 2026-11-28-conv-taps.md: ViT-B/16 fp16 and fp32 whole runs, this
# build (d828ed2: tap-major weights, the GEMM ladder, unit-axis transposes as
# reshapes) against e28880f (.bench-bin/old), alternating, two reps, against
# onnxruntime and the torch+cuDNN CUDA graphs; profiles of this build.
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vf; mkdir -p $W/m
python3 bench/torchvision_peer.py export $W/m vit_b_16 >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in fp16 fp32; do
  D=$W/$p; mkdir -p $D; ln -sf $W/m $D/m
  for v in new old; do
    T=$B/tools; [ $v = old ] && T=$B/old
    $T/vkc compile $W/m/vit_b_16.onnx --precision $p -o $D/vit_b_16.$v.vkm 2>$D/vit_b_16.$v.cerr ||
      echo "$p $v: compile failed: $(head -c 300 $D/vit_b_16.$v.cerr)"
  done
  for rep in 1 2; do
    for v in new old; do
      $B/tools/vkrun $D/vit_b_16.$v.vkm --input input=$W/m/vit_b_16.input.npy --bench 50 --warmup 5 \
        --warmup-ms 300 --output $D/vit_b_16.$v.out >$D/vit_b_16.$v.$rep.txt 2>&1 || echo "$p $v: run failed"
    done
  done
  $B/tools/vkrun $D/vit_b_16.new.vkm --profile --bench 30 --warmup 5 >$D/vit_b_16.new.prof.txt 2>&1
done
python3 bench/torchvision_peer.py graph --half vit_b_16 >$W/fp16/torch.json 2>$W/torch16.err
python3 bench/torchvision_peer.py graph vit_b_16 >$W/fp32/torch.json 2>$W/torch32.err
tar czf $OUT/vit_final.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
for p in fp16 fp32; do
  echo "== $p"; python3 bench/old_new_summary.py $W/$p $W/$p/torch.json "cuDNN $p graph" vit_b_16
  grep "GPU time" $W/$p/vit_b_16.new.prof.txt
  grep -vE "^\s" $W/$p/vit_b_16.new.prof.txt | awk 'NF>8 && $4=="gpu" {t[$1]+=$5; n[$1]++} END {for (k in t) printf "%-18s %3d %.4f\n", k, n[k], t[k]}' | sort -k3 -g -r | head -6
done
