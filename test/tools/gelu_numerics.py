#!/usr/bin/env python3
"""Checks the GELU forms of compiler/kernels/common/common.cuh on the
CPU: reads op::gelu's half_erfc_abs polynomial and op::gelu_tanh's constants
out of the header, evaluates them step by step in float32 (numpy, the
special-function-unit reciprocal and exponential taken as correctly rounded)
and compares with float64 references (x Phi(x) from math.erfc; x / (1 +
exp(-2u)) for the tanh form), so a wrong coefficient or a changed formula
fails here before any GPU run.

Usage: gelu_numerics.py COMMON_CUH  -> prints one line per form, exits 1 on
a bound missed."""
import math
import re
import sys

import numpy as np

f = np.float32


def body(src, name):
    m = re.search(r"float " + name + r"\(float [a-z]\) \{(.*?)\n\}", src, re.S)
    if not m:
        sys.exit(f"gelu_numerics: no '{name}(float)' in the header")
    return m.group(1)


def floats(text):
    return [float(x.rstrip("f")) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?f", text)]


def main():
    src = open(sys.argv[1]).read()
    erfc_consts = floats(body(src, "half_erfc_abs"))
    # 0.5 / sqrt(2) and 1 (t's fma), the polynomial's coefficients (log2(e)
    # folded in, highest degree first), -log2(e) / 2 (a^2's factor).
    if (len(erfc_consts) < 8 or abs(erfc_consts[0] - 0.5 / math.sqrt(2)) > 1e-9 or erfc_consts[1] != 1.0
            or abs(erfc_consts[-1] + math.log2(math.e) / 2) > 1e-9):
        sys.exit(f"gelu_numerics: half_erfc_abs's constants changed shape: {erfc_consts}")
    poly, sq = erfc_consts[2:-1], erfc_consts[-1]
    tanh_consts = floats(body(src, "gelu_tanh"))  # sqrt(2/pi), 0.044715, -2 log2(e), 1
    rng = np.random.default_rng(0)
    x = np.concatenate([np.linspace(-12, 12, 400001, dtype=f),
                        (rng.standard_normal(400000) * 3).astype(f)])

    def half_erfc32(a):
        t = (f(1) / (f(erfc_consts[0]) * a + f(1))).astype(f)
        p = np.full_like(a, f(poly[0]))
        for c in poly[1:]:
            p = (p * t + f(c)).astype(f)
        q = (a * a).astype(f)
        # fma: the f32 product is exact in f64, one rounding to f32 after.
        p = (q.astype(np.float64) * np.float64(f(sq)) + p.astype(np.float64)).astype(f)
        return (t * np.exp2(p)).astype(f)

    def gelu32(x):
        h = half_erfc32(np.abs(x).astype(f))
        return (x * np.where(x >= 0, f(1) - h, h)).astype(f)

    def gelu_tanh32(x):
        s, c3, m2l, _one = (f(v) for v in tanh_consts)
        u = (s * ((c3 * x) * (x * x) + x)).astype(f)
        with np.errstate(over="ignore"):
            e = np.exp2((u * m2l).astype(f)).astype(f)
        return (x * (f(1) / (f(1) + e))).astype(f)

    xd = x.astype(np.float64)
    ref = np.array([0.5 * v * math.erfc(-v / math.sqrt(2.0)) for v in xd])
    u = math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3)
    with np.errstate(over="ignore"):
        ref_t = xd / (1 + np.exp(-2 * u))
    ok = True
    for name, got, want in (("gelu", gelu32(x), ref), ("gelu_tanh", gelu_tanh32(x), ref_t)):
        big = np.abs(want) > 1e-30
        rel = np.abs(got.astype(np.float64) - want)[big] / np.abs(want[big])
        near = np.abs(xd[big]) < 5
        f16 = np.mean(got.astype(np.float16) != want.astype(np.float16))
        bounds = rel[near].max() < 1e-5 and rel.max() < 1e-4 and f16 < 1e-3
        ok &= bounds
        print(f"{name}: max rel error {rel[near].max():.2e} (|x| < 5), {rel.max():.2e} (all), "
              f"fp16 roundings that differ {f16:.2e}: {'ok' if bounds else 'FAIL'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
