# Sourced by the device-machine scripts: the Vulkan loader from .gl (the
# machine has none), NVIDIA's ICD, the staged runtime libraries; B = the
# staged binaries, R = $OUT (comes back); XDG_CACHE_HOME under /tmp; the
# device line (name, driver, max SM clock) into $R/device.txt; and four
# functions for the old-vs-new scripts: old_new_runs (whole runs), profiles
# (per-op profiles), rungs_into (paired schedule points), sweep (one
# vkml-sweep).
for f in .gl/*.deb; do dpkg -x "$f" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export LD_LIBRARY_PATH=$PWD/.bench-bin/extra-libs:$PWD/.bench-bin
B=.bench-bin
R=$OUT
export XDG_CACHE_HOME=/tmp/c
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $R/device.txt

# old_new_runs WORKDIR "VKC ARGS" MODEL...: each exported model
# (WORKDIR/m/MODEL.onnx, torchvision_peer.py export) compiled by this build
# ($B/tools/vkc, "new") and the previous one ($B/old/vkc, "old") with the
# given arguments, then run alternately, two reps of vkrun --bench 50 (the
# old build's vkrun where $B/old has one): WORKDIR/MODEL.{new,old}.{1,2}.txt
# and MODEL.{new,old}.out/, what old_new_summary.py reads.
old_new_runs() {
  local w=$1 args=$2 m v rep t
  shift 2
  for m in "$@"; do
    [ -f $w/m/$m.onnx ] || { echo "$m: not exported"; continue; }
    for v in new old; do
      t=$B/tools; [ $v = old ] && t=$B/old
      $t/vkc compile $w/m/$m.onnx $args -o $w/$m.$v.vkm 2>$w/$m.$v.cerr ||
        echo "$m $v: compile failed: $(head -c 300 $w/$m.$v.cerr)"
    done
    for rep in 1 2; do
      for v in new old; do
        t=$B/tools; [ $v = old ] && [ -x $B/old/vkrun ] && t=$B/old
        $t/vkrun $w/$m.$v.vkm --input input=$w/m/$m.input.npy --bench 50 --warmup 5 \
          --warmup-ms 300 --output $w/$m.$v.out >$w/$m.$v.$rep.txt 2>&1 || echo "$m $v: run failed"
      done
    done
  done
}

# profiles WORKDIR "VARIANTS" MODEL...: vkrun --profile (30 runs) of each
# WORKDIR/MODEL.VARIANT.vkm there is, into MODEL.VARIANT.prof.txt.
profiles() {
  local w=$1 vs=$2 m v
  shift 2
  for m in "$@"; do
    for v in $vs; do
      [ -f $w/$m.$v.vkm ] || continue
      $B/tools/vkrun $w/$m.$v.vkm --profile --bench 30 --warmup 5 >$w/$m.$v.prof.txt 2>&1
    done
  done
}

# rungs_into DIR SET TEMPLATE "POINTS": run_coop_rungs.sh (10 runs per
# pair) on gen_kernel_models.py's SET, its table into DIR.md, its
# per-point files into DIR.
rungs_into() {
  mkdir -p $(dirname $1)/r
  SET=$2 TEMPLATE=$3 RUNS=10 RUNGS="$4" OUT=$(dirname $1)/r bash bench/run_coop_rungs.sh >$1.md 2>&1
  mv /tmp/rr $1
}

# sweep NAME SECONDS ARG...: vkml-sweep (10 runs per pair) of the model
# $W/k/MODEL.vkir, MODEL being NAME up to its first dot (NAME = MODEL.old
# sweeps MODEL again under another name), stopped after SECONDS; its table,
# JSON and errors into $W/sweep.NAME.{txt,json,err}.
sweep() {
  local n=$1 s=$2
  shift 2
  timeout $s $B/bench/vkml-sweep $W/k/${n%%.*}.vkir --runs 10 --json-file $W/sweep.$n.json "$@" \
    >$W/sweep.$n.txt 2>$W/sweep.$n.err || echo "sweep $n: rc $?"
}
