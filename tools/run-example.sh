#!/bin/sh
# Sets up, builds and runs the bundled examples on the default Vulkan device
# (a GPU, or lavapipe on a machine without one):
#  1. a small CNN in vkml's own text form (tests/models/tinycnn): class
#     probabilities, latency benchmark, per-op profile;
#  2. torchvision's SqueezeNet 1.1 exported to ONNX with dynamic dims
#     (tests/models/real): compiled with a fixed input shape into a .vkm
#     artifact (vkc compile), run from it by vkrun (which links only the
#     runtime), and its output compared with onnxruntime's on the same input;
#  3. vkml installed (meson install, under /usr/local), then the same model
#     through the Python package (`import vkml`) in a fresh environment.
set -eu
cd "$(dirname "$0")/.."
tools/setup-debian.sh
[ -f build/build.ninja ] || meson setup build
meson compile -C build
EX=tests/models/tinycnn
echo "== tinycnn (.vkir) =="
build/tools/vkc run $EX/model.vkir --input x=$EX/x.npy --bench 20 --profile
R=tests/models/real
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "== SqueezeNet 1.1 (ONNX, dynamic dims fixed to 1x3x224x224): vkc compile, vkrun =="
build/tools/vkc compile $R/squeezenet1_1_op11.onnx --input-shape input=1,3,224,224 \
  -o "$OUT/squeezenet.vkm"
build/tools/vkrun "$OUT/squeezenet.vkm" --input input=$R/squeezenet1_1_op11.input.npy \
  --bench 5 --output "$OUT"
/usr/bin/python3 - "$OUT/output.npy" "$R/squeezenet1_1_op11.ort.npy" <<'PY'
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
print("top-5 classes (vkml):       ", list(np.argsort(-got[0])[:5]))
print("top-5 classes (onnxruntime):", list(np.argsort(-want[0])[:5]))
print("max |vkml - onnxruntime| = %.3g (outputs up to %.3g)" % (np.abs(got - want).max(), np.abs(want).max()))
PY
echo "== installed (meson install), then Python in a fresh environment: import vkml =="
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO meson install -C build --no-rebuild --quiet
$SUDO ldconfig
# a new shell's environment: HOME and PATH, and the caller's cache and
# Vulkan device choices if any
set -- HOME="$HOME" PATH=/usr/local/bin:/usr/bin:/bin
for v in XDG_CACHE_HOME VKML_DEVICE VK_DRIVER_FILES VK_ICD_FILENAMES; do
  eval "val=\${$v:-}"
  [ -z "$val" ] || set -- "$@" "$v=$val"
done
cd /
env -i "$@" python3 - "$OLDPWD/$R" <<'PY'
import sys, numpy as np, vkml
r = sys.argv[1]
m = vkml.compile(f"{r}/squeezenet1_1_op11.onnx", input_shapes={"input": (1, 3, 224, 224)})
got = m.run({"input": np.load(f"{r}/squeezenet1_1_op11.input.npy")})["output"]
want = np.load(f"{r}/squeezenet1_1_op11.ort.npy")
print(f"import vkml from {vkml.__file__} on {m.device}")
print("top-5 classes (vkml, Python):", list(np.argsort(-got[0])[:5]))
print("max |vkml - onnxruntime| = %.3g (outputs up to %.3g)" % (np.abs(got - want).max(), np.abs(want).max()))
PY
