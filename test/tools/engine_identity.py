#!/usr/bin/env python3
"""Checks that a kilnc builds the same engines as a reference kilnc.

`record` compiles every model of the set with one kilnc and stores each
engine (or, where the compile fails, its first error line) in a folder;
`compare` compiles the same set with another kilnc and compares byte for
byte. A refactor of the compiler must leave every engine identical.

The set: examples/models/*.onnx and test/models/data/*.onnx (shapes from
their .inputs.npz; at fp32 and --precision=fp16), and every ONNX backend
node test (its shape operands frozen as test/conformance/node_suite.py does).
kilnc runs with argv[0] = "kilnc" and the same paths for both binaries, so
the compile flags the engine records match too; `compare` writes its engines
over the reference ones (index.json keeps the reference digests).

  engine_identity.py record  --kilnc OLD/kilnc --dir REF
  engine_identity.py compare --kilnc NEW/kilnc --dir REF
"""

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "conformance"))
import node_suite  # noqa: E402  (the node tests' inputs and frozen shape operands)

# Input-value files live here for both runs: their paths are in the engine.
WORK = os.path.join(tempfile.gettempdir(), "kiln-engine-identity")


def committed_models():
    """(case name, model path, extra kilnc arguments) of the committed models."""
    cases = []
    for m in sorted(glob.glob(os.path.join(REPO, "examples", "models", "*.onnx"))):
        cases.append(("examples/" + os.path.basename(m), m, []))
    for m in sorted(glob.glob(os.path.join(REPO, "test", "models", "data", "*.onnx"))):
        base = m[: -len(".onnx")]
        extra = []
        if os.path.exists(base + ".inputs.npz"):
            with np.load(base + ".inputs.npz") as z:
                spec = ",".join(f"{k}={'x'.join(map(str, z[k].shape))}" for k in z.files)
            extra = ["--input-shape", spec]
        name = "models/" + os.path.basename(m)
        cases.append((name, m, extra))
        cases.append((name + ":fp16", m, extra + ["--precision=fp16"]))
    return cases


def node_models(data_dir):
    cases = []
    for d in sorted(glob.glob(os.path.join(data_dir, "test_*"))):
        if not os.path.exists(os.path.join(d, "model.onnx")):
            continue
        name = os.path.basename(d)
        try:
            test = node_suite.Test(name, d)
        except Exception as e:  # a model onnx cannot load: nothing to compare
            print(f"skip {name}: {e}", file=sys.stderr)
            continue
        arrays, _ = node_suite.load_inputs(test)
        extra = node_suite.shape_args(test, arrays) if arrays else []
        for n in test.frozen:
            if arrays and n in arrays:
                npy = os.path.join(WORK, name, f"{n}.npy")
                os.makedirs(os.path.dirname(npy), exist_ok=True)
                np.save(npy, arrays[n])
                extra += ["--input-value", f"{n}={npy}"]
        cases.append(("node/" + name, test.model_path, extra))
    return cases


def compile_case(kilnc, case, out_dir):
    """Compiles one case; returns (name, record) with the engine's sha256 or
    the first error line."""
    name, model, extra = case
    engine = os.path.join(out_dir, name.replace("/", "__").replace(":", "_") + ".engine")
    # The same path for both binaries: the engine records its -o.
    if os.path.exists(engine):
        os.unlink(engine)
    p = subprocess.run(["kilnc", model, "-o", engine] + extra, executable=kilnc,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       timeout=600)
    if p.returncode == 0 and os.path.exists(engine):
        with open(engine, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        return name, {"sha256": digest, "engine": os.path.basename(engine)}
    lines = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
    return name, {"rc": p.returncode, "error": lines[0] if lines else ""}


def run_all(kilnc, out_dir, jobs, node_dir):
    os.makedirs(out_dir, exist_ok=True)
    cases = committed_models() + node_models(node_dir)
    results = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for name, rec in pool.map(lambda c: compile_case(kilnc, c, out_dir), cases):
            results[name] = rec
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["record", "compare"])
    p.add_argument("--kilnc", required=True)
    p.add_argument("--dir", required=True, help="the reference folder (record writes it)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--node-data", default=node_suite.default_data_dir())
    a = p.parse_args()
    kilnc = os.path.abspath(a.kilnc)
    if a.mode == "record":
        results = run_all(kilnc, a.dir, a.jobs, a.node_data)
        with open(os.path.join(a.dir, "index.json"), "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        built = sum("sha256" in r for r in results.values())
        print(f"engine_identity: recorded {len(results)} cases, {built} engines, in {a.dir}")
        return 0
    with open(os.path.join(a.dir, "index.json")) as f:
        want = json.load(f)
    # Into the same paths as `record` (the -o path is in the recorded
    # flags); the index keeps the reference digests.
    got = run_all(kilnc, a.dir, a.jobs, a.node_data)
    same = differ = 0
    for name in sorted(set(want) | set(got)):
        w, g = want.get(name), got.get(name)
        if w == g:
            same += 1
            continue
        differ += 1
        print(f"DIFFER {name}: reference {w}, now {g}")
    built = sum("sha256" in r for r in got.values())
    print(f"engine_identity: {len(got)} cases ({built} engines): {same} identical, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
