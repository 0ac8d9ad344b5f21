#!/usr/bin/python3
"""Where Model.run's time goes, in one process: for each model, rounds of
R runs each of (alternating, medians in µs)
  run      Model.run (checks, inputs copied in, vkml_run, outputs copied out)
  vkml_run the bare foreign call on the same instance (inputs as last written)
  in       the input copies alone (numpy.copyto into vkml_input_memory)
  in_memmove the same by ctypes.memmove (what Model.run does for
           C-contiguous arrays)
  out      the output copies alone (ndarray.copy of vkml_output_memory)
  c_api    the C API's own copying run: vkml_set_input, vkml_run,
           vkml_get_output (one foreign call each, as a C program makes them)
so that run - c_api is what the package adds over a C program's run with
its copies (also measured interleaved: each Model.run next to a C API run,
the order alternating, the median of the pairs' differences), run - vkml_run what it adds over the bare call, and in/out how
much of that is copying into and out of the instance's memory (on a GPU,
host-visible memory the driver maps; freshly written input also delays the
GPU's start while the writes drain). Prints JSON lines.

    VKML_LIB_DIR=build PYTHONPATH=python python3 bench/python_run_parts.py MODEL.vkm... \\
        [--runs R] [--rounds K] [--device cpu]"""
import ctypes
import json
import statistics
import sys
import time

import numpy as np

import vkml


def timed(fn, runs):
    t = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        t.append(time.perf_counter_ns() - t0)
    return statistics.median(t) / 1e3


def main(argv):
    runs, rounds, device, paths = 1000, 7, None, []
    args = iter(argv)
    for a in args:
        if a == '--runs':
            runs = int(next(args))
        elif a == '--rounds':
            rounds = int(next(args))
        elif a == '--device':
            device = next(args)
        else:
            paths.append(a)
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        m = vkml.load(path, device=device)
        feeds = vkml.random_inputs(m)
        for _ in range(max(runs // 10, 10)):
            m.run(feeds)
        rt, inst = m._rt, m._inst
        ins = [(m._in_views[m._in_index[n]], a) for n, a in feeds.items()]
        outs = m._out_views

        def bare():
            vkml._lib.check(rt.vkml_run(inst))

        def copy_in():
            for v, a in ins:
                np.copyto(v, a, casting='no')

        in_ptrs = [(m._in_ptrs[m._in_index[n]], a.ctypes.data, a.nbytes) for n, a in feeds.items()]

        def copy_in_memmove():
            for d, src, nb in in_ptrs:
                ctypes.memmove(d, src, nb)

        def copy_out():
            return [v.copy() for v in outs]

        lib = vkml._lib
        c_in = []
        for name, a in feeds.items():
            dims = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
            code = next(k for k, d in enumerate(vkml._model._DTYPES) if d == a.dtype)
            c_in.append((name.encode(), code, a.ndim, dims, a.ctypes.data))
        c_out = [(t.name.encode(), np.empty(t.shape, t.dtype)) for t in m.outputs]
        c_out = [(n, a, a.ctypes.data, a.nbytes) for n, a in c_out]

        def c_api():
            for name, code, rank, dims, ptr in c_in:
                lib.check(rt.vkml_set_input(inst, name, code, rank, dims, ptr))
            lib.check(rt.vkml_run(inst))
            for name, _, ptr, n in c_out:
                lib.check(rt.vkml_get_output(inst, name, ptr, n))

        parts = {'run': [], 'c_api': [], 'vkml_run': [], 'in': [], 'in_memmove': [], 'out': []}
        for _ in range(rounds):
            parts['run'].append(timed(lambda: m.run(feeds), runs))
            parts['c_api'].append(timed(c_api, runs))
            parts['vkml_run'].append(timed(bare, runs))
            parts['in'].append(timed(copy_in, runs))
            parts['in_memmove'].append(timed(copy_in_memmove, runs))
            parts['out'].append(timed(copy_out, runs))
        # interleaved: each Model.run paired with a C API run next to it
        # (the order alternating), so that drift of the device's clocks
        # between rounds cancels
        diffs = []
        for i in range(2 * runs):
            first, second = (lambda: m.run(feeds), c_api) if i % 2 == 0 else (c_api, lambda: m.run(feeds))
            t0 = time.perf_counter_ns()
            first()
            t1 = time.perf_counter_ns()
            second()
            t2 = time.perf_counter_ns()
            d = (t1 - t0) - (t2 - t1)
            diffs.append(d if i % 2 == 0 else -d)
        interleaved = statistics.median(diffs) / 1e3
        med = {k: round(statistics.median(v), 2) for k, v in parts.items()}
        added = statistics.median(a - b for a, b in zip(parts['run'], parts['vkml_run']))
        over_c = statistics.median(a - b for a, b in zip(parts['run'], parts['c_api']))
        print(json.dumps({'model': path.rsplit('/', 1)[-1], 'device': m.device, 'runs': runs,
                          'rounds': rounds, 'median_us': med,
                          'run_minus_vkml_run_us': round(added, 2),
                          'run_minus_c_api_us': round(over_c, 2),
                          'run_minus_c_api_interleaved_us': round(interleaved, 2),
                          'input_bytes': sum(a.nbytes for a in feeds.values()),
                          'output_bytes': sum(v.nbytes for v in outs),
                          'rounds_us': {k: [round(x, 2) for x in v] for k, v in parts.items()}}),
              flush=True)
        m.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
