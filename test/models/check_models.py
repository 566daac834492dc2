#!/usr/bin/env python3
"""Checks Kiln's CPU evaluator against onnxruntime on the exported models in test/models/data/.

For every MODEL.onnx in the data folder (default: data/ beside this script)
with MODEL.inputs.npz and MODEL.ort.npz beside it (written by
make_models.py), runs `kiln-eval MODEL.onnx --inputs MODEL.inputs.npz` and
compares each output with onnxruntime's: np.allclose(kiln, ort, rtol=1e-4,
atol=1e-5), shape and dtype equal. It reports, per output, the max abs error
and that error relative to the reference's max magnitude. Symbolic input dims
are bound with --input-shape from the .npz arrays.

Exits 1 when any model mismatches or fails, and also when the folder holds no
model or a model lacks its .npz files: an empty suite must not pass.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

RTOL, ATOL = 1e-4, 1e-5
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def find_kiln_eval(explicit, kilnc):
    if explicit:
        return explicit
    if kilnc:
        cand = os.path.join(os.path.dirname(kilnc), "kiln-eval")
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which("kiln-eval")
    if found:
        return found
    cand = os.path.join(REPO, "build", "bin", "kiln-eval")
    return cand if os.access(cand, os.X_OK) else None


def shape_args(model_path, inputs):
    """--input-shape for every graph input whose type has a symbolic or missing dim."""
    m = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    args = []
    for vi in m.graph.input:
        if vi.name in inits or vi.name not in inputs:
            continue
        tt = vi.type.tensor_type
        static = tt.HasField("shape") and all(d.HasField("dim_value") for d in tt.shape.dim)
        if not static:
            dims = "x".join(str(d) for d in inputs[vi.name].shape)
            args += ["--input-shape", f"{vi.name}={dims}"]
    return args


def compare(name, got, want):
    """Returns (ok, one-line description)."""
    if got.shape != want.shape:
        return False, f"{name}: shape {got.shape} != ort {want.shape}"
    if got.dtype != want.dtype:
        return False, f"{name}: dtype {got.dtype} != ort {want.dtype}"
    if want.dtype.kind not in "fc":
        same = np.array_equal(got, want)
        return same, f"{name}: {'equal' if same else f'{int((got != want).sum())} elements differ'}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(w)):
        return False, f"{name}: NaN positions differ"
    ok = bool(np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True))
    finite = ~np.isnan(w)
    err = float(np.max(np.abs(g - w)[finite])) if finite.any() else 0.0
    mag = float(np.max(np.abs(w[finite]))) if finite.any() else 0.0
    rel = err / mag if mag > 0 else err
    return ok, f"{name}: max abs err {err:.3g}, relative to max |ort| {mag:.3g}: {rel:.3g}"


# --precision runs compare max|kiln - ort| / max|ort| per output against these.
# tf32 rounds only the matmul operands (10 explicit mantissa bits, as fp16's,
# but f32 range and f32 activations between the matmuls).
PRECISION_TOL = {"fp16": 1e-2, "bf16": 5e-2, "tf32": 1e-2}


def compare_scaled(name, got, want, tol):
    """For converted-precision runs: max |got - want| / max |want| <= tol."""
    if got.shape != want.shape:
        return False, f"{name}: shape {got.shape} != ort {want.shape}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.all(np.isfinite(g)):
        return False, f"{name}: non-finite values"
    mag = float(np.max(np.abs(w))) if w.size else 0.0
    rel = float(np.max(np.abs(g - w))) / mag if mag > 0 else 0.0
    return rel <= tol, f"{name}: max abs err / max |ort| {rel:.3g} (tolerance {tol:g})"


def check(model_path, kiln_eval, timeout, opt=0, precision="fp32"):
    """Returns (ok, lines) for one model."""
    base = model_path[:-len(".onnx")]
    inp, ref = base + ".inputs.npz", base + ".ort.npz"
    missing = [p for p in (inp, ref) if not os.path.isfile(p)]
    if missing:
        return False, ["missing " + ", ".join(os.path.basename(p) for p in missing)]
    with np.load(inp, allow_pickle=False) as z:
        inputs = {k: z[k] for k in z.files}
    with np.load(ref, allow_pickle=False) as z:
        want = {k: z[k] for k in z.files}
    if not want:
        return False, [f"{os.path.basename(ref)} holds no output"]
    with tempfile.TemporaryDirectory(prefix="kiln-models-") as tmp:
        out = os.path.join(tmp, "out.npz")
        cmd = [kiln_eval, model_path, "--inputs", inp, "--outputs", out, "-O", str(opt),
               "--precision", precision] + shape_args(model_path, inputs)
        t0 = time.monotonic()
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, [f"kiln-eval timed out after {timeout} s"]
        dt = time.monotonic() - t0
        if p.returncode != 0:
            err = p.stderr.decode("utf-8", "replace").strip().splitlines() or ["(no message)"]
            rc = p.returncode
            how = f"killed by signal {-rc}" if rc < 0 else f"exit {rc}"
            return False, [f"kiln-eval failed ({how}): {err[0]}"] + err[1:5]
        with np.load(out, allow_pickle=False) as z:
            got = {k: z[k] for k in z.files}
    ok, lines = True, [f"kiln-eval {dt:.1f} s"]
    for name, w in want.items():
        if name not in got:
            ok = False
            lines.append(f"{name}: missing from kiln-eval's outputs (has {sorted(got)})")
            continue
        if precision == "fp32":
            good, line = compare(name, got[name], w)
        else:
            good, line = compare_scaled(name, got[name], w, PRECISION_TOL[precision])
        ok &= good
        lines.append(("" if good else "MISMATCH ") + line)
    return ok, lines


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=os.path.join(HERE, "data"),
                   help="folder of MODEL.onnx + .inputs.npz + .ort.npz (default: %(default)s)")
    p.add_argument("--kiln-eval",
                   help="kiln-eval binary (default: beside --kilnc, PATH, build/bin)")
    p.add_argument("--kilnc", help="kilnc binary; kiln-eval is looked for beside it")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per model")
    p.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16", "tf32"],
                   help="kiln-eval --precision; fp16/bf16/tf32 compare max error / max |ort| "
                        "against PRECISION_TOL")
    p.add_argument("-O", dest="opt", type=int, default=0,
                   help="graph pipeline level kiln-eval runs first (2: with fusion regions)")
    a = p.parse_args()

    models = sorted(glob.glob(os.path.join(a.data, "*.onnx")))
    if not models:
        print(f"check_models: error: no *.onnx in '{a.data}': the model data is missing "
              f"(generate it with test/models/make_models.py on a machine with torch)",
              file=sys.stderr)
        return 1
    kiln_eval = find_kiln_eval(a.kiln_eval, a.kilnc)
    if not kiln_eval:
        print("check_models: error: kiln-eval not found (--kiln-eval, --kilnc, PATH, build/bin)",
              file=sys.stderr)
        return 1

    failed = []
    for path in models:
        name = os.path.basename(path)[:-len(".onnx")]
        ok, lines = check(path, kiln_eval, a.timeout, a.opt, a.precision)
        print(f"{'PASS' if ok else 'FAIL'} {name}")
        for line in lines:
            print(f"    {line}")
        if not ok:
            failed.append(name)
    print(f"models: {len(models) - len(failed)} passed, {len(failed)} failed "
          + (f"(rtol {RTOL:g}, atol {ATOL:g})" if a.precision == "fp32" else
             f"({a.precision}: max error / max |ort| <= {PRECISION_TOL[a.precision]:g})"))
    if failed:
        print(f"check_models: error: {', '.join(failed)} failed (kiln-eval error or mismatch "
              f"with onnxruntime)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
