#!/usr/bin/env python3
"""Builds GPU check bundles for the models of gpu_models.py.

Usage: make_bundles.py --build <build dir> --out <dir> [names...]
Runs mkonnx.py, `kilnc --emit=graph --keep-weights` and `kiln-cgc --bundle`
for each model (the timing models without reference data); the bundles go to
<dir>/<name>/.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
from gpu_models import MODELS, PERF_MODELS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    failed = []
    models = [(n, d, False) for n, d in MODELS] + [(n, d, True) for n, d, _ in PERF_MODELS]
    for name, desc, perf in models:
        if args.names and name not in args.names:
            continue
        d = os.path.join(args.out, name)
        os.makedirs(d, exist_ok=True)
        onnx = os.path.join(d, "model.onnx")
        mlir = os.path.join(d, "model.mlir")
        steps = [
            [sys.executable, os.path.join(ROOT, "test", "tools", "mkonnx.py"), "-o", onnx, desc],
            [os.path.join(bindir, "kilnc"), onnx, "--emit=graph", "--keep-weights", "-o", mlir],
            [os.path.join(bindir, "kiln-cgc"), mlir, "--bundle=" + d, "-o",
             os.path.join(d, "summary.txt")] + (["--no-reference"] if perf else []),
        ]
        for cmd in steps:
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: {' '.join(cmd[:2])}\n{r.stdout}{r.stderr}")
                failed.append(name)
                break
        else:
            print(f"ok {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
