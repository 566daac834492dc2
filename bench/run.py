#!/usr/bin/env python3
"""Kiln against PyTorch on the model zoo (bench/zoo.py), same process, same GPU.

Per row (model, shape, precision): PyTorch eager at that precision gives the
reference outputs; each side (eager, torch.compile default / reduce-overhead
/ max-autotune, Kiln through kilnc + kiln-run) is checked against it before
its time counts (fp32: 1e-3, fp16: 2e-2 of the reference's max magnitude; a
mismatch shows FAIL). PyTorch sides are timed with CUDA events: median (and
p90/min/max) of --runs calls after --warmup, on fresh non-zero inputs that
are not the export's example inputs. Compile time of every side is recorded
(torch.compile: the first call; Kiln: kilnc wall time).

  --quick : fp16 only; eager, compile-reduce-overhead, Kiln; every model.
  full    : fp16 and fp32 eager, the three compile modes at fp16, Kiln at both.

Writes RESULTS/<date>-<gpu>/run-<time>-<tag>.{json,md,png} (--results,
default bench/out/, git-ignored; the JSON after every row, so a killed run
keeps what it measured); bench/merge.py joins runs. --baseline also writes the
run's table and JSON as the curated summary bench/baselines/<date>-<gpu>/.
"""
import argparse
import gc
import os
import re
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402
import zoo  # noqa: E402

ALL_PEERS = ["eager", "compile-default", "compile-reduce-overhead", "compile-max-autotune", "kiln"]
QUICK_PEERS = ["eager", "compile-reduce-overhead", "kiln"]
# torch.compile modes are measured at fp16 only (as asked); fp32 gets eager and Kiln.
FP32_PEERS = {"eager", "kiln"}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fp16; eager, reduce-overhead, Kiln")
    p.add_argument("--models", default=",".join(zoo.ORDER),
                   help=f"comma list of {','.join(zoo.ORDER)} (split a full run across calls)")
    p.add_argument("--shapes", help="only these shapes, e.g. 1x128,64 (batch only for images)")
    p.add_argument("--dtypes", help="override: fp16,fp32")
    p.add_argument("--peers", help=f"override: comma list of {','.join(ALL_PEERS)}")
    p.add_argument("--runs", type=int, default=100, help="timed runs per side (>= 50)")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--bin", default=common.default_bin(), help="dir with kilnc and kiln-run")
    p.add_argument("--work", default=os.path.join(HERE, "work"), help="export/engine cache")
    p.add_argument("--results", default=common.RESULTS,
                   help="raw results go to RESULTS/<date>-<gpu>/ (default bench/out/, git-ignored)")
    p.add_argument("--baseline", action="store_true",
                   help="also write the table and its JSON to bench/baselines/<date>-<gpu>/")
    p.add_argument("--exporter", default="auto", choices=["auto", "torchscript", "dynamo"])
    p.add_argument("--kilnc-args", default="",
                   help="extra kilnc arguments, separated by spaces or by commas before a '-' "
                        "(--kilnc-args=-O3,--set=matmul.stages=3 survives shell word splitting)")
    p.add_argument("--kiln-precision", choices=["fp16", "bf16"],
                   help="Kiln's side of the rows of this dtype compiles the fp32 export with "
                        "kilnc --precision=DTYPE (instead of a half-precision export)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if a.runs < 50:
        p.error("--runs must be >= 50")
    a.model_list = [m for m in a.models.split(",") if m]
    for m in a.model_list:
        if m not in zoo.MODELS:
            p.error(f"unknown model '{m}' (known: {', '.join(zoo.ORDER)})")
    a.dtype_list = (a.dtypes.split(",") if a.dtypes else (["fp16"] if a.quick else ["fp16", "fp32"]))
    for d in a.dtype_list:
        if d not in ("fp16", "fp32", "bf16"):
            p.error(f"unknown dtype '{d}'")
    a.peer_list = a.peers.split(",") if a.peers else (QUICK_PEERS if a.quick else ALL_PEERS)
    for x in a.peer_list:
        if x not in ALL_PEERS:
            p.error(f"unknown peer '{x}'")
    if "eager" not in a.peer_list:
        a.peer_list = ["eager"] + a.peer_list  # the reference
    a.shape_list = a.shapes.split(",") if a.shapes else None
    a.tag = ("quick" if a.quick else "full") + "-" + "_".join(a.model_list)
    return a


def plan(a):
    """[(model, shape, dtype, [sides])] in order; torch-free."""
    out = []
    for m, s in zoo.rows(a.model_list):
        if a.shape_list and "x".join(map(str, s)) not in a.shape_list:
            continue
        for d in a.dtype_list:
            sides = [x for x in a.peer_list if d != "fp32" or x in FP32_PEERS]
            out.append((m, s, d, sides))
    return out


def kilnc_args(s):
    """--kilnc-args split at spaces and at commas that start another option."""
    return [x for x in re.split(r"\s+|,(?=-)", s) if x]


def rel_err_torch(got, ref):
    worst = 0.0
    for g, r in zip(got, ref):
        if g.shape != r.shape:
            return float("inf")
        g, r = g.float(), r.float()
        if not bool(g.isfinite().all()):
            return float("inf")
        worst = max(worst, float((g - r).abs().max()) / max(float(r.abs().max()), 1e-30))
    return worst


def torch_side(name, fn, args, ref, tol, a, compile_mode=None):
    import torch
    before = None
    if compile_mode == "reduce-overhead" and hasattr(torch, "compiler") and \
            hasattr(torch.compiler, "cudagraph_mark_step_begin"):
        before = torch.compiler.cudagraph_mark_step_begin
    res = {}
    with torch.no_grad():
        if compile_mode:
            torch.cuda.synchronize()
            t0 = time.time()
            if before:
                before()
            fn(*args)
            torch.cuda.synchronize()
            res["compile_s"] = round(time.time() - t0, 2)
        for _ in range(3):  # reduce-overhead records its CUDA graph here
            if before:
                before()
            out = fn(*args)
        out = [o.clone() for o in out]
        torch.cuda.synchronize()
        if ref is None:
            zero = [i for i, o in enumerate(out) if not bool((o != 0).any())]
            if zero:  # a reference of zeros would let any side pass
                raise RuntimeError(f"the eager reference's output {zero[0]} is all zeros; "
                                   "the row would check nothing")
            res.update(status="PASS", rel_err=0.0)
            ref = out
        else:
            err = rel_err_torch(out, ref)
            res.update(rel_err=err, status="PASS" if err <= tol else "FAIL")
        res.update(common.time_cuda(lambda: fn(*args), a.runs, a.warmup, before=before))
    return res, ref


def kiln_side(name, shape, dtype, onnx_path, inputs, ref_np, tol, a, extra=(), ref32=None):
    """ref32: at half precision (every fp16/bf16 row), a callable giving
    PyTorch eager's fp32 outputs (numpy, by output name), asked for only when
    Kiln is farther than `tol` from eager: Kiln then passes if it is at least
    as close to the fp32 result as eager itself is and eager is within 10x
    `tol` of it (both distances recorded)."""
    import numpy as np
    tag = f"{name}-{zoo.shape_str(shape)}-{dtype}"
    d = os.path.join(a.work, "kiln")
    os.makedirs(d, exist_ok=True)
    engine, inp, out = (os.path.join(d, tag + x) for x in (".engine", ".inputs.npz", ".out.npz"))
    for f in (engine, out):
        if os.path.exists(f):
            os.remove(f)
    np.savez(inp, **inputs)
    res = common.kiln_compile(os.path.join(a.bin, "kilnc"), onnx_path, engine,
                              zoo.input_shapes(name, shape), kilnc_args(a.kilnc_args) + list(extra))
    if res["status"] != "OK":
        return res
    res["launches"] = common.kiln_launches(os.path.join(a.bin, "kiln-inspect"), engine)
    r = common.kiln_bench(os.path.join(a.bin, "kiln-run"), engine, inp, out, a.runs, a.warmup)
    res.update(r)
    if r["status"] != "OK":
        return res
    got = common.load_npz(out)
    err = common.rel_err(got, ref_np)
    res.update(rel_err=err, status="PASS" if err <= tol else "FAIL")
    if err > tol and ref32 is not None and np.isfinite(err):
        r32 = ref32()
        res["rel_err_fp32"] = common.rel_err(got, r32)
        res["eager_rel_err_fp32"] = common.rel_err(ref_np, r32)
        # Only against a usable eager: finite and within 10x the tolerance of
        # fp32 (an output of zeros is 1.0 away and must never pass).
        usable = np.isfinite(res["eager_rel_err_fp32"]) and res["eager_rel_err_fp32"] <= 10 * tol
        if usable and res["rel_err_fp32"] <= res["eager_rel_err_fp32"]:
            res.update(status="PASS", basis="fp32")
    return res


def main(argv=None):
    a = parse_args(argv)
    todo = plan(a)
    import torch
    import merge
    os.makedirs(a.work, exist_ok=True)
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(a.work, "inductor-cache"))
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 on both sides
    torch.backends.cudnn.allow_tf32 = False
    env = common.environment(a.bin)
    env["args"] = {k: v for k, v in vars(a).items()}
    outdir = common.results_dir(env, a.results)
    stem = os.path.join(outdir, f"run-{time.strftime('%H%M%S')}-{a.tag}")
    run = dict(env=env, rows=[])
    print(f"{len(todo)} rows -> {stem}.json", flush=True)
    built = {}
    for name, shape, dtype, sides in todo:
        row = dict(model=name, shape=zoo.shape_str(shape), dtype=dtype, sides={})
        run["rows"].append(row)
        tol = common.TOL[dtype]
        row["tol"] = tol
        m = None
        try:
            if name not in built:
                built.clear()
                gc.collect()
                built[name] = zoo.build(name, a.seed)
            m = zoo.on_device(built[name], dtype)
            # Kiln converts the fp32 export itself (--kiln-precision), or takes
            # the export in the row's precision.
            convert = a.kiln_precision == dtype
            try:
                if convert:
                    m32 = zoo.on_device(built[name], "fp32")
                    onnx_path, facts = zoo.export(name, shape, "fp32", m32, a.work, a.seed, a.exporter)
                    m32 = None
                    facts["kiln_precision"] = dtype
                elif dtype == "bf16":
                    raise RuntimeError("bf16 rows need --kiln-precision bf16 (no bf16 ONNX export)")
                else:
                    onnx_path, facts = zoo.export(name, shape, dtype, m, a.work, a.seed, a.exporter)
                row["export"] = facts
            except Exception as e:  # noqa: BLE001
                onnx_path = None
                row["export"] = dict(error=str(e)[:600])
            inputs = zoo.make_inputs(name, shape, dtype, a.seed)
            args = zoo.to_torch(inputs, dtype=dtype)
            if convert:  # the fp32 engine takes the same values as fp32
                inputs = {k: v.astype(np.float32) if v.dtype.kind == "f" else v
                          for k, v in inputs.items()}
            res, ref = torch_side(name, m, args, None, tol, a)
            row["sides"]["eager"] = res
            ref_np = {n: common.to_numpy(t) for n, t in zip(zoo.MODELS[name]["outputs"], ref)}
            if "kiln" in sides:
                if onnx_path is None:
                    row["sides"]["kiln"] = dict(status="KILN-FAIL", error="export failed: " + row["export"]["error"][:300])
                else:
                    extra = [f"--precision={dtype}"] if convert else []

                    def ref32(name=name, inputs=inputs):
                        m32 = zoo.on_device(built[name], "fp32")  # a copy
                        args32 = [t.float() if t.is_floating_point() else t
                                  for t in zoo.to_torch(inputs)]
                        with torch.no_grad():
                            out32 = m32(*args32)
                        r = {n: common.to_numpy(t) for n, t in zip(zoo.MODELS[name]["outputs"], out32)}
                        del m32, args32, out32
                        torch.cuda.empty_cache()
                        return r
                    row["sides"]["kiln"] = kiln_side(name, shape, dtype, onnx_path, inputs, ref_np, tol, a,
                                                     extra, ref32 if dtype != "fp32" else None)
                common.write_json(stem + ".json", run)
            for side in sides:
                if side in ("eager", "kiln"):
                    continue
                mode = side[len("compile-"):]
                try:
                    torch._dynamo.reset()
                    fn = torch.compile(m, mode=mode)
                    row["sides"][side], _ = torch_side(name, fn, args, ref, tol, a, compile_mode=mode)
                except Exception as e:  # noqa: BLE001
                    row["sides"][side] = dict(status="ERROR", error=f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300])
                finally:
                    fn = None
                    torch._dynamo.reset()
                    torch.cuda.empty_cache()
                    common.write_json(stem + ".json", run)  # a killed run keeps each side
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            row["error"] = f"{type(e).__name__}: {e}"[:600]
            for s in sides:
                row["sides"].setdefault(s, dict(status="ERROR", error=row["error"][:300]))
        finally:
            m = None
            args = None
            gc.collect()
            torch.cuda.empty_cache()
        print(f"{name} {row['shape']} {dtype}: " +
              ", ".join(f"{s}={merge.cell(row['sides'].get(s))}" for s in sides), flush=True)
        common.write_json(stem + ".json", run)
    rows = merge.merge_rows([run])
    md = merge.markdown(rows, [env])
    with open(stem + ".md", "w") as f:
        f.write(md)
    merge.chart(rows, stem + ".png")
    print(md)
    print(f"wrote {stem}.json/.md/.png; merge runs with: bench/merge.py {outdir}")
    if a.baseline:
        print(f"baseline: {merge.write_baseline([run])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
