"""CUDA-event timing for the peers of the device scripts: fn() bracketed by
CUDA events, median of `runs` after `warmup` calls, in ms."""
import statistics

import torch


def cuda_ms(fn, warmup=5, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)
