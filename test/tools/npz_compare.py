#!/usr/bin/env python3
"""Compares two .npz files output by output: max|got - ref| / max|ref| must be
at most --tol. Prints one line per output and exits 1 on a mismatch.

  npz_compare.py GOT.npz REF.npz --tol 1e-2"""
import argparse
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("got")
    p.add_argument("ref")
    p.add_argument("--tol", type=float, required=True)
    a = p.parse_args()
    got, ref = np.load(a.got), np.load(a.ref)
    bad = 0
    for k in ref.files:
        r = ref[k].astype(np.float64)
        g = got[k].astype(np.float64) if k in got.files else None
        if g is None or g.shape != r.shape:
            print(f"FAIL {k}: missing or of another shape")
            bad += 1
            continue
        rel = float(np.max(np.abs(g - r))) / max(float(np.max(np.abs(r))), 1e-30)
        ok = rel <= a.tol and np.isfinite(g).all()
        bad += not ok
        print(f"{'PASS' if ok else 'FAIL'} {k}: max error / max |ref| {rel:.2g} (tolerance {a.tol:g})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
