"""Shared pieces of the benchmarks: timing with CUDA events, the comparison
with PyTorch eager, kilnc/kiln-run calls, environment facts. torch is
imported lazily so that --help, merge.py and the table code run without it."""
import json
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Raw results (every run's JSON, tables, charts, logs): git-ignored.
RESULTS = os.path.join(HERE, "out")
# Curated summaries, one per GPU and date (bench/merge.py --baseline): committed.
BASELINES = os.path.join(HERE, "baselines")

# Stated tolerances: max |got - ref| / max |ref|, ref = PyTorch eager at the
# same precision on the same inputs.
TOL = {"fp32": 1e-3, "fp16": 2e-2, "bf16": 5e-2}  # bf16: 8 mantissa bits

BENCH = re.compile(r"median ([0-9.eE+-]+)\s+p90 ([0-9.eE+-]+)\s+p99 ([0-9.eE+-]+)\s+"
                   r"min ([0-9.eE+-]+)\s+max ([0-9.eE+-]+)")


def default_bin():
    for d in ("build/bin", "build/tools"):
        p = os.path.join(ROOT, d)
        if os.path.exists(os.path.join(p, "kilnc")):
            return p
    return os.path.join(ROOT, "build", "bin")


def stats(times_ms):
    t = np.asarray(times_ms, dtype=np.float64)
    return dict(median_ms=float(np.median(t)), p90_ms=float(np.percentile(t, 90)),
                min_ms=float(t.min()), max_ms=float(t.max()), runs=int(t.size))


def time_cuda(fn, runs, warmup, before=None, batch=1):
    """Median/min/max of `runs` calls of fn() timed with CUDA events, after
    `warmup` untimed calls. `before` runs untimed ahead of each call (e.g.
    cudagraph_mark_step_begin). batch > 1: each of the `runs` samples is
    `batch` calls back to back between the events, divided by `batch`
    (kiln-run --bench-batch does the same)."""
    import torch
    for _ in range(warmup):
        if before:
            before()
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        if before:
            before()
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(batch):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / batch)
    return stats(times)


def rel_err(got, ref):
    """max |got - ref| / max |ref| over all outputs (inf on a missing output or
    a shape mismatch; a non-finite value in got or ref counts as inf, so an
    overflowed reference passes nothing)."""
    worst = 0.0
    for k, r in ref.items():
        g = got.get(k)
        r = np.asarray(r, dtype=np.float64)
        if g is None or tuple(np.shape(g)) != r.shape:
            return float("inf")
        g = np.asarray(g, dtype=np.float64)
        if not np.all(np.isfinite(g)) or not np.all(np.isfinite(r)):
            return float("inf")
        scale = max(float(np.max(np.abs(r))) if r.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(np.abs(g - r))) / scale if r.size else 0.0)
    return worst


def to_numpy(t):
    """torch tensor -> numpy; bf16 goes through fp32."""
    import torch
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return t.cpu().numpy()


