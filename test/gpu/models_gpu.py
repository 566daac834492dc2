#!/usr/bin/env python3
"""BERT-base and GPT-2 small (random weights, fp32) on the GPU: Kiln engines
against onnxruntime, with latency beside PyTorch eager fp32 in the same run.

For each model, exporter (torchscript, dynamo) and shape (1x128, 8x512):
export once (dynamic batch/seq), compile with `kilnc --input-shape ... -o
x.engine`, run with `kiln-run --bench`, compare with onnxruntime (CPU) on the
same fresh random token ids: max abs error at most 1e-3 of the output's max
magnitude. PyTorch eager fp32 is timed on the GPU with CUDA events (median of
--runs after warm-up). Prints a table and writes --json.

Usage: models_gpu.py --bin DIR --work DIR [--json FILE] [--runs 50]
       [--models bert-base,gpt2-small] [--shapes 1x128,8x512]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
import make_models  # noqa: E402

REL_TOL = 1e-3


def torch_eager_ms(module, inputs, runs, warmup=10):
    import torch
    dev = torch.device("cuda")
    args = [torch.from_numpy(inputs[n]).to(dev) for n in ("input_ids", "attention_mask")]
    m = module.to(dev)
    with torch.no_grad():
        for _ in range(warmup):
            m(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            m(*args)
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b))
    module.to("cpu")
    return float(np.median(times)), float(np.min(times)), float(np.max(times))


def run_ort(path, inputs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count() or 4
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    feeds = {i.name: inputs[i.name] for i in sess.get_inputs()}
    return dict(zip(names, sess.run(None, feeds)))


BENCH = re.compile(r"median ([0-9.]+)\s+p90 ([0-9.]+)\s+p99 ([0-9.]+)\s+min ([0-9.]+)\s+max ([0-9.]+)")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--json")
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--models", default="bert-base,gpt2-small")
    p.add_argument("--exporters", default="torchscript,dynamo")
    p.add_argument("--shapes", default="1x128,8x512")
    a = p.parse_args()
    import torch
    os.makedirs(a.work, exist_ok=True)
    kilnc, kilnrun = os.path.join(a.bin, "kilnc"), os.path.join(a.bin, "kiln-run")
    shapes = [tuple(int(x) for x in s.split("x")) for s in a.shapes.split(",")]
    rows = []
    for name in a.models.split(","):
        module = make_models.build_module(name, 0)
        vocab = make_models.SPECS[name]["vocab"]
        example = {"input_ids": np.random.default_rng(1).integers(1, vocab, size=(1, 128), dtype=np.int64),
                   "attention_mask": np.ones((1, 128), dtype=np.int64)}
        paths = {}
        for exp in a.exporters.split(","):
            path = os.path.join(a.work, f"{name}-{exp}.onnx")
            try:
                make_models.torch_export(module, name, exp, example, path)
                paths[exp] = path
            except Exception as e:  # noqa: BLE001
                rows.append(dict(model=name, exporter=exp, status="EXPORT-FAIL", error=str(e)[:300]))
        for (b, s) in shapes:
            rng = np.random.default_rng([b, s, vocab])
            inputs = {"input_ids": rng.integers(1, vocab, size=(b, s), dtype=np.int64),
                      "attention_mask": np.ones((b, s), dtype=np.int64)}
            inp = os.path.join(a.work, f"{name}-{b}x{s}.inputs.npz")
            np.savez(inp, **inputs)
            eager = torch_eager_ms(module, inputs, a.runs)
            for exp, path in paths.items():
                row = dict(model=name, exporter=exp, shape=f"{b}x{s}", eager_ms=eager[0],
                           eager_min=eager[1], eager_max=eager[2])
                engine = os.path.join(a.work, f"{name}-{exp}-{b}x{s}.engine")
                spec = f"input_ids={b}x{s},attention_mask={b}x{s}"
                t0 = time.time()
                r = subprocess.run([kilnc, path, "--input-shape", spec, "-o", engine],
                                   capture_output=True, text=True)
                row["compile_s"] = round(time.time() - t0, 1)
                if r.returncode:
                    row.update(status="COMPILE-FAIL", error=r.stderr.strip()[-600:])
                    rows.append(row)
                    print(row, flush=True)
                    continue
                out = os.path.join(a.work, "out.npz")
                r = subprocess.run([kilnrun, engine, "--inputs", inp, "--outputs", out,
                                    "--bench", str(a.runs)], capture_output=True, text=True)
                if r.returncode:
                    row.update(status="RUN-FAIL", error=(r.stderr + r.stdout).strip()[-600:])
                    rows.append(row)
                    print(row, flush=True)
                    continue
                m = BENCH.search(r.stdout)
                if m:
                    row.update(kiln_ms=float(m.group(1)), kiln_p90=float(m.group(2)),
                               kiln_p99=float(m.group(3)), kiln_min=float(m.group(4)),
                               kiln_max=float(m.group(5)))
                ref = run_ort(path, inputs)
                got = dict(np.load(out))
                worst = 0.0
                for k, v in ref.items():
                    g = got.get(k)
                    if g is None or g.shape != v.shape:
                        worst = float("inf")
                        continue
                    worst = max(worst, float(np.max(np.abs(g.astype(np.float64) - v)) /
                                        max(float(np.max(np.abs(v))), 1e-30)))
                row["rel_err"] = worst
                row["status"] = "PASS" if worst <= REL_TOL else "MISMATCH"
                rows.append(row)
                print(row, flush=True)
        del module
    print()
    print(f"{'model':12s} {'exporter':12s} {'shape':7s} {'status':12s} {'rel err':>9s} "
          f"{'kiln ms':>9s} {'eager ms':>9s} {'eager/kiln':>10s} {'compile s':>9s}")
    for r in rows:
        ratio = r["eager_ms"] / r["kiln_ms"] if r.get("kiln_ms") else float("nan")
        print(f"{r['model']:12s} {r['exporter']:12s} {r.get('shape', '-'):7s} {r['status']:12s} "
              f"{r.get('rel_err', float('nan')):9.2e} {r.get('kiln_ms', float('nan')):9.3f} "
              f"{r.get('eager_ms', float('nan')):9.3f} {ratio:10.2f} {r.get('compile_s', float('nan')):9.1f}")
        if r.get("error"):
            print("    " + r["error"].replace("\n", "\n    ")[:600])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(gpu=torch.cuda.get_device_name(0), torch=torch.__version__,
                           date=time.strftime("%Y-%m-%d"), rows=rows), f, indent=1)
    return 0 if rows and all(r["status"] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
