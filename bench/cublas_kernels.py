#!/usr/bin/env python3
"""Names the cuBLAS kernels PyTorch runs for the zoo's GEMMs (bench/micro.py
GEMMS), with their GPU times: which tile, cluster and schedule the library
chose is what Kiln's own kernel is measured against.

Usage (GPU machine): python3 bench/cublas_kernels.py [--dtype fp16|bf16]
  [--out FILE.md]
Prints one row per (shape, kernel): the kernel's name as the profiler reports
it and its median device time over --runs calls (CUDA events around a graph
replay of one call, so no launch latency), on fresh random inputs.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from micro import GEMMS  # noqa: E402


def kernel_names(fn):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    names = []
    for ev in prof.events():
        if ev.device_type == torch.autograd.DeviceType.CUDA and ev.name not in names:
            names.append(ev.name)
    return names


def graph_median_ms(fn, runs, warmup):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(warmup):
        g.replay()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    dt = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    torch.manual_seed(0)
    rows = ["| shape | M x K x N | variant | ms | TFLOP/s | kernels |", "|---|---|---|---|---|---|"]
    for label, m, k, n in GEMMS:
        x = torch.randn(m, k, device="cuda", dtype=dt)
        w = torch.randn(k, n, device="cuda", dtype=dt) / k ** 0.5
        bias = torch.randn(n, device="cuda", dtype=dt)
        out = torch.empty(m, n, device="cuda", dtype=dt)
        variants = [("x@w", lambda: torch.matmul(x, w, out=out)),
                    ("addmm", lambda: torch.addmm(bias, x, w, out=out))]
        for name, fn in variants:
            ms = graph_median_ms(fn, args.runs, args.warmup)
            tflops = 2.0 * m * k * n / (ms * 1e-3) / 1e12
            ks = "; ".join(kernel_names(fn))
            rows.append(f"| {label} | {m}x{k}x{n} | {name} | {ms:.4f} | {tflops:.0f} | {ks} |")
            print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, {args.dtype}\n\n" + text)


if __name__ == "__main__":
    main()
