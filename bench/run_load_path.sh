#!/bin/bash
# One device call for issue 34's load path and Python items on the GPU:
#  1. ResNet-50 (torchvision, random weights) fp16 and fp32: load to first
#     result, warm (pipeline cache and SPIR-V verdicts from a first process),
#     7 processes each of the previous build (.bench-bin/old: vkrun and
#     libvkml_runtime from the commit before the load-path work) and this one,
#     alternating, each with a cache directory of its own; and the whole run's
#     median, to see that weights in mapped device-local memory run as fast.
#  2. The Python package's per-run overhead over the C API in one process
#     pair per round (bench/python_overhead.py --gpu-only) on ResNet-50.
#  3. vkml installed as `meson install` lays it out (libraries under
#     /usr/local/lib/x86_64-linux-gnu, the package in this Python's
#     /usr/local site directory with the generated _config.py), then
#     vkml.compile + Model.run from a fresh environment (env -i) against
#     onnxruntime.
# Expects .gl, .bench-bin (bench/stage.sh, pruned, + old/ + _config.py).
# Results in $OUT/load.tgz, a table last.
set -u
. bench/device_env.sh
W=/tmp/lp; mkdir -p $W/m
python3 bench/torchvision_peer.py export $W/m resnet50 >$W/export.txt 2>&1 || tail -5 $W/export.txt
for p in fp16 fp32; do
  $B/tools/vkc compile $W/m/resnet50.onnx --precision $p -o $W/r50.$p.vkm 2>$W/compile.$p.txt ||
    { echo "compile $p failed: $(head -c 300 $W/compile.$p.txt)"; }
done
run() { # variant precision tag
  local v=$1 p=$2 t=$3 exe=$B/tools/vkrun lib=$LD_LIBRARY_PATH
  [ $v = old ] && { exe=$B/old/vkrun; lib=$PWD/$B/old:$PWD/$B/extra-libs; }
  XDG_CACHE_HOME=/tmp/c-$v-$p LD_LIBRARY_PATH=$lib timeout 60 $exe $W/r50.$p.vkm \
    --input input=$W/m/resnet50.input.npy --bench 50 --warmup 5 >$W/load.$v.$p.$t.txt 2>&1 ||
    echo "$v $p $t: rc $?"
}
for p in fp16 fp32; do
  for v in old new; do run $v $p first; done
  for i in 1 2 3 4 5 6 7; do for v in old new; do run $v $p $i; done; done
done
grep -h "load to" $W/load.new.fp16.1.txt $W/load.old.fp16.1.txt
echo "== python overhead =="
# ResNet-50 (the GPU's time varies by tens of us between rounds), then the
# script's own models (a relu on 16 floats; a pool over ResNet-50's input:
# its copies, next to no GPU time)
VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 150 python3 bench/python_overhead.py \
  $B/bench/vkml-instances $W/r50.fp32.vkm $W/r50.fp16.vkm --runs 300 --rounds 9 --gpu-only \
  >$W/python_overhead.jsonl 2>$W/python_overhead.err || echo "python_overhead rc $?: $(tail -3 $W/python_overhead.err)"
VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 150 python3 bench/python_overhead.py \
  $B/bench/vkml-instances --runs 2000 --rounds 9 --gpu-only \
  >>$W/python_overhead.jsonl 2>>$W/python_overhead.err || echo "python_overhead (small) rc $?: $(tail -3 $W/python_overhead.err)"
# where Model.run's time goes (bench/python_run_parts.py), beside the C
# call alone (vkml-instances' api_zero_copy: vkml_run with inputs in place)
$B/tools/vkc compile tests/models/tinycnn/model.vkir -o $W/tinycnn.vkm 2>/dev/null
VKML_LIB_DIR=$PWD/$B PYTHONPATH=$PWD/python timeout 120 python3 bench/python_run_parts.py \
  $W/tinycnn.vkm $W/r50.fp16.vkm $W/r50.fp32.vkm --runs 500 --rounds 7 >$W/run_parts.jsonl 2>$W/run_parts.err ||
  echo "run_parts rc $?: $(tail -3 $W/run_parts.err)"
for m in tinycnn r50.fp16 r50.fp32; do
  timeout 60 $B/bench/vkml-instances $W/$m.vkm --instances 1 --runs 1000 --warmup 100 >$W/instances.$m.json 2>&1
