#!/bin/bash
# One device call, fp32: the split-K rule for fp32 convs and the Winograd
# rule's pixel bounds (pass_split_k.c, pass_winograd.c) against the build
# before them ("old" = .bench-bin/old/vkc: forced fp32 splits only, the
# previous Winograd rule; this build's vkrun runs both): whole runs of the
# video classifiers (VIDEO) and issue 32's eight classifiers (MODELS), two
# reps alternating, outputs against onnxruntime; profiles of the video
# models; torch CUDA eager fp32 for the video models (three calls of the
# zoo's measurement) and cuDNN CUDA graphs for the classifiers. Expects .gl
# and .bench-pack (bench/stage.sh plus the old vkc). Results in
# $OUT/video_rules.tgz, tables last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/vr; mkdir -p $W/m
V=${VIDEO:-"mc3_18 r3d_18 r2plus1d_18"}
C=${MODELS:-"resnet50 mobilenet_v2 squeezenet1_1 resnet18 efficientnet_b0 googlenet vgg16 mobilenet_v3_large"}
for m in $V; do
  python3 -c "import sys; sys.path.insert(0, 'bench'); import zoo, json; \
print(json.dumps(zoo.export_one('$W/m', 'video', '$m')))" >$W/$m.export.json 2>$W/$m.export.err
  ln -sf $m.ort.output.npy $W/m/$m.ort.npy
done
python3 bench/torchvision_peer.py export $W/m $C >$W/export.txt 2>&1 || tail -3 $W/export.txt
old_new_runs $W "--precision fp32" $V $C
profiles $W "new old" $V
python3 - $V >$W/eager_video.json 2>$W/eager_video.err <<'PY'
import json, sys
sys.path.insert(0, "bench")
import zoo
out = {}
for name in sys.argv[1:]:
    model, xs = zoo.build("video", name), zoo.inputs_of("video", name)
    ts = sorted(zoo.eager_ms(model, xs, "video") for _ in range(3))
    out[name] = {"median_of_3": ts[1], "all": ts}
print(json.dumps(out))
PY
python3 bench/torchvision_peer.py graph $C >$W/torch.json 2>$W/torch.err
tar czf $OUT/video_rules.tgz -C $W --exclude=m --exclude='*.vkm' --exclude='*.out' .
cat $W/eager_video.json; echo
python3 bench/old_new_summary.py $W $W/torch.json "cuDNN graph" $V $C
for m in $V; do
  python3 bench/profile_groups.py old=$W/$m.old.prof.txt new=$W/$m.new.prof.txt | tail -1
done
