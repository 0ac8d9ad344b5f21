#!/bin/bash
# New ops on the H100 (one short call): the ONNX node suite with every node on
# the GPU (the new unary, lowered and quantization ops among its cases),
# gen_models.py's scan/lowered/opset18 cases all-GPU, and the trig and
# division kernels' accuracy tests (validation layer on).
set -u
tar -xJf .bench-pack/bin.tar.xz
. bench/device_env.sh
W=/tmp/no; mkdir -p $W/data; tar -xJf .bench-data/node.tar.xz -C $W/data
export VKML_VALIDATION=1
$B/tests/onnx_conformance --device gpu --fallback never --expected /dev/null $W/data/node >$W/node.txt 2>&1
echo "node/ all-GPU: $(tail -1 $W/node.txt)"; grep -E "^FAIL" $W/node.txt | grep -v "cannot run on the GPU" | head -8
$B/tests/onnx_conformance --device gpu --fallback never --expected /dev/null $B/models/scan $B/models/lowered $B/models/opset18 >$W/cases.txt 2>&1
echo "gen_models cases all-GPU: $(tail -1 $W/cases.txt)"; grep -E "^FAIL" $W/cases.txt | head
env LD_LIBRARY_PATH=$B/test-libs:$LD_LIBRARY_PATH timeout 60 $B/tests/test_vk_elementwise --filter "vk_elementwise/@(trig_accuracy|div_correctly_rounded)" >$W/acc.txt 2>&1
echo "trig_accuracy, div_correctly_rounded: rc $? $(grep Synthesis $W/acc.txt)"; grep -v "^\[----\]   $" $W/acc.txt | grep -E "got|FAIL" | head -12
tar czf $OUT/newops.tgz -C $W node.txt cases.txt acc.txt
