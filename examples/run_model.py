#!/usr/bin/python3
"""run_model.py: the vkml Python package from an application's side, as
examples/run_model.c is the C API's. Loads a compiled artifact (vkc compile
MODEL -o model.vkm, or vkml.compile(...).save), runs it on the default
Vulkan device (or the CPU with --cpu), fills every input with a fixed
pattern, runs it and prints each output's first values; --runs N times N
more runs.

    python3 examples/run_model.py model.vkm [--cpu] [--runs N]

Installed (meson install), `import vkml` finds the package and its
libraries; from the build tree:
    VKML_LIB_DIR=build PYTHONPATH=python python3 examples/run_model.py model.vkm"""
import sys

import numpy as np

import vkml


def pattern(t):
    """Element i as sin(0.1 i) in the input's dtype (integers: 10 sin)."""
    v = np.sin(0.1 * np.arange(int(np.prod(t.shape)), dtype=np.float64)).reshape(t.shape)
    if t.dtype.kind == 'f':
        return v.astype(t.dtype)
    if t.dtype in (np.int32, np.int64):
        return (10 * v).astype(t.dtype)  # truncated toward zero, as the C example's cast
    return np.zeros(t.shape, t.dtype)


def main(argv):
    path, device, runs = None, None, 0
    args = iter(argv)
    for a in args:
        if a == '--cpu':
            device = 'cpu'
        elif a == '--runs':
            runs = int(next(args, '0'))
        elif path is None and not a.startswith('-'):
            path = a
        else:
            path = None
            break
    if path is None:
        print('usage: run_model.py MODEL.vkm [--cpu] [--runs N]', file=sys.stderr)
        return 2
    try:
        m = vkml.load(path, device=device)
        print('vkml %s on %s' % (vkml.version(), m.device))
        feeds = {t.name: pattern(t) for t in m.inputs}
        out = m.run(feeds)
        for name, y in out.items():
            line = 'output %s: [%s]' % (name, ','.join(str(d) for d in y.shape))
            if y.dtype != np.float32:
                print('%s (%d bytes)' % (line, y.nbytes))
                continue
            f = y.ravel()
            vals = ''.join(' %.6g' % v for v in f[:8])
            print('%s%s%s  argmax %d' % (line, vals, ' ...' if f.size > 8 else '',
                                         int(np.argmax(f)) if f.size else 0))
        if runs > 0:
            b = m.bench(runs, warmup=0, inputs=feeds)  # whole runs, copies included
            print('%d runs: best %.3f ms, mean %.3f ms' % (runs, b.min_ms, b.mean_ms))
        mem = m.memory()
        print('memory: weights %d B (shared by %d), instance %d B, staging %d B%s' % (
            mem['weights_bytes'], mem['weights_users'], mem['instance_bytes'],
            mem['staging_bytes'], ', one submission per run' if mem['lean'] else ''))
    except vkml.Error as e:
        print('run_model: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
