#!/bin/bash
# One device call: pass_split_k's products (pass_split_k_gemm.c). First
# one-node GEMMs of few 64x64 tiles and a long k (gen_kernel_models.py
# splitk) compiled with --split-k off, 2, 4, 8, 16 and auto (PART=kernels), fp32 and
# fp16: the GPU time of each (vkrun --profile, 30 runs). Then (PART=models) whole
# runs of MODELS in fp32 and fp16, --split-k auto against off, alternating, two
# reps of vkrun --bench 50, against onnxruntime, torch CUDA eager fp32 and
# cuDNN graphs (fp32, fp16); profiles of both. Expects .gl and .bench-pack
# (bench/stage.sh; its test_vk_split_k runs first, validation on). Results in $OUT/split_k_gemm.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sg; mkdir -p $W/m $W/k
M=${MODELS:-"vit_b_16 vit_l_16 convnext_large swin_t"}
PART=${PART:-"kernels models"} # either or both
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
VKML_VALIDATION=1 env $TL timeout 60 $B/tests/test_vk_split_k >$W/test.txt 2>&1
echo "test_vk_split_k: rc $? $(grep Synthesis $W/test.txt)"
python3 bench/gen_kernel_models.py $W/k splitk >$W/models.txt
[[ $PART == *kernels* ]] && for m in $(cut -d' ' -f1 $W/models.txt); do
  for p in fp32 fp16; do
    for v in off 2 4 8 16 auto; do
      $B/tools/vkc compile $W/k/$m.vkir --precision $p --split-k $v -o $W/k/$m.$p.$v.vkm \
        2>>$W/k/cerr || continue
      $B/tools/vkrun $W/k/$m.$p.$v.vkm --input a=$W/k/$m.a.npy --profile --bench 30 --warmup 5 \
        >$W/k/$m.$p.$v.prof.txt 2>&1
    done
  done
done
[[ $PART == *models* ]] || M=""
[ -n "$M" ] && { python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt; }
# whole runs in old_new_summary.py's files: "new" = --split-k auto, "old" = off
for p in fp32 fp16; do
  mkdir -p $W/$p && ln -sfn $W/m $W/$p/m
  for m in $M; do
    [ -f $W/m/$m.onnx ] || { echo "$m: not exported"; continue; }
    $B/tools/vkc compile $W/m/$m.onnx --precision $p -o $W/$p/$m.new.vkm 2>$W/$p/$m.new.cerr &&
      $B/tools/vkc compile $W/m/$m.onnx --precision $p --split-k off -o $W/$p/$m.old.vkm \
        2>$W/$p/$m.old.cerr || { echo "$m $p: compile failed"; continue; }
    for rep in 1 2; do
      for v in new old; do
        $B/tools/vkrun $W/$p/$m.$v.vkm --input input=$W/m/$m.input.npy --bench 50 --warmup 5 \
          --warmup-ms 300 --output $W/$p/$m.$v.out >$W/$p/$m.$v.$rep.txt 2>&1 || echo "$m $v: run failed"
      done
    done
  done
  profiles $W/$p "new old" $M
done
if [ -n "$M" ]; then
  python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
  python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
  python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
fi
tar czf $OUT/split_k_gemm.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' --exclude='*.npy' \
  --exclude='*.bin' .
[[ $PART == *kernels* ]] && echo "== one-node products: GPU time (us) by --split-k"
printf "%-30s %-5s" model prec; for v in off 2 4 8 16 auto; do printf "%9s" $v; done; echo
[[ $PART == *kernels* ]] && for m in $(cut -d' ' -f1 $W/models.txt); do
  for p in fp32 fp16; do
    printf "%-30s %-5s" $m $p
    for v in off 2 4 8 16 auto; do
      t=$(grep -E '^GPU time' $W/k/$m.$p.$v.prof.txt 2>/dev/null | grep -oE '[0-9.]+ ms' | head -1)
      printf "%9s" "$(python3 -c "print('%.1f' % (1000*float('${t% ms}')))" 2>/dev/null || echo -)"
    done
    echo
  done
done
[ -n "$M" ] && for p in fp32 fp16; do
  echo "== $p whole runs (new = --split-k auto, old = off)"
  for m in $M; do
    for v in old new; do echo "$m $v: $(grep -E '^GPU time' $W/$p/$m.$v.prof.txt)"; done
  done
  ref=$W/torch.json; [ $p = fp16 ] && ref=$W/torch16.json
  python3 bench/old_new_summary.py $W/$p $ref "cuDNN $p graph" $M
done
[ -n "$M" ] && echo "eager: $(cat $W/eager.json)"
