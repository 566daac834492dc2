#!/usr/bin/env python3
"""Compiles every committed model in test/models/data/ to an engine with kilnc
(shapes from its .inputs.npz), so CI shows that their kernels go through NVRTC
for sm_90 without a GPU. Prints one line per model and exits 1 on a failure
or when there is no model."""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--kilnc", required=True)
    p.add_argument("--data", default=os.path.join(HERE, "data"))
    a = p.parse_args()
    models = sorted(glob.glob(os.path.join(a.data, "*.onnx")))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            base = m[:-len(".onnx")]
            with np.load(base + ".inputs.npz") as z:
                spec = ",".join(f"{k}={'x'.join(map(str, z[k].shape))}" for k in z.files)
            engine = os.path.join(tmp, os.path.basename(base) + ".engine")
            r = subprocess.run([a.kilnc, m, "--input-shape", spec, "-o", engine, "-v"],
                               capture_output=True, text=True)
            line = [l for l in r.stderr.splitlines() if "wrote" in l]
            if r.returncode or not os.path.exists(engine):
                failed += 1
                print(f"FAIL {os.path.basename(m)}: {r.stderr.strip().splitlines()[-1:]}")
            else:
                print(f"OK {os.path.basename(m)}: {line[-1].split(': ', 2)[-1] if line else ''}")
    print(f"compile_models: {len(models) - failed} passed, {failed} failed")
    return 1 if failed or not models else 0


if __name__ == "__main__":
    sys.exit(main())
