#!/usr/bin/env python3
"""CPU checks of the benchmark scripts' torch-free parts (bench/): the row
plan, the precision check of exports, the merged table's ratios and (min-max)
cells, that a wrong or failed side shows as FAIL / KILN-FAIL instead of a
time, the baseline's folder and command line, and compare.py's verdict on one
run and on two builds. Prints 'bench_check: N passed, M failed'."""
import json
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import common  # noqa: E402
import compare  # noqa: E402
import merge  # noqa: E402
import run  # noqa: E402
import zoo  # noqa: E402

results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("PASS " if cond else "FAIL ") + name + (f": {detail}" if detail and not cond else ""))


def tiny_model(path, dtype):
    w = np.ones((4, 4), dtype=np.float16 if dtype == TensorProto.FLOAT16 else np.float32)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "t",
                          [helper.make_tensor_value_info("x", dtype, [2, 4])],
                          [helper.make_tensor_value_info("y", dtype, [2, 4])],
                          [numpy_helper.from_array(w, "w")])
    onnx.save(helper.make_model(g), path)


def main():
    # Plans: --quick is fp16 with eager, reduce-overhead, Kiln for every zoo row.
    a = run.parse_args(["--quick"])
    rows = run.plan(a)
    check("quick plan covers the zoo", len(rows) == 9 and all(r[2] == "fp16" for r in rows),
          str(rows))
    check("quick sides", rows[0][3] == ["eager", "compile-reduce-overhead", "kiln"], str(rows[0][3]))
    a = run.parse_args(["--models", "bert-base", "--dtypes", "fp32"])
    check("fp32 rows: eager and Kiln only", all(r[3] == ["eager", "kiln"] for r in run.plan(a)))
    # Exports must keep the row's precision.
    with tempfile.TemporaryDirectory() as d:
        p16, p32 = os.path.join(d, "a.onnx"), os.path.join(d, "b.onnx")
        tiny_model(p16, TensorProto.FLOAT16)
        tiny_model(p32, TensorProto.FLOAT)
        check("fp16 export accepted for a fp16 row", zoo.check_precision(p16, "fp16") is None)
        why = zoo.check_precision(p32, "fp16")
        check("fp32 export refused for a fp16 row", why and "FLOAT16" in why, str(why))
    # Relative error: inf on shape mismatch or NaN.
    ref = {"y": np.array([1.0, -2.0])}
    check("rel_err", abs(common.rel_err({"y": np.array([1.0, -2.02])}, ref) - 0.01) < 1e-9)
    check("rel_err NaN", common.rel_err({"y": np.array([np.nan, 1.0])}, ref) == float("inf"))
    check("rel_err shape", common.rel_err({"y": np.array([1.0])}, ref) == float("inf"))
    # The merged table: ratios, spreads, FAIL and KILN-FAIL cells.
    env = dict(date="2026-01-01", time="00:00:00", gpu="GPU", driver="1", torch="t", cuda="c",
               cudnn=1, transformers="x", torchvision="y", kiln="k")
    side = lambda ms, **kw: dict(status="PASS", median_ms=ms, min_ms=ms * 0.9, max_ms=ms * 1.1, **kw)
    runs = [dict(env=env, rows=[
        dict(model="m", shape="1x8", dtype="fp16",
             sides={"eager": side(4.0), "compile-reduce-overhead": side(1.0),
                    "kiln": side(2.0, compile_s=1.5, launches=12)}),
        dict(model="m", shape="2x8", dtype="fp16",
             sides={"eager": side(4.0), "kiln": dict(status="FAIL", rel_err=0.5)}),
        dict(model="m", shape="4x8", dtype="fp16",
             sides={"eager": side(4.0), "kiln": dict(status="KILN-FAIL", error="kilnc: boom")})])]
    md = merge.markdown(merge.merge_rows(runs), [env])
    line = [l for l in md.splitlines() if l.startswith("| m | 1x8")][0]
    cells = [c.strip() for c in line.strip("|").split("|")]
    check("Kiln cell with spread", "2.000 (1.800-2.200)" in cells, line)
    check("Kiln/eager and Kiln/reduce-overhead ratios", "0.50" in cells and "2.00" in cells, line)
    check("launch count", "12" in cells, line)
    check("a wrong output shows FAIL, not a time", "FAIL (5.0e-01)" in md)
    check("a failed compile shows KILN-FAIL and its error", "KILN-FAIL" in md and "kilnc: boom" in md)
    # The baseline: table.{md,json} under <root>/<date>-<gpu>/, with the command line.
    env["args"] = dict(run.parse_args(["--quick", "--kilnc-args=-O3", "--runs", "50"]).__dict__)
    with tempfile.TemporaryDirectory() as root:
        d = merge.write_baseline(runs, root)
        files = sorted(os.listdir(d))
        with open(os.path.join(d, "table.md")) as f:
            bmd = f.read()
        check("baseline folder and files", d == os.path.join(root, "2026-01-01-gpu") and
              files == ["table.json", "table.md"], f"{d} {files}")
        check("baseline names its command", "python3 bench/run.py --quick --runs 50 --kilnc-args=-O3" in bmd,
              bmd[:300])
    # compare.py: one run's verdict, then new against base within the noise.
    new = compare.rows_of(runs[0])
    lines, failures = compare.verdict(new)
    check("verdict: one row PASS, FAIL and KILN-FAIL rows fail",
          failures == 2 and any("| m 1x8 | fp16 | PASS | 2.0000 | 1.0000 (compile-reduce-overhead) | 2.00 |"
                                in l for l in lines), "\n".join(lines))
    base = compare.rows_of(dict(rows=[dict(model="m", shape="1x8", dtype="fp16",
                                           sides={"kiln": side(1.95)})]))
    _, f_in = compare.verdict({k: v for k, v in new.items() if k[0] == "m 1x8"}, base, 0.03)
    _, f_out = compare.verdict({k: v for k, v in new.items() if k[0] == "m 1x8"}, base, 0.01)
    check("new/base 1.026: within 0.03, outside 0.01", f_in == 0 and f_out == 1, f"{f_in} {f_out}")
    passed = sum(results)
    print(f"bench_check: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
