#!/bin/bash
# Device-machine calls for the tuner issue. Carry .gl and .bench-bin
# (bench/stage.sh). PART 1: ResNet-50 and MobileNetV2 tuned in fp32 (conv and
# gemm workloads, a time budget per model), end to end default vs tuned.
# PART 2: the same in fp16, exhaustive search of four one-op spaces and the
# annealing replayed over them (vkml-sa-replay), torch peers (CUDA graph).
# PART 3: as 1 and the exhaustive part of 2, without peers. PART 4 (any
# GPU; the clock-stable, paired tuner of 2026-11-27): tuning and end to end
# in PRECS, torch peers unless PEERS=0. PART 5: the exhaustive part alone.
# Environment: BUDGET (s per model), EXH (s per exhaustive search), MODELS,
# PRECS, EXHM, PEERS; CHECK=1: first the defaults timed one dispatch per
# submission (--chain 1) and chained without the cache flush, and each
# model's per-op profile (the timing check; CHECK_S: seconds per run);
# EXTRA: more vktune arguments (e.g. --flush-mb 0).
# Results in $OUT/tune-partN.tgz ($OUT takes 8 files); tables last.
set -u
PART=$1
BUDGET=${BUDGET:-100}
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export XDG_CACHE_HOME=/tmp/vkml-cache
B=.bench-bin
R=/tmp/res$PART${TAG:-}
mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
M=/tmp/models
[ -f $M/e2e/resnet50.onnx ] || python3 bench/export_e2e.py $M/e2e >$R/export.txt 2>&1 || tail -3 $R/export.txt
mkdir -p $R/ort && cp $M/e2e/*.ort.npy $R/ort/
precs=fp32; [ "$PART" = 2 ] && precs=fp16
[ "$PART" = 5 ] && precs=""
precs=${PRECS-$precs}
if [ "${CHECK:-0}" = 1 ]; then
  # the timing protocol against the model: each model's default per-op
  # profile, and the defaults timed one dispatch per submission (--chain 1)
  # and chained without the cache flush (--flush-mb 0)
  for p in $precs; do
    for m in ${MODELS:-resnet50 mobilenet_v2}; do
      $B/tools/vkc run $M/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p \
        --input input=$M/e2e/$m.input.npy --profile --bench 20 --warmup 5 --warmup-ms 500 --json \
        >$R/profile.$m.$p.json 2>$R/profile.$m.$p.err || echo "profile $m $p failed"
      for v in "chain1 --chain 1" "noflush --flush-mb 0"; do
        set -- $v
        timeout ${CHECK_S:-120} $B/tools/vktune $M/e2e/$m.onnx --input-shape input=1,3,224,224 \
          --device 0 --precision $p --db $R/$1.db --ops Conv,Gemm,MatMul --budget-trials 1 \
          $2 $3 --json >$R/$1.$m.$p.json 2>$R/$1.$m.$p.err || echo "check $1 $m $p: rc $?"
      done
    done
  done
fi
for p in $precs; do
  for m in ${MODELS:-resnet50 mobilenet_v2}; do
    $B/tools/vktune $M/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p \
      --db $R/h100.db --ops Conv,Gemm,MatMul --budget-seconds $BUDGET ${EXTRA:-} --json \
      >$R/tune.$m.$p.json 2>$R/tune.$m.$p.err || echo "vktune $m $p failed: $(tail -c 300 $R/tune.$m.$p.err)"
    for v in default tuned; do
      db=""; [ $v = tuned ] && db="--db $R/h100.db"
      $B/tools/vkc run $M/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p $db \
        --input input=$M/e2e/$m.input.npy --output $R/out.$m.$p.$v --bench 50 --warmup 5 \
        --warmup-ms 500 --json >$R/e2e.$m.$p.$v.json 2>$R/e2e.$m.$p.$v.err ||
        echo "vkc run $m $p $v failed: $(tail -c 300 $R/e2e.$m.$p.$v.err)"
    done
  done
done
if [ "$PART" != 1 ] && [ "$PART" != 4 ]; then
  python3 bench/export_tune.py $M/one >$R/export_one.txt 2>&1 || tail -3 $R/export_one.txt
  for m in ${EXHM:-maxpool_r50 dw3x3_mnv2 conv1x1_r50 conv3x3_r50}; do
    timeout ${EXH:-80} $B/tools/vktune $M/one/$m.onnx --device 0 --db $R/exhaustive.db --search exhaustive \
      --json >$R/exh.$m.json 2>$R/exh.$m.err || echo "exhaustive $m: rc $? $(tail -c 200 $R/exh.$m.err)"
  done
  $B/bench/vkml-sa-replay $R/exhaustive.db --seeds 50 | tee $R/sa_replay.txt
fi
if [ "$PART" = 2 ] || { [ "$PART" = 4 ] && [ "${PEERS:-1}" = 1 ]; }; then
  mkdir -p $R/peers && ln -sf $M/e2e $R/peers/e2e
  python3 bench/peers.py $R/peers >$R/peers.json 2>$R/peers.err || echo "peers failed: $(tail -c 300 $R/peers.err)"
  rm -f $R/peers/e2e
fi
python3 bench/summarize_tune.py $R >$R/summary.md
tar czf $OUT/tune-part$PART${TAG:-}.tgz -C $R .
cat $R/summary.md