done
echo "== installed, fresh environment =="
L=/usr/local/lib/x86_64-linux-gnu; mkdir -p $L
for l in runtime compiler; do
  cp $B/libvkml_$l.so.0 $L/libvkml_$l.so.0.1.0; ln -sf libvkml_$l.so.0.1.0 $L/libvkml_$l.so.0
  ln -sf libvkml_$l.so.0 $L/libvkml_$l.so
done
cp $B/extra-libs/* $L/ && ldconfig
SITE=$(python3 -c 'import site; print(site.getsitepackages()[0])')
mkdir -p $SITE/vkml && cp python/vkml/*.py $B/_config.py $SITE/vkml/
echo "python3: $(command -v python3), PYTHONPATH='${PYTHONPATH:-}', site $SITE"
# a new shell there: this machine's PATH to its python3 and its PYTHONPATH
# (numpy), NVIDIA's ICD file; vkml only from the install
(cd / && env -i HOME=/root PATH=$(dirname "$(command -v python3)"):/usr/local/bin:/usr/bin:/bin \
  ${PYTHONPATH:+PYTHONPATH=$PYTHONPATH} VK_DRIVER_FILES=$VK_DRIVER_FILES \
  XDG_CACHE_HOME=/tmp/c-py python3 -c "
import numpy as np, vkml
m = vkml.compile('$W/m/resnet50.onnx')
y = m.run({'input': np.load('$W/m/resnet50.input.npy')})['output']
ref = np.load('$W/m/resnet50.ort.npy')
print('import vkml from', vkml.__file__, 'on', m.device, '| LIBDIR', vkml._config.LIBDIR)
print('vkml.compile(resnet50) fp32, fresh env: max|d|/max|ort| %.2e' % (np.abs(y - ref).max() / np.abs(ref).max()))
") >$W/fresh.txt 2>&1; cat $W/fresh.txt | tail -3
tar czf $OUT/load.tgz -C $W --exclude=m --exclude='*.vkm' .
echo "== summary =="
python3 - $W <<'EOF'
import json, re, statistics, sys
w = sys.argv[1]
keys = ['map\\+verify', 'device', 'weights', 'pipelines', 'first run']
for p in ['fp16', 'fp32']:
    for v in ['old', 'new']:
        rows, meds, place = [], [], ''
        for i in range(1, 8):
            try:
                full = open(f'{w}/load.{v}.{p}.{i}.txt').read()
                t = re.search(r'load to first result.*', full).group(0)
                rows.append([float(re.search(k + r' ([0-9.]+)', t).group(1)) for k in keys])
                meds.append(float(re.search(r'median ([0-9.]+) ms', full).group(1)))
                place = '(in place)' if '(in place)' in t else '(staged)' if '(staged)' in t else ''
            except Exception as e:
                print(v, p, i, 'incomplete', e)
        if not rows:
            continue
        m = [statistics.median(c) for c in zip(*rows)]
        share = m[0] + m[2] + m[3] + m[4]
        print(f'{p} {v}: map+verify {m[0]:5.1f}  device {m[1]:6.1f}  weights {m[2]:5.1f} {place:10s} '
              f'pipelines {m[3]:5.1f}  first run {m[4]:5.1f}  vkml share {share:5.1f} ms '
              f'(median of {len(rows)})  whole run median {statistics.median(meds):.3f} ms')
try:
    for line in open(f'{w}/python_overhead.jsonl'):
        r = json.loads(line)
        print(f"python {r['model']}: C {r['c_median_ms']:.4f} ms, Python {r['python_median_ms']:.4f} ms, "
              f"overhead {r['overhead_ms'] * 1e3:.1f} us, paired {r['paired_overhead_ms'] * 1e3:.1f} us")
except Exception as e:
    print('python overhead incomplete', e)
try:
    for line in open(f'{w}/run_parts.jsonl'):
        r = json.loads(line)
        name = r['model'][:-4]
        c = json.load(open(f'{w}/instances.{name}.json'))
        print(f"parts {name}: Model.run {r['median_us']['run']:.1f} us, ctypes vkml_run "
              f"{r['median_us']['vkml_run']:.1f}, C vkml_run {c['api_zero_copy']['median_ms'] * 1e3:.1f}, "
              f"C set+run+get {c['api_copies']['median_ms'] * 1e3:.1f}; run - vkml_run "
              f"{r['run_minus_vkml_run_us']:.1f} us (in {r['median_us']['in']:.1f}, out {r['median_us']['out']:.1f})")
except Exception as e:
    print('run parts incomplete', e)
EOF
