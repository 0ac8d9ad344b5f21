#!/bin/sh
# Builds release binaries for the device machine and stages what it needs in
# .bench-bin (carried to the device by the `run` tool, with .gl and
# .bench-data). The device has a newer glibc, so binaries built here run there.
set -eu
cd "$(dirname "$0")/.."
[ -f build-release/build.ninja ] || meson setup build-release -Dbuildtype=release
ninja -C build-release tools/vkc tools/vkrun tools/vktune tools/vkdb tests/onnx_conformance \
  tests/test_vk_conv_coopmat tests/test_vk_conv tests/test_vk_gemm tests/test_vk_reduce tests/test_vk_split_k tests/test_ops \
  bench/vkml-sweep bench/vkml-sa-replay bench/vkml-instances bench/vkml-peaks \
  libvkml_runtime.so.0.1.0 libvkml_compiler.so.0.1.0
rm -rf .bench-bin && mkdir -p .bench-bin/tools .bench-bin/tests .bench-bin/bench .bench-bin/extra-libs
cp build-release/tools/vkc build-release/tools/vkrun build-release/tools/vktune \
  build-release/tools/vkdb .bench-bin/tools/
cp build-release/tests/onnx_conformance build-release/tests/test_vk_conv_coopmat \
  build-release/tests/test_vk_conv build-release/tests/test_vk_gemm build-release/tests/test_vk_reduce \
  build-release/tests/test_vk_split_k build-release/tests/test_ops \
  .bench-bin/tests/
cp build-release/bench/vkml-sweep build-release/bench/vkml-sa-replay \
  build-release/bench/vkml-instances build-release/bench/vkml-peaks .bench-bin/bench/
cp -L build-release/libvkml_runtime.so.0 build-release/libvkml_compiler.so.0 .bench-bin/
cp -L /usr/lib/x86_64-linux-gnu/libprotobuf-c.so.1 /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 .bench-bin/extra-libs/
# the device test (criterion) takes its libraries along, apart from the C/C++
# runtime (newer there): LD_LIBRARY_PATH=.bench-bin/test-libs for it only
mkdir -p .bench-bin/test-libs
ldd build-release/tests/test_vk_conv_coopmat | awk '$3 ~ /^\// {print $3}' |
  grep -v -e libvkml_ -e '/libc\.so' -e '/libm\.so' -e libstdc++ -e libgcc_s |
  xargs -I{} cp -L {} .bench-bin/test-libs/
mkdir -p .bench-data
[ -f .bench-data/node.tar.xz ] || tar -C /usr/share/libonnx-testdata/data -cJf .bench-data/node.tar.xz node
du -sh .bench-bin .bench-data
