#!/bin/bash
# One device-machine call (see bench/README.md): unpack the Vulkan loader,
# run the GPU conformance, the per-kernel benchmark, the end-to-end models and
# the same cases in torch on CUDA (bench/peers.py), print a short table last.
# Schedule sweeps are a separate call: bench/sweep_h200.sh. Expects carried
# `.bench-bin` (release binaries and libraries, staged by bench/stage.sh),
# `.bench-data/node.tar.xz` (the ONNX node tests) and `.gl` (the libvulkan1
# .deb).
set -u
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs
export XDG_CACHE_HOME=/tmp/vkml-cache
B=.bench-bin
R=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
echo "== GPU conformance (node/, fp32) =="
mkdir -p /tmp/onnxdata && tar -C /tmp/onnxdata -xJf .bench-data/node.tar.xz
$B/tests/onnx_conformance --device gpu /tmp/onnxdata/node >$R/conformance_gpu.txt 2>&1 || true
tail -2 $R/conformance_gpu.txt; grep ^FAIL $R/conformance_gpu.txt | head -20
$B/tests/onnx_conformance --device gpu --precision fp16 /tmp/onnxdata/node >$R/conformance_gpu_fp16.txt 2>&1 || true
tail -2 $R/conformance_gpu_fp16.txt; grep ^FAIL $R/conformance_gpu_fp16.txt | head -20
$B/tests/onnx_conformance --device gpu --layout nc4hw4 /tmp/onnxdata/node >$R/conformance_gpu_nc4hw4.txt 2>&1 || true
tail -2 $R/conformance_gpu_nc4hw4.txt; grep ^FAIL $R/conformance_gpu_nc4hw4.txt | head -20

echo "== ceilings (torch) =="
python3 bench/peaks.py | tee $R/peaks.json

echo "== per-kernel benchmark (fp32, and fp16 for some, default schedules) =="
FP16_KERNELS="r50_conv1_7x7s2 r50_1x1_64_256_56 r50_3x3_64_56 r50_3x3_128_28 r50_3x3_256_14
  r50_3x3_512_7 r50_1x1_1024_256_14 mv2_pw_144_24_56 big_3x3_256_56 big_3x3_256_56_b8
  gemm_1024 gemm_4096"
python3 bench/gen_kernel_models.py $R/k >$R/kernels.txt
while read name flops bytes; do
  ins=""
  for f in $R/k/$name.*.npy; do n=${f#$R/k/$name.}; n=${n%.npy}; ins="$ins --input $n=$f"; done
  # replayed: the kernel back to back without transfers (the GPU keeps its clocks)
  $B/tools/vkc run $R/k/$name.vkir --device 0 $ins --bench 50 --warmup 5 --warmup-ms 300 \
    --replay --profile --json \
    >$R/k/$name.json 2>$R/k/$name.err || echo "$name failed: $(head -c 300 $R/k/$name.err)"
  case " $FP16_KERNELS " in *" $name "*)
    $B/tools/vkc run $R/k/$name.vkir --device 0 $ins --precision fp16 --bench 50 --warmup 5 \
      --warmup-ms 300 --replay --profile --json \
      >$R/k/$name.fp16.json 2>$R/k/$name.fp16.err || echo "$name fp16 failed: $(head -c 300 $R/k/$name.fp16.err)"
  esac
done <$R/kernels.txt

echo "== end-to-end models (batch 1, 224x224) =="
python3 bench/export_e2e.py $R/e2e >$R/e2e_export.txt 2>&1 || tail -5 $R/e2e_export.txt
for m in resnet50 mobilenet_v2 squeezenet1_1; do
  for p in fp32 fp16; do
    $B/tools/vkc run $R/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p \
      --input input=$R/e2e/$m.input.npy --output $R/e2e/$m.$p --bench 50 --warmup 5 --warmup-ms 500 --json \
      >$R/e2e/$m.$p.json 2>$R/e2e/$m.$p.err || echo "$m $p failed: $(head -c 300 $R/e2e/$m.$p.err)"
    # the same with packed channels (nc4hw4) between the kernels that take them
    $B/tools/vkc run $R/e2e/$m.onnx --input-shape input=1,3,224,224 --device 0 --precision $p \
      --layout nc4hw4 --input input=$R/e2e/$m.input.npy --output $R/e2e/$m.$p.nc4hw4 --bench 50 \
      --warmup 5 --warmup-ms 500 --json \
      >$R/e2e/$m.$p.nc4hw4.json 2>$R/e2e/$m.$p.nc4hw4.err || echo "$m $p nc4hw4 failed: $(head -c 300 $R/e2e/$m.$p.nc4hw4.err)"
  done
done
echo "== peers (torch CUDA) =="
python3 bench/peers.py $R >$R/peers.json 2>$R/peers.err || echo "peers.py failed: $(tail -c 300 $R/peers.err)"
cat $R/peers.err
python3 bench/summarize.py $R | tee $R/summary.md
