#!/bin/sh
# Sets up, builds and runs the bundled example model (a small CNN) on the
# input image that comes with it, printing the class probabilities, a latency
# benchmark and a per-op profile.
set -eu
cd "$(dirname "$0")/.."
tools/setup-debian.sh
[ -f build/build.ninja ] || meson setup build
meson compile -C build
EX=tests/models/tinycnn
build/tools/vkrun $EX/model.vkir --device cpu --input x=$EX/x.npy --bench 20 --profile
