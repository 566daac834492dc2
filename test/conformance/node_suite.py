#!/usr/bin/env python3
"""Runs the ONNX backend node tests whose ops Kiln imports through kilnc (and kiln-eval).

Import mode (default): every selected test's model.onnx goes through
`kilnc --emit=graph`; a test passes when kilnc exits 0. A failure is reported
with kilnc's error line(s), which must follow the one-line format
`PATH: [node 'NAME' (Op): ]error: MESSAGE`.

Evaluate mode (--evaluate): for the tests that import, test_data_set_0's
input_*.pb are written to an .npz named by graph input names, `kiln-eval`
runs the model, and its outputs are compared with output_*.pb (float:
rtol 1e-3, atol 1e-5, NaN where the reference has NaN and nowhere else;
other types: exact; shape and dtype must match). A per-op table counts,
for each op of the import list, the tests that contain it.

A test is selected when every node (subgraphs included) is in the default
ONNX domain and its op is in KILN_IMPORT_OPS. See README.md beside this file.
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

# The ops Kiln's ONNX frontend imports: the one place the suite's selection
# comes from. Keep in step with compiler/frontend/onnx.
KILN_IMPORT_OPS = frozenset("""
    MatMul Gemm Add Sub Mul Div Pow Sqrt Reciprocal Neg Abs Exp Log Erf Tanh
    Sigmoid Relu Gelu LeakyRelu Clip Sin Cos Cast Where Equal Less Greater
    GreaterOrEqual And Or Not IsNaN ReduceSum ReduceMean ReduceMax Softmax
    LogSoftmax LayerNormalization Gather GatherElements Reshape Transpose
    Squeeze Unsqueeze Flatten Concat Slice Split Expand Shape ConstantOfShape
    Range Trilu Constant Identity Conv MaxPool AveragePool GlobalAveragePool
    BatchNormalization