def load_npz(path):
    """npz -> dict of arrays; a bf16 array numpy cannot name (void2/uint16
    written by kiln-run) is widened to fp32 through its bit pattern."""
    out = {}
    with np.load(path, allow_pickle=False) as z:
        for k in z.files:
            a = z[k]
            if a.dtype.kind == "V" and a.dtype.itemsize == 2 or a.dtype.name == "bfloat16":
                a = (a.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
            out[k] = a
    return out


def first_error_line(text):
    for line in (text or "").splitlines():
        if line.strip() and ("error" in line.lower() or "fail" in line.lower()):
            return line.strip()[:300]
    lines = [l.strip() for l in (text or "").splitlines() if l.strip()]
    return lines[0][:300] if lines else "(no output)"


def kiln_compile(kilnc, onnx_path, engine, shapes=None, extra=(), timeout=1800):
    """Runs kilnc; returns dict(status, compile_s, error?)."""
    level = [] if any(str(x).startswith("-O") for x in extra) else ["-O2"]
    cmd = [kilnc, onnx_path] + level + ["-o", engine]
    if shapes:
        cmd += ["--input-shape", ",".join(f"{n}={'x'.join(map(str, s))}" for n, s in shapes.items())]
    cmd += list(extra)
    t0 = time.time()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(status="KILN-FAIL", compile_s=round(time.time() - t0, 2),
                    error=f"kilnc timed out after {timeout}s", cmd=" ".join(cmd))
    res = dict(compile_s=round(time.time() - t0, 2), cmd=" ".join(cmd))
    if r.returncode or not os.path.exists(engine):
        res.update(status="KILN-FAIL", error=first_error_line(r.stderr + "\n" + r.stdout))
    else:
        res["status"] = "OK"
    return res


def kiln_launches(kiln_inspect, engine):
    """Launches in rank 0's plan (kiln-inspect --kernels), or None."""
    try:
        r = subprocess.run([kiln_inspect, engine], capture_output=True, text=True, timeout=120)
    except Exception:  # noqa: BLE001
        return None
    m = re.search(r"plan rank 0: (\d+) launches", r.stdout)
    return int(m.group(1)) if m else None


def kiln_bench(kilnrun, engine, inputs_npz, outputs_npz, runs, warmup, seed=None,
               save_inputs=None, timeout=1800, batch=1):
    """Runs kiln-run --bench (--bench-batch where batch > 1); returns
    dict(status, median_ms, ..., error?)."""
    cmd = [kilnrun, engine, "--outputs", outputs_npz, "--bench", str(runs), "--warmup", str(warmup)]
    if batch > 1:
        cmd += ["--bench-batch", str(batch)]
    if inputs_npz:
        cmd += ["--inputs", inputs_npz]
    if seed is not None:
        cmd += ["--seed", str(seed)]
    if save_inputs:
        cmd += ["--save-inputs", save_inputs]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(status="KILN-FAIL", error=f"kiln-run timed out after {timeout}s")
    if r.returncode:
        return dict(status="KILN-FAIL", error="kiln-run: " + first_error_line(r.stderr + "\n" + r.stdout))
    m = BENCH.search(r.stdout + r.stderr)
    if not m:
        return dict(status="KILN-FAIL", error="kiln-run printed no bench line")
    return dict(status="OK", median_ms=float(m.group(1)), p90_ms=float(m.group(2)),
                p99_ms=float(m.group(3)), min_ms=float(m.group(4)), max_ms=float(m.group(5)),
                runs=runs)


def environment(kiln_bin=None):
    """Date, GPU, driver, versions. Works without torch (fields then None)."""
    env = dict(date=time.strftime("%Y-%m-%d"), time=time.strftime("%H:%M:%S"),
               host=platform.node(), python=sys.version.split()[0], numpy=np.__version__,
               gpu=None, driver=None, torch=None, cuda=None, cudnn=None)
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        if q.returncode == 0 and q.stdout.strip():
            name, drv = [x.strip() for x in q.stdout.splitlines()[0].split(",")[:2]]
            env.update(gpu=name, driver=drv)
    except Exception:  # noqa: BLE001
        pass
    try:
        import torch
        env.update(torch=torch.__version__, cuda=torch.version.cuda,
                   cudnn=torch.backends.cudnn.version())
        if torch.cuda.is_available():
            env["gpu"] = torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001
        pass
    for mod in ("transformers", "torchvision", "onnx"):
        try:
            env[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            env[mod] = None
    if kiln_bin:
        try:
            r = subprocess.run([os.path.join(kiln_bin, "kilnc"), "--version"],
                               capture_output=True, text=True, timeout=30)
            env["kiln"] = (r.stdout + r.stderr).strip().splitlines()[-1][:200] if (r.stdout + r.stderr).strip() else None
        except Exception:  # noqa: BLE001
            env["kiln"] = None
    return env


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s or "unknown-gpu").strip("-").lower()


def results_dir(env, base=None):
    """base/<date>-<gpu> (base default RESULTS), created."""
    base = base or RESULTS
    d = os.path.join(base, f"{env['date']}-{slug(env.get('gpu'))}")
    os.makedirs(d, exist_ok=True)
    return d


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, default=str)
    os.replace(tmp, path)
