#!/bin/bash
# One device call: fewer copies in the shifted-window transformers.
#  - remove_identities: zero pads, whole-axis slices, in-order strided_copy;
#  - fold_constants: results that hold no more elements than their largest
#    input (Swin's window-mask chain);
#  - fuse_copies: torch.roll (slices + concat) into strided_copy's roll.
# "new" = this build, "old" = the previous commit's release vkc (staged in
# .bench-bin/old; the artifacts differ by the passes only, and this build's
# vkrun runs both). Whole runs of MODELS in PRECISIONS, two reps
# alternating, against onnxruntime and cuDNN graphs; per-op profiles; the
# copy ops' op cases on the GPU (validation on).
# Also for later steps of the same kind (the attention's views): TESTS (the
# op cases' filter), MODELS, PRECISIONS, NAME (the tarball's name), EAGER=1
# (torch CUDA eager fp32 too), DUMP (models whose final IR to keep), ARGS
# (more vkc arguments for both builds; "old" may be a wrapper that
# overrides them).
# Expects .gl (with vulkan-validationlayers) and .bench-pack
# (bench/stage.sh plus the old build). Results in $OUT/${NAME:-swin_copies}.tgz.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/sc; mkdir -p $W/m
M=${MODELS:-"swin_t swin_s swin_b vit_b_16"}
P=${PRECISIONS:-"fp32 fp16"}
TL="LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH"
T=${TESTS:-ops/strided_copy*}
VKML_VALIDATION=1 env $TL timeout 90 $B/tests/test_ops --filter "$T" >$W/test.txt 2>&1
echo "test_ops $T: rc $? $(grep Synthesis $W/test.txt)"
python3 bench/torchvision_peer.py export $W/m $M >$W/export.txt 2>&1 || tail -3 $W/export.txt
for p in $P; do
  mkdir -p $W/$p && ln -sfn $W/m $W/$p/m
  old_new_runs $W/$p "--precision $p ${ARGS:-}" $M
  profiles $W/$p "new old" $M
done
[[ " $P " == *" fp32 "* ]] && python3 bench/torchvision_peer.py graph $M >$W/torch.json 2>$W/torch.err
[[ " $P " == *" fp16 "* ]] && python3 bench/torchvision_peer.py graph --half $M >$W/torch16.json 2>$W/torch16.err
[ "${EAGER:-0}" = 1 ] && python3 bench/torchvision_peer.py eager $M >$W/eager.json 2>$W/eager.err
for m in ${DUMP:-}; do # the new build's final IR
  $B/tools/vkc compile $W/m/$m.onnx --dump-after insert_transfers -o $W/dump.vkm 2>$W/$m.new.ir
done
tar czf $OUT/${NAME:-swin_copies}.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' --exclude='*.npy' \
  --exclude='*.bin' .
for p in $P; do
  echo "== $p"
  for m in $M; do
    for v in old new; do
      f=$W/$p/$m.$v.prof.txt
      echo "$m $v: $(grep -E '^GPU time' $f | grep -oE '[0-9.]+ ms')," \
        "$(grep -cE ' gpu +[0-9]' $f) gpu rows, $(grep -c 'no dispatch' $f) without a dispatch;" \
        "copies: $(grep -E '^(strided_copy|slice|concat|pad|transpose) ' $f | awk '{s += $5; n++} END {print n " ops, " s " ms"}')"
    done
  done
  ref=$W/torch.json; [ $p = fp16 ] && ref=$W/torch16.json
  python3 bench/old_new_summary.py $W/$p $ref "cuDNN $p graph" $M
done
[ "${EAGER:-0}" = 1 ] && echo "eager: $(cat $W/eager.json)"
