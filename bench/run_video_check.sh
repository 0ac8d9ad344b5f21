#!/bin/bash
# Issue 33's models slower than torch CUDA eager at the last zoo run (the
# video family, 2026-11-27) and fasterrcnn_resnet50_fpn's 98 of 100 rows,
# measured again on this build: the zoo runner on a fresh directory
# (ZOO_ONLY, ZOO_FAMILIES), per-op profiles (fp32, replayed) of PROFILE's
# models, and the node cases of the ops lowered this session on the GPU
# with the validation layer. Expects .gl, .bench-pack (bench/stage.sh,
# pruned) and .bench-data. Results in $OUT/video.tgz; a short table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh >/dev/null
W=/tmp/vc; mkdir -p $W/zoo $W/p
mkdir -p $W/node && tar -xJf .bench-data/node.tar.xz -C $W/node
VKML_VALIDATION=1 $B/tests/onnx_conformance --device gpu --fallback never \
  --match test_nllloss,test_sce_,test_reversesequence,test_compress_0,test_compress_default_axis \
  $W/node/node >$W/lowered_node.txt 2>&1
tail -2 $W/lowered_node.txt
ONLY=${ZOO_ONLY:-mc3_18,swin3d_s,swin3d_b,swin3d_t,r3d_18,r2plus1d_18,s3d,fasterrcnn_resnet50_fpn}
timeout ${ZOO_TIMEOUT:-360} python3 bench/zoo.py all $W/zoo --bin $B --budget-s 300 \
  --families ${ZOO_FAMILIES:-video,detection} --only $ONLY >$W/zoo.log 2>&1
echo "zoo rc $?"
python3 bench/zoo.py table $W/zoo >$W/table.md 2>&1
for m in ${PROFILE:-mc3_18 swin3d_b}; do
  python3 -c "import sys; sys.path.insert(0, 'bench'); import zoo, json; \
print(json.dumps(zoo.export_one('$W/p', 'video', '$m')))" >$W/p/$m.export.json 2>$W/p/$m.export.err
  $B/tools/vkc compile $W/p/$m.onnx --fallback never -o $W/p/$m.vkm 2>$W/p/$m.cerr ||
    { tail -2 $W/p/$m.cerr; continue; }
  $B/tools/vkrun $W/p/$m.vkm --input input=$W/p/$m.input.npy --bench 30 --warmup 5 \
    --warmup-ms 300 --replay --profile >$W/p/$m.prof.txt 2>&1 || tail -3 $W/p/$m.prof.txt
done
tar czf $OUT/video.tgz -C $W --exclude=node --exclude='*.onnx' --exclude='*.vkm' --exclude='*.npy' .
for m in ${PROFILE:-mc3_18 swin3d_b}; do
  f=$W/p/$m.prof.txt; [ -f $f ] || continue
  echo "=== $m"; grep -E "^bench|median" $f | head -2
  sed -n '/^op /,/^total/p' $f | awk 'NR>1 && $5+0>0 {t[$1]+=$5; c[$1]++} END {for (k in t) printf "%-22s %8.4f %4d\n", k, t[k], c[k]}' | sort -k2 -g -r | head -8
done
grep -E "^\| (video|detection)" $W/table.md | cut -d'|' -f3-8
