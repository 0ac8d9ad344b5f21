# Sourced by the device-machine scripts: the Vulkan loader from .gl (the
# machine has none), NVIDIA's ICD, the staged runtime libraries; B = the
# staged binaries, R = $OUT (comes back); XDG_CACHE_HOME under /tmp; the
# device line (name, driver, max SM clock) into $R/device.txt.
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$PWD/.bench-bin
B=.bench-bin
R=$OUT
export XDG_CACHE_HOME=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt
