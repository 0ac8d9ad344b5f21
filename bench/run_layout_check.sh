#!/bin/bash
# One device call: --layout auto (the default) against --layout default on
# models beyond issue 32's eight (bench/layout_check.py; MODELS: FAMILY:MODEL
# words), fp16, --fallback never, outputs against onnxruntime, times.
# Expects .gl, .bench-pack (bench/stage.sh). Results in $OUT/layout_check.tgz,
# the table last.
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh >/dev/null
W=/tmp/lc; mkdir -p $W
M=${MODELS:-"classification:resnext50_32x4d classification:regnet_y_1_6gf classification:densenet121
classification:inception_v3 classification:convnext_tiny classification:wide_resnet50_2
classification:vgg19_bn classification:shufflenet_v2_x1_0 segmentation:fcn_resnet50
segmentation:deeplabv3_resnet50 detection:retinanet_resnet50_fpn detection:fcos_resnet50_fpn
detection:ssd300_vgg16"}
timeout 560 python3 bench/layout_check.py $W $B $M >$W/check.txt 2>$W/check.err
echo "rc $?"; tail -3 $W/check.err
tar czf $OUT/layout_check.tgz -C $W check.txt check.err
grep -v '^{' $W/check.txt
