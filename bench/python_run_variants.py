#!/usr/bin/python3
"""Which part of Model.run differs from the C API's copying run: in one
process, every variant below run in turn, each iteration, N times; per
variant the median of its difference to the C API's run in the same
iteration (µs). Variants:
  model.run   Model.run(feeds)
  c_api       vkml_set_input + vkml_run + vkml_get_output (the reference)
  mm_run_copy memmove into vkml_input_memory + vkml_run + ndarray.copy of the output view
  mm_run_get  memmove in + vkml_run + vkml_get_output
  set_run_copy vkml_set_input + vkml_run + ndarray.copy of the output view
  bare        vkml_run alone
  locked      mm_run_copy under the Model's lock
  checked     Model.run's code inlined (lock, checks, memmove, run, copies)
  checked_copyto the same with numpy.copyto for the input (no ctypes pointer)
usage: python_run_variants.py MODEL.vkm [--runs N] [--wait block|spin|hybrid]"""
import ctypes
import statistics
import sys
import time

import numpy as np

import vkml


def main(argv):
    path, runs = argv[0], int(argv[argv.index('--runs') + 1]) if '--runs' in argv else 500
    wait = argv[argv.index('--wait') + 1] if '--wait' in argv else 'block'
    m = vkml.load(path, wait=wait)
    feeds = vkml.random_inputs(m)
    for _ in range(50):
        m.run(feeds)
    rt, inst, lib = m._rt, m._inst, vkml._lib
    codes = {d: k for k, d in enumerate(vkml._model._DTYPES)}
    ins = [(n.encode(), codes[a.dtype], a.ndim, (ctypes.c_int64 * a.ndim)(*a.shape), a.ctypes.data,
            m._in_ptrs[m._in_index[n]], a.nbytes) for n, a in feeds.items()]
    keep = [np.empty(t.shape, t.dtype) for t in m.outputs]  # alive while their addresses are used
    outs = [(t.name.encode(), a.ctypes.data, a.nbytes) for t, a in zip(m.outputs, keep)]
    views = m._out_views

    def c_set():
        for n, code, rank, dims, src, _, _ in ins:
            lib.check(rt.vkml_set_input(inst, n, code, rank, dims, src))

    def mm():
        for _, _, _, _, src, dst, nb in ins:
            ctypes.memmove(dst, src, nb)

    def run():
        lib.check(rt.vkml_run(inst))

    def get():
        for n, dst, nb in outs:
            lib.check(rt.vkml_get_output(inst, n, dst, nb))

    def copy():
        return [v.copy() for v in views]

    def locked():
        with m._lock:
            return (mm(), run(), copy())

    def checked():
        with m._lock:
            m._instance()
            for name, a in feeds.items():
                i = m._in_index.get(name)
                view = m._in_views[i]
                if a.dtype != view.dtype or a.shape != view.shape:
                    raise ValueError(name)
                if a.flags.c_contiguous and a.nbytes and m._in_ptrs[i]:
                    ctypes.memmove(m._in_ptrs[i], a.ctypes.data, a.nbytes)
            lib.check(m._rt.vkml_run(m._inst))
            return {n: v.copy() for n, v in zip(m._out_names, m._out_views)}

    def checked_copyto():
        with m._lock:
            if m._inst is None:
                m._instance()
            for name, a in feeds.items():
                i = m._in_index.get(name)
                view = m._in_views[i]
                if a.dtype != view.dtype or a.shape != view.shape:
                    raise ValueError(name)
                np.copyto(view, a, casting='no')
            st = m._rt.vkml_run(m._inst)
            if st:
                lib.check(st)
            return {n: v.copy() for n, v in zip(m._out_names, m._out_views)}

    variants = {
        'model.run': lambda: m.run(feeds),
        'locked': locked,
        'checked': checked,
        'checked_copyto': checked_copyto,
        'c_api': lambda: (c_set(), run(), get()),
        'mm_run_copy': lambda: (mm(), run(), copy()),
        'mm_run_get': lambda: (mm(), run(), get()),
        'set_run_copy': lambda: (c_set(), run(), copy()),
        'bare': run,
    }
    names = list(variants)
    t = {k: [] for k in names}
    for i in range(runs):
        order = names[i % len(names):] + names[:i % len(names)]  # rotate the order
        for k in order:
            t0 = time.perf_counter_ns()
            variants[k]()
            t[k].append(time.perf_counter_ns() - t0)
    ref = t['c_api']
    print(f"{path.rsplit('/', 1)[-1]} on {m.device}, wait {wait}, {runs} iterations (µs; minus c_api: the median "
          f"of the per-iteration differences):")
    for k in names:
        d = statistics.median(a - b for a, b in zip(t[k], ref)) / 1e3
        print(f"  {k:15s} median {statistics.median(t[k]) / 1e3:9.1f}   minus c_api {d:+8.1f}")
    m.close()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
