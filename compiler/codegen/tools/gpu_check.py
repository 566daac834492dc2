#!/usr/bin/env python3
"""Runs kiln-cgc GPU check bundles on a GPU and compares with the evaluator.

Usage: gpu_check.py BUNDLE_OR_PARENT_DIR... [--json OUT]

Each bundle (manifest.json, k*.cubin, w*.bin, in*.bin, out*.bin) is executed
exactly as the runtime would: one arena, weights uploaded, inputs bound,
launches in order with (buffer + byte offset) arguments. Outputs are compared
with the reference evaluator's: floats within rtol/atol per dtype with NaN
where NaN is expected, integers and bools exactly. Bundles without reference
data (timing models) get random inputs, are checked against PyTorch where
gpu_models.PERF_MODELS says how, and are timed (median of CUDA-event timed
runs) next to the PyTorch equivalent. Needs CuPy (and PyTorch for timing).
"""
import json
import os
import sys
import time

import numpy as np
import cupy as cp

NP = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "bf16": np.uint16,
      "i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
TOL = {"f32": (1e-3, 1e-5), "f64": (1e-6, 1e-9), "f16": (1e-2, 1e-3), "bf16": (4e-2, 1e-2)}


def as_float(a, dtype):
    if dtype == "bf16":
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def compare(got, exp, dtype):
    if dtype not in TOL:
        bad = np.nonzero(got != exp)[0]
        return len(bad) == 0, f"{len(bad)} mismatches" + (
            f", first at {bad[0]}: got {got[bad[0]]} expected {exp[bad[0]]}" if len(bad) else "")
    rtol, atol = TOL[dtype]
    g, e = as_float(got, dtype), as_float(exp, dtype)
    nan_g, nan_e = np.isnan(g), np.isnan(e)
    same_inf = (g == e)
    with np.errstate(invalid="ignore"):
        ok = same_inf | (nan_g & nan_e) | (np.abs(g - e) <= atol + rtol * np.abs(e))
    ok &= nan_g == nan_e
    bad = np.nonzero(~ok)[0]
    with np.errstate(invalid="ignore"):
        err = np.abs(g - e)[~nan_e & ~np.isinf(e)]
    maxerr = float(err.max()) if err.size else 0.0
    msg = f"max abs err {maxerr:.3g}"
    if len(bad):
        msg += f", {len(bad)} mismatches, first at {bad[0]}: got {g[bad[0]]!r} expected {e[bad[0]]!r}"
    return len(bad) == 0, msg


def random_input(t):
    n = int(np.prod(t["shape"]))
    dt = t["dtype"]
    if dt in ("f16", "f32", "f64"):
        a = cp.random.uniform(-1, 1, n, dtype=cp.float32).astype(NP[dt])
    elif dt == "bf16":
        a = (cp.random.uniform(-1, 1, n, dtype=cp.float32).view(cp.uint32) >> 16).astype(cp.uint16)
    else:
        a = cp.random.randint(0, 10, n).astype(NP[dt])
    return a.view(cp.uint8)


def torch_reference(name, ins, manifest):
    """PyTorch's result for a timing model, and a callable that reruns it."""
    import torch
    t = [torch.from_dlpack(x.view(NP[i["dtype"]]).reshape(i["shape"]))
         for x, i in zip(ins, manifest["inputs"])]
    f = {
        "perf_mm_f16": lambda: t[0] @ t[1],
        "perf_gemm_f16_tb": lambda: t[0] @ t[1].T,
        "perf_bmm_f16": lambda: torch.bmm(t[0], t[1]),
        "perf_mm_f32": lambda: t[0] @ t[1],
        "perf_add_f32": lambda: t[0] + t[1],
        "perf_softmax_f16": lambda: torch.softmax(t[0], -1),
        "perf_layernorm_f16": lambda: torch.nn.functional.layer_norm(t[0], t[0].shape[-1:], t[1], t[2]),
        "perf_reduce_f32": lambda: t[0].sum(-1, keepdim=True),
        "perf_transpose_f32": lambda: t[0].T.contiguous(),
        "perf_conv_f32": lambda: torch.nn.functional.conv2d(t[0], t[1], padding=1),
    }.get(name)
    if f is None:
        return None, None
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return f().float().flatten().cpu().numpy(), f


def median_ms(fn, reps=20):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(3):
        fn()
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times))


