#!/usr/bin/env python3
"""The CPU kernels' conv2d against onnxruntime's CPU provider on the same
shapes (ResNet-50's, batch 1, from vkml-cpu-conv). Runs vkml-cpu-conv
--json, then, where onnxruntime imports, times a one-node Conv+Relu model
of each shape (bias, pads k//2) with the same thread count; prints a
markdown table: ms and GFLOP/s of each, and vkml's speed as a fraction of
onnxruntime's (the goal of issue 33 item 7 is >= 0.5x).

usage: cpu_conv_peers.py [--bin build/bench/vkml-cpu-conv] [--threads N]
                         [--runs R] [--ref]

Needs numpy and onnx; without onnxruntime the table has vkml's columns only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def ort_time(shape, threads, runs):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    c, h, m, k, s = shape['c'], shape['h'], shape['m'], shape['k'], shape['s']
    p = k // 2
    rng = np.random.default_rng(1)
    w = rng.uniform(-1, 1, (m, c, k, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (m,)).astype(np.float32)
    o = (h + 2 * p - k) // s + 1
    graph = helper.make_graph(
        [helper.make_node('Conv', ['x', 'w', 'b'], ['t'], kernel_shape=[k, k], strides=[s, s],
                          pads=[p, p, p, p]),
         helper.make_node('Relu', ['t'], ['y'])],
        'conv',
        [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, c, h, h])],
        [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, m, o, o])],
        [helper.make_tensor('w', TensorProto.FLOAT, w.shape, w.tobytes(), raw=True),
         helper.make_tensor('b', TensorProto.FLOAT, b.shape, b.tobytes(), raw=True)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 17)])
    model.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=['CPUExecutionProvider'])
    x = rng.uniform(-1, 1, (1, c, h, h)).astype(np.float32)
    sess.run(None, {'x': x})
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, {'x': x})
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin', default=os.path.join('build', 'bench', 'vkml-cpu-conv'))
    ap.add_argument('--threads', type=int, default=os.cpu_count())
    ap.add_argument('--runs', type=int, default=20)
    ap.add_argument('--ref', action='store_true', help='also time the reference loops (slow)')
    a = ap.parse_args()
    cmd = [a.bin, '--json', '--threads', str(a.threads), '--runs', str(a.runs)]
    if not a.ref:
        cmd.append('--no-ref')
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    try:
        import onnxruntime as ort
        have_ort = True
        ort_version = ort.__version__
    except ImportError:
        have_ort = False
        ort_version = None
    threads = res['threads']
    print('threads: %d; runs: %d (median); onnxruntime: %s' %
          (threads, res['runs'], ort_version or 'not installed'))
    print()
    head = '| conv | GFLOP | ref ms | vkml 1T ms | vkml %dT ms | vkml %dT GFLOP/s |' % (threads, threads)
    if have_ort:
        head += ' ort %dT ms | ort GFLOP/s | vkml / ort speed |' % threads
    print(head)
    print('|' + '---|' * (head.count('|') - 1))
    ratios = []
    for s in res['shapes']:
        row = '| %s | %.3f | %s | %.2f | %.2f | %.1f |' % (
            s['conv'], s['gflop'], '%.1f' % s['ref_ms'] if s['ref_ms'] >= 0 else '-',
            s['fast1_ms'], s['fastN_ms'], s['gflop'] / s['fastN_ms'] * 1e3)
        if have_ort:
            ms = ort_time(s, threads, a.runs)
            ratios.append(ms / s['fastN_ms'])
            row += ' %.2f | %.1f | %.2fx |' % (ms, s['gflop'] / ms * 1e3, ms / s['fastN_ms'])
        print(row)
    if ratios:
        print()
        print('geometric mean of vkml / ort speed: %.2fx; worst %.2fx' %
              (statistics.geometric_mean(ratios), min(ratios)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
