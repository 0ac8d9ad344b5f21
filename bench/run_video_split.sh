#!/bin/bash
# One device call, fp32: the video classifiers (MODELS, default mc3_18
# r3d_18; ResNets, VGG, ... as classifiers) compiled with each VARIANT's vkc arguments (default: the plan's
# defaults, split-K forced at 2 / 4 / 8 on every conv it takes, Winograd
# off), a replayed per-op profile each, outputs against onnxruntime; per
# conv (its data movement and partial sums included) side by side
# (bench/profile_groups.py). Expects .gl and .bench-pack (bench/stage.sh).
# Results in $OUT/video_split.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh >/dev/null
W=/tmp/vs; mkdir -p $W
MODELS=${MODELS:-mc3_18 r3d_18}
VARIANTS=${VARIANTS:-"def: s2:--split-k=2 s4:--split-k=4 s8:--split-k=8 woff:--winograd=off"}
for m in $MODELS; do
  fam=video; case $m in resnet*|vgg*|googlenet|mobilenet*|efficientnet*|squeezenet*) fam=classification;; esac
  python3 -c "import sys; sys.path.insert(0, 'bench'); import zoo, json; \
print(json.dumps(zoo.export_one('$W', '$fam', '$m')))" >$W/$m.export.json 2>$W/$m.export.err
  for v in $VARIANTS; do
    name=${v%%:*}; args=${v#*:}; args=${args//=/ }
    $B/tools/vkc compile $W/$m.onnx --fallback never $args -o $W/$m.$name.vkm 2>$W/$m.$name.cerr ||
      { echo "$m $name: $(tail -1 $W/$m.$name.cerr)"; continue; }
    $B/tools/vkrun $W/$m.$name.vkm --input input=$W/$m.input.npy --bench 30 --warmup 5 \
      --warmup-ms 300 --replay --profile >$W/$m.$name.prof.txt 2>&1 || tail -2 $W/$m.$name.prof.txt
    $B/tools/vkrun $W/$m.$name.vkm --input input=$W/$m.input.npy --bench 30 --warmup 5 \
      --warmup-ms 300 --output $W/$m.$name.out >$W/$m.$name.run.txt 2>&1 || tail -2 $W/$m.$name.run.txt
    python3 -c "import numpy as np; r=np.load('$W/$m.ort.output.npy'); g=np.load('$W/$m.$name.out/output.npy'); \
print('$m $name', open('$W/$m.$name.run.txt').read().split('median')[1].split()[0], 'ms', \
'rel %.1e' % (abs(g-r).max()/abs(r).max()))"
  done
done
tar czf $OUT/video_split.tgz -C $W --exclude='*.onnx' --exclude='*.vkm' --exclude='*.npy' .
for m in $MODELS; do
  echo "=== $m"
  python3 bench/profile_groups.py $(for v in $VARIANTS; do n=${v%%:*}; echo $n=$W/$m.$n.prof.txt; done) |
    head -14
  python3 bench/profile_groups.py $(for v in $VARIANTS; do n=${v%%:*}; echo $n=$W/$m.$n.prof.txt; done) |
    tail -1
done
