#!/bin/sh
# Installs the Debian 12 packages vkml needs to build and test (as root, or
# with sudo available), then builds Debian 13's glslang and SPIR-V validator
# into deps/ once (tools/build-deps.sh: the KHR cooperative-matrix kernels).
# Safe to run again.
set -eu
PKGS="gcc g++ libc6-dev meson ninja-build pkg-config cmake libcriterion-dev
      protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata
      python3 python3-numpy python3-onnx python3-pytest
      libvulkan-dev libvulkan1 libvulkan-volk-dev glslang-dev libshaderc-dev spirv-tools
      mesa-vulkan-drivers vulkan-validationlayers libsqlite3-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends $missing
fi
"$(dirname "$0")/build-deps.sh"