def run_bundle(d):
    m = json.load(open(os.path.join(d, "manifest.json")))
    timing = any(t["file"] is None for t in m["inputs"] + m["outputs"])
    mods = [cp.RawModule(path=os.path.join(d, k["cubin"])) for k in m["kernels"]]
    funcs = [mod.get_function(k["entry"]) for mod, k in zip(mods, m["kernels"])]
    arena = cp.zeros(max(m["arena_size"], 256), dtype=cp.uint8)
    arena.fill(0xA5)  # Garbage: kernels must not read what nobody wrote.
    weights = [cp.asarray(np.fromfile(os.path.join(d, w), dtype=np.uint8)) for w in m["weights"]]
    ins = [random_input(t) if timing else
           cp.asarray(np.fromfile(os.path.join(d, t["file"]), dtype=np.uint8)) for t in m["inputs"]]
    outs = [cp.full(max(int(np.prod(t["shape"])) * np.dtype(NP[t["dtype"]]).itemsize, 1), 0xCD,
                    dtype=cp.uint8) for t in m["outputs"]]
    bases = []
    for b in m["buffers"]:
        if b["kind"] == "arena":
            bases.append(arena.data.ptr + b["offset"])
        elif b["kind"] == "weights":
            w = weights[b["index"]]
            bases.append(w.data.ptr if w.size else arena.data.ptr)
        elif b["kind"] == "input":
            x = ins[b["index"]]
            bases.append(x.data.ptr if x.size else arena.data.ptr)
        else:
            bases.append(outs[b["index"]].data.ptr)
    plan = [(funcs[l["kernel"]], tuple(l["grid"]), tuple(l["block"]),
             tuple(np.uint64(bases[buf] + off) for buf, off in l["args"]), l["smem"])
            for l in m["launches"]]

    def run():
        for f, grid, block, args, smem in plan:
            f(grid, block, args, shared_mem=smem)

    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    run()
    cp.cuda.Device().synchronize()
    ms = (time.perf_counter() - t0) * 1e3
    results = []
    ok_all = True
    name = os.path.basename(d.rstrip("/"))
    for i, t in enumerate(m["outputs"]):
        n = int(np.prod(t["shape"]))
        nbytes = n * np.dtype(NP[t["dtype"]]).itemsize
        got = cp.asnumpy(outs[i])[:nbytes].view(NP[t["dtype"]])
        if timing:
            ref, torch_fn = torch_reference(name, ins, m)
            if ref is None:
                continue
            # Another accumulation order (cuBLAS, cuDNN): looser bounds.
            rtol, atol = (3e-2, 3e-2) if t["dtype"] in ("f16", "bf16") else (1e-3, 1e-3)
            g = as_float(got, t["dtype"])
            with np.errstate(invalid="ignore"):
                bad = ~(np.abs(g - ref) <= atol + rtol * np.abs(ref))
            ok = not bad.any()
            msg = f"vs PyTorch: max abs err {float(np.nanmax(np.abs(g - ref))):.3g}, {int(bad.sum())} mismatches"
            kiln_ms = median_ms(run)
            torch_ms = median_ms(torch_fn)
            msg += f"; kiln {kiln_ms:.3f} ms, torch {torch_ms:.3f} ms (x{torch_ms / kiln_ms:.2f} of torch speed)"
            results.append((t["name"], t["dtype"], t["shape"], ok, msg))
            ok_all &= ok
            continue
        exp = np.fromfile(os.path.join(d, t["file"]), dtype=NP[t["dtype"]])
        ok, msg = compare(got, exp, t["dtype"])
        ok_all &= ok
        results.append((t["name"], t["dtype"], t["shape"], ok, msg))
    flags = []
    for mod, k in zip(mods, m["kernels"]):
        if k["error_flag"]:
            g = mod.get_global("kiln_error")
            flags.append(int(cp.asnumpy(cp.ndarray((1,), cp.uint32, g))[0]))
    return ok_all, ms, results, flags, len(m["launches"])


def main(argv):
    dirs = []
    for a in argv:
        if os.path.exists(os.path.join(a, "manifest.json")):
            dirs.append(a)
        else:
            dirs += sorted(os.path.join(a, s) for s in os.listdir(a)
                           if os.path.exists(os.path.join(a, s, "manifest.json")))
    failures = 0
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        try:
            ok, ms, results, flags, n = run_bundle(d)
        except Exception as e:  # A launch failure: report and go on.
            print(f"ERROR {name}: {type(e).__name__}: {e}")
            failures += 1
            continue
        print(f"{'PASS' if ok else 'FAIL'} {name}: {n} launches, {ms:.2f} ms"
              + (f", error flags {flags}" if any(flags) else ""))
        for oname, dt, shape, ook, msg in results:
            if not ook or name.startswith("perf") or "-v" in os.environ.get("GPU_CHECK_FLAGS", ""):
                print(f"    {'ok ' if ook else 'BAD'} {oname} {dt}{shape}: {msg}")
        failures += not ok
    print(f"{len(dirs) - failures}/{len(dirs)} bundles pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