""".split())

RTOL, ATOL = 1e-3, 1e-5

# Operands that Kiln needs as constants (it compiles static shapes). Node tests
# often feed them as graph inputs; the suite freezes such inputs from the test
# data with --input-value, as a user would (see frozen_inputs).
SHAPE_OPERANDS = {
    "Reshape": (1,), "Expand": (1,), "ConstantOfShape": (0,), "Range": (0, 1, 2),
    "Slice": (1, 2, 3, 4), "Split": (1,), "Squeeze": (1,), "Unsqueeze": (1,),
    "ReduceSum": (1,), "ReduceMean": (1,), "ReduceMax": (1,), "Trilu": (1,),
}
# Ops whose output depends on their input's shape only: a backward slice stops there.
SHAPE_ONLY_OPS = {"Shape", "Size"}

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# kilnc's error line: "PATH: error: MSG" or "PATH: node 'NAME' (Op): error: MSG".
ERROR_LINE = re.compile(r"^(?P<path>.+?): (?:node '(?P<node>.*)' \((?P<op>[A-Za-z0-9_.]+)\): )?"
                        r"error: (?P<msg>.+)$")


def default_data_dir():
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def find_tool(name, explicit, beside=None):
    """An explicit path, else beside another tool, else PATH, else build/bin."""
    if explicit:
        return explicit
    if beside:
        cand = os.path.join(os.path.dirname(beside), name)
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which(name)
    if found:
        return found
    cand = os.path.join(REPO, "build", "bin", name)
    return cand if os.access(cand, os.X_OK) else None


def graph_ops(graph, acc):
    """Adds (domain, op_type) of every node, recursing into subgraph attributes."""
    for node in graph.node:
        acc.add((node.domain or "", node.op_type))
        for attr in node.attribute:
            if attr.HasField("g"):
                graph_ops(attr.g, acc)
            for g in attr.graphs:
                graph_ops(g, acc)
    return acc


class Test:
    def __init__(self, name, path):
        self.name = name
        self.dir = path
        self.model_path = os.path.join(path, "model.onnx")
        self.model = onnx.load(self.model_path, load_external_data=False)
        self.ops = graph_ops(self.model.graph, set())
        inits = {t.name for t in self.model.graph.initializer}
        # Positional .pb files map to the graph inputs that are not initializers,
        # as in onnx's backend runner.
        self.inputs = [i for i in self.model.graph.input if i.name not in inits]
        self.outputs = list(self.model.graph.output)
        self.frozen = frozen_inputs(self.model.graph, {i.name for i in self.inputs})

    @property
    def selected(self):
        return all(dom in ("", "ai.onnx") and op in KILN_IMPORT_OPS for dom, op in self.ops)

    @property
    def op_types(self):
        return sorted({op for _, op in self.ops})

    def data_set(self):
        d = os.path.join(self.dir, "test_data_set_0")
        return d if os.path.isdir(d) else None


def frozen_inputs(graph, input_names):
    """Graph inputs whose values flow into a shape operand (SHAPE_OPERANDS),
    found by walking producers backwards from each such operand; a walk stops
    at Shape/Size, whose results do not depend on values. Top-level graph only."""
    producer = {}
    for node in graph.node:
        for o in node.output:
            producer[o] = node
    todo = [node.input[i] for node in graph.node
            for i in SHAPE_OPERANDS.get(node.op_type, ()) if i < len(node.input) and node.input[i]]
    seen, found = set(), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in input_names:
            found.add(name)
        node = producer.get(name)
        if node is not None and node.op_type not in SHAPE_ONLY_OPS:
            todo += [i for i in node.input if i]
    return sorted(found)


def is_static(value_info):
    t = value_info.type
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") for d in t.tensor_type.shape.dim)


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def load_inputs(test):
    """Returns ({graph input name: array}, error or None) from test_data_set_0."""
    ds = test.data_set()
    if ds is None:
        return None, "no test_data_set_0"
    files = sorted(glob.glob(os.path.join(ds, "input_*.pb")),
                   key=lambda p: int(re.search(r"input_(\d+)\.pb$", p).group(1)))
    if len(files) > len(test.inputs):
        return None, f"{len(files)} input .pb files for {len(test.inputs)} graph inputs"
    arrays = {}
    for vi, path in zip(test.inputs, files):
        if vi.type.WhichOneof("value") != "tensor_type":
            return None, f"input '{vi.name}' is of type {vi.type.WhichOneof('value')}, not a tensor"
        try:
            arrays[vi.name] = load_pb(path)
        except Exception as e:  # a malformed or non-tensor .pb
            return None, f"cannot read {os.path.basename(path)}: {e}"
    return arrays, None


def load_outputs(test):
    ds = test.data_set()
    files = sorted(glob.glob(os.path.join(ds, "output_*.pb")),
                   key=lambda p: int(re.search(r"output_(\d+)\.pb$", p).group(1)))
    out = {}
    for vi, path in zip(test.outputs, files):
        out[vi.name] = load_pb(path)
    return out


def shape_args(test, arrays):
    """--input-shape for each input whose type is not fully static."""
    args = []
    for vi in test.inputs:
        if vi.name in arrays and not is_static(vi):
            shape = "x".join(str(d) for d in arrays[vi.name].shape)
            args += ["--input-shape", f"{vi.name}={shape}"]
    return args


def run_tool(cmd, timeout):
    """Runs cmd; returns (status, rc, stdout, stderr lines, seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "timeout", None, "", [f"timed out after {timeout} s"], time.monotonic() - t0
    dt = time.monotonic() - t0
    err = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
    if p.returncode < 0:
        return "crash", p.returncode, "", [f"killed by signal {-p.returncode}"] + err, dt
    return ("pass" if p.returncode == 0 else "fail"), p.returncode, \
        p.stdout.decode("utf-8", "replace"), err, dt


def compare(name, got, want):
    """Returns None when got matches want, else a one-line reason."""
    if got.shape != want.shape:
        return f"output '{name}': shape {got.shape} != expected {want.shape}"
    if got.dtype.kind == "V" and got.dtype.itemsize == 2 and want.dtype.name == "bfloat16":
        got = got.view(want.dtype)  # Kiln writes bfloat16 as raw 2-byte records
    if got.dtype != want.dtype:
        return f"output '{name}': dtype {got.dtype} != expected {want.dtype}"
    if want.dtype.name == "bfloat16":
        got, want = got.astype(np.float32), want.astype(np.float32)
    if want.dtype.kind in "fc":
        g = got.astype(np.float64) if want.dtype.kind == "f" else got
        w = want.astype(np.float64) if want.dtype.kind == "f" else want
        gn, wn = np.isnan(g), np.isnan(w)
        if not np.array_equal(gn, wn):
            return f"output '{name}': NaN at {int((gn != wn).sum())} positions that differ"
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
            with np.errstate(invalid="ignore"):
                d = np.abs(np.where(wn, 0, g - w))
            i = np.unravel_index(int(np.nanargmax(d)), d.shape) if d.size else ()
            return (f"output '{name}': max abs err {float(d[i]):.3g} at {tuple(int(x) for x in i)}"
                    f" (got {g[i]}, expected {w[i]})")
        return None
    if not np.array_equal(got, want):
        return f"output '{name}': {int((got != want).sum())} of {want.size} elements differ"
    return None


def run_test(test, args):
    with tempfile.TemporaryDirectory(prefix="kiln-node-") as tmp:
        return run_test_in(test, args, tmp)


def run_test_in(test, args, tmp):
    r = {"name": test.name, "ops": test.op_types, "model": test.model_path}
    arrays, in_err = load_inputs(test)
    extra = shape_args(test, arrays) if arrays else []
    frozen = [n for n in test.frozen if arrays and n in arrays] if args.freeze else []
    for name in frozen:
        npy = os.path.join(tmp, f"value{len(extra)}.npy")
        np.save(npy, arrays[name])
        extra += ["--input-value", f"{name}={npy}"]
    r["frozen_inputs"] = frozen
    opt = ["-O" + args.opt] if args.opt else []
    cmd = [args.kilnc, test.model_path, "--emit=graph"] + opt + extra
    status, rc, _, err, dt = run_tool(cmd, args.timeout)
    r.update(import_status=status, import_rc=rc, import_errors=err, import_s=round(dt, 3))
    if status == "fail" and not err:
        r["import_errors"] = ["(kilnc exited %d and printed no error)" % rc]
    r["error_format_ok"] = status != "fail" or (bool(err) and all(ERROR_LINE.match(l) for l in err))
    if not args.evaluate or status != "pass":
        return r
    if arrays is None:
        r.update(eval_status="skip", eval_errors=[in_err])
        return r
    inp, out = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
    try:
        np.savez(inp, **{k: v for k, v in arrays.items() if k not in frozen})
    except Exception as e:
        r.update(eval_status="skip", eval_errors=[f"cannot write inputs: {e}"])
        return r
    if args.backend in ("gpu", "compile"):
        # Compile an engine (NVRTC) and run it on the GPU through kiln-run.
        engine = os.path.join(tmp, "model.engine")
        cmd = [args.kilnc, test.model_path, "-o", engine] + opt + extra
        status, rc, _, err, dt = run_tool(cmd, args.timeout)
        r.update(compile_s=round(dt, 3))
        if status != "pass":
            r.update(eval_status=status, eval_errors=err or [f"(kilnc exited {rc})"])
            return r
        if args.backend == "compile":
            # No GPU: the engine (every kernel through NVRTC) is the result.
            r.update(eval_status="pass", eval_errors=[])
            return r
        cmd = [args.kiln_run, engine, "--inputs", inp, "--outputs", out]
    else:
        cmd = [args.kiln_eval, test.model_path, "--inputs", inp, "--outputs", out] + extra
    status, rc, _, err, dt = run_tool(cmd, args.eval_timeout)
    r.update(eval_s=round(dt, 3))
    if status != "pass":
        r.update(eval_status=status, eval_errors=err or [f"(kiln-eval exited {rc})"])
        return r
    try:
        want = load_outputs(test)
        with np.load(out, allow_pickle=False) as z:
            got = {k: z[k] for k in z.files}
    except Exception as e:
        r.update(eval_status="fail", eval_errors=[f"cannot read outputs: {e}"])
        return r
    reasons = []
    for name, w in want.items():
        if name not in got:
            reasons.append(f"output '{name}' missing from kiln-eval's npz (has {sorted(got)})")
            continue
        why = compare(name, got[name], w)
        if why:
            reasons.append(why)
    r.update(eval_status="fail" if reasons else "pass", eval_errors=reasons)
    return r


def normalize(line):
    """A failure's cause without path, node name and numbers, for grouping."""
    m = ERROR_LINE.match(line)
    if m:
        line = (f"({m.group('op')}) " if m.group("op") else "") + m.group("msg")
    line = re.sub(r"'[^']*'( \([^)]*\))?", "'…'", line)
    return re.sub(r"\b\d+\b", "N", line)


def first_line(errs, model_path=None):
    """The first error line (without the model path kilnc starts it with)."""
    if not errs:
        return ""
    line = errs[0]
    if model_path and line.startswith(model_path + ": "):
        line = line[len(model_path) + 2:]
    return line + (f"  (+{len(errs) - 1} more lines)" if len(errs) > 1 else "")


def parse_rate(s):
    v = float(s.rstrip("%")) / (100.0 if s.endswith("%") else 1.0)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError("a rate is a fraction in [0, 1] or a percentage like 85%")
    return v


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", help="folder of node tests (default: the onnx package's)")
    p.add_argument("--kilnc", help="kilnc binary (default: PATH, then build/bin)")
    p.add_argument("--kiln-eval", help="kiln-eval binary (default: beside kilnc, PATH, build/bin)")
    p.add_argument("--evaluate", action="store_true", help="also run the model and compare outputs")
    p.add_argument("--backend", choices=["eval", "gpu", "compile"], default="eval",
                   help="with --evaluate: kiln-eval on the CPU, an engine on the GPU through "
                        "kiln-run, or only compile the engine (NVRTC, no GPU needed)")
    p.add_argument("--kiln-run", help="kiln-run binary (default: beside kilnc, PATH, build/bin)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per kilnc run")
    p.add_argument("--eval-timeout", type=float, default=120.0, help="seconds per kiln-eval run")
    p.add_argument("-O", dest="opt", choices="0123", help="pass -ON to kilnc")
    p.add_argument("--no-freeze", dest="freeze", action="store_false",
                   help="do not freeze graph inputs that feed shape operands (--input-value)")
    p.add_argument("--filter", help="only tests whose name matches this regex (re.search)")
    p.add_argument("--sample", type=int, metavar="K",
                   help="deterministic subset: every K-th selected test in name order")
    p.add_argument("--json", metavar="FILE", help="write per-test results here")
    p.add_argument("--min-pass-rate", type=parse_rate, metavar="R",
                   help="exit 1 unless imported/selected >= R (0.9 or 90%%)")
    p.add_argument("--min-eval-pass-rate", type=parse_rate, metavar="R",
                   help="with --evaluate: exit 1 unless numerically-passing/selected >= R")
    p.add_argument("--min-selected", type=int, metavar="N",
                   help="exit 1 if fewer than N tests are selected (guards the rate's denominator)")
    p.add_argument("--list", action="store_true", help="list the selected tests and exit")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    a = p.parse_args()

    data = a.data or default_data_dir()
    dirs = sorted(d for d in glob.glob(os.path.join(data, "*"))
                  if os.path.isfile(os.path.join(d, "model.onnx")))
    if not dirs:
        print(f"node_suite: error: no */model.onnx under '{data}'", file=sys.stderr)
        return 2
    tests, unreadable = [], []
    for d in dirs:
        name = os.path.basename(d)
        if a.filter and not re.search(a.filter, name):
            continue
        try:
            tests.append(Test(name, d))
        except Exception as e:
            unreadable.append((name, str(e)))
    total = len(tests)
    selected = [t for t in tests if t.selected]
    if a.sample and a.sample > 1:
        selected = selected[::a.sample]
    if a.list:
        for t in selected:
            print(t.name, " ".join(t.op_types))
        return 0
    if not selected:
        print("node_suite: error: no test selected", file=sys.stderr)
        return 2

    a.kilnc = find_tool("kilnc", a.kilnc)
    if not a.kilnc:
        print("node_suite: error: kilnc not found (--kilnc, PATH or build/bin)", file=sys.stderr)
        return 2
    if a.evaluate and a.backend == "compile":
        pass
    elif a.evaluate and a.backend == "gpu":
        a.kiln_run = find_tool("kiln-run", a.kiln_run, beside=a.kilnc)
        if not a.kiln_run:
            print("node_suite: error: kiln-run not found (--kiln-run, beside kilnc, PATH or "
                  "build/bin)", file=sys.stderr)
            return 2
    elif a.evaluate:
        a.kiln_eval = find_tool("kiln-eval", a.kiln_eval, beside=a.kilnc)
        if not a.kiln_eval:
            print("node_suite: error: kiln-eval not found (--kiln-eval, beside kilnc, PATH or "
                  "build/bin)", file=sys.stderr)
            return 2

    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda t: run_test(t, a), selected))
    wall = time.monotonic() - t0

    imported = [r for r in results if r["import_status"] == "pass"]
    failed = [r for r in results if r["import_status"] != "pass"]
    bad_format = [r for r in failed if not r["error_format_ok"]]
    n, m = len(imported), len(results)

    out = []
    if not a.quiet:
        for r in failed:
            tag = {"fail": "FAIL", "crash": "CRASH", "timeout": "TIMEOUT"}[r["import_status"]]
            out.append(f"{tag} {r['name']}: {first_line(r['import_errors'], r['model'])}")
        if a.evaluate:
            for r in results:
                if r.get("eval_status") not in (None, "pass"):
                    out.append(f"EVAL-{r['eval_status'].upper()} {r['name']}: "
                               f"{first_line(r['eval_errors'], r['model'])}")
        causes = collections.Counter(normalize(r["import_errors"][0]) for r in failed
                                     if r["import_errors"])
        if causes:
            out.append("import failures by cause:")
            out += [f"  {c:4d}  {k}" for k, c in causes.most_common()]
        if bad_format:
            out.append(f"{len(bad_format)} failures did not print errors in the one-line format:")
            out += [f"  {r['name']}" for r in bad_format]
    for name, e in unreadable:
        out.append(f"UNREADABLE {name}: {e}")

    if a.evaluate:
        table = collections.defaultdict(lambda: [0, 0, 0, 0])  # tests, imported, eval pass, fail
        for r in results:
            for op in r["ops"]:
                row = table[op]
                row[0] += 1
                if r["import_status"] == "pass":
                    row[1] += 1
                    row[2 if r.get("eval_status") == "pass" else 3] += 1
        out.append(f"{'op':<20} {'tests':>6} {'import':>6} {'eval ok':>7} {'eval bad':>8}")
        for op in sorted(table):
            t, i, ok, bad = table[op]
            out.append(f"{op:<20} {t:6d} {i:6d} {ok:7d} {bad:8d}")
        untested = sorted(KILN_IMPORT_OPS - set(table))
        if untested and not (a.filter or a.sample):
            out.append("ops of the import list in no selected test: " + " ".join(untested))

    which = f"node tests matching --filter '{a.filter}'" if a.filter else "node tests"
    if a.sample and a.sample > 1:
        which += f", every {a.sample}th selected (--sample)"
    out.append(f"selected {m} of {total} {which} (all ops in Kiln's import list) from {data}; "
               f"{a.jobs} jobs, {wall:.1f} s")
    if a.freeze:
        nf = sum(bool(r["frozen_inputs"]) for r in results)
        out.append(f"{nf} tests had graph inputs that feed shape operands frozen from "
                   f"test_data_set_0 with --input-value (--no-freeze: off)")
    out.append(f"import: {n} passed of {m} selected ({100.0 * n / m:.1f}%), "
               f"{sum(r['import_status'] == 'crash' for r in results)} crashed, "
               f"{sum(r['import_status'] == 'timeout' for r in results)} timed out")
    ev_ok = sum(r.get("eval_status") == "pass" for r in results)
    if a.evaluate:
        out.append(f"evaluate: {ev_ok} passed of {n} imported, {ev_ok} of {m} selected "
                   f"({100.0 * ev_ok / m:.1f}%) at rtol {RTOL:g}, atol {ATOL:g}; "
                   f"{sum(r.get('eval_status') == 'crash' for r in results)} crashed, "
                   f"{sum(r.get('eval_status') == 'timeout' for r in results)} timed out")
    print("\n".join(out))

    if a.json:
        with open(a.json, "w") as f:
            json.dump({"data": data, "total_tests": total, "selected": m, "imported": n,
                       "evaluated_ok": ev_ok if a.evaluate else None, "wall_s": round(wall, 2),
                       "kilnc": a.kilnc, "results": results}, f, indent=1)

    rc = 0
    if a.min_selected is not None and m < a.min_selected:
        print(f"node_suite: error: only {m} tests selected, --min-selected is {a.min_selected}",
              file=sys.stderr)
        rc = 1
    if a.min_pass_rate is not None and n < a.min_pass_rate * m:
        print(f"node_suite: error: import pass rate {n}/{m} = {n / m:.3f} is below "
              f"--min-pass-rate {a.min_pass_rate:g}", file=sys.stderr)
        rc = 1
    if a.evaluate and a.min_eval_pass_rate is not None and ev_ok < a.min_eval_pass_rate * m:
        print(f"node_suite: error: evaluate pass rate {ev_ok}/{m} = {ev_ok / m:.3f} is below "
              f"--min-eval-pass-rate {a.min_eval_pass_rate:g}", file=sys.stderr)
        rc = 1
    crashed = [f"{r['name']} ({'kilnc' if r['import_status'] == 'crash' else 'kiln-eval'})"
               for r in results
               if r["import_status"] == "crash" or r.get("eval_status") == "crash"]
    if crashed:
        print(f"node_suite: error: a crash fails the run whatever the pass rate; crashed on: "
              f"{', '.join(crashed)}", file=sys.stderr)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
