#!/usr/bin/python3
"""The Python package's per-run overhead over the C API: Model.run (inputs
copied into the instance's memory, vkml_run, outputs copied out) against
vkml-instances' C loop with the same copies (vkml_set_input, vkml_run,
vkml_get_output: "api_copies"), on the default Vulkan device and on the
CPU. Rounds alternate C and Python so that drift hits both; prints the
medians of each round's median and their difference, as JSON lines.

    VKML_LIB_DIR=build PYTHONPATH=python /usr/bin/python3 bench/python_overhead.py \\
        build/bench/vkml-instances [MODEL.vkm ...] [--runs R] [--rounds K] [--cpu-only | --gpu-only]

Without models it makes three here (needs a Vulkan device to compile for):
tinycnn; a relu on f32[1,16] (the run costs next to nothing: what is left is
the API's own cost); a global average pool over ResNet-50's input,
f32[1,3,224,224] (ResNet-50's input copy)."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np

import vkml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
RELU = '''vkir 1
graph @relu16(%x: f32[1,16]) -> (%y: f32[1,16]) {
  %y = relu %x : f32[1,16]
  return %y
}
'''
POOL = '''vkir 1
graph @pool224(%x: f32[1,3,224,224]) -> (%y: f32[1,3,1,1]) {
  %y = global_avg_pool %x : f32[1,3,1,1]
  return %y
}
'''


def models(tmp):
    out = []
    for name, src in (('tinycnn', os.path.join(ROOT, 'tests/models/tinycnn/model.vkir')),
                      ('relu16', RELU), ('pool224', POOL)):
        if not src.endswith('.vkir'):
            path = os.path.join(tmp, name + '.vkir')
            with open(path, 'w') as f:
                f.write(src)
            src = path
        vkm = os.path.join(tmp, name + '.vkm')
        vkml.compile(src).save(vkm)
        out.append(vkm)
    return out


def c_median(instances, vkm, runs, cpu):
    cmd = [instances, vkm, '--instances', '1', '--runs', str(runs), '--warmup', str(runs // 10)]
    r = subprocess.run(cmd + (['--cpu'] if cpu else []), check=True, capture_output=True,
                       text=True)
    return json.loads(r.stdout)['api_copies']['median_ms']


def main(argv):
    runs, rounds, cpu_only, gpu_only, paths, instances = 2000, 5, False, False, [], None
    args = iter(argv)
    for a in args:
        if a == '--runs':
            runs = int(next(args))
        elif a == '--rounds':
            rounds = int(next(args))
        elif a == '--cpu-only':
            cpu_only = True
        elif a == '--gpu-only':  # large models: the CPU reference kernels take seconds a run
            gpu_only = True
        elif instances is None:
            instances = a
        else:
            paths.append(a)
    if instances is None:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        for vkm in paths or models(tmp):
            for device in (['cpu'] if cpu_only else [None] if gpu_only else [None, 'cpu']):
                m = vkml.load(vkm, device=device)
                feeds = vkml.random_inputs(m)
                c, py = [], []
                for _ in range(rounds):
                    c.append(c_median(instances, vkm, runs, device == 'cpu'))
                    py.append(m.bench(runs, warmup=runs // 10, inputs=feeds).median_ms)
                cm, pm = statistics.median(c), statistics.median(py)
                paired = statistics.median(b - a for a, b in zip(c, py))
                print(json.dumps({
                    'model': os.path.basename(vkm), 'device': m.device, 'runs': runs,
                    'rounds': rounds, 'input_bytes': sum(a.nbytes for a in feeds.values()),
                    'c_median_ms': round(cm, 4), 'python_median_ms': round(pm, 4),
                    'overhead_ms': round(pm - cm, 4),
                    # each round's Python median minus the C median just before it
                    'paired_overhead_ms': round(paired, 4),
                    'c_rounds_ms': [round(v, 4) for v in c],
                    'python_rounds_ms': [round(v, 4) for v in py]}), flush=True)
                m.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
