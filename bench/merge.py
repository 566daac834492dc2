#!/usr/bin/env python3
"""Merges run JSON files (bench/run.py) into one table: markdown, JSON and a
PNG chart. Later runs replace earlier ones for the same (model, shape, dtype).

Usage: merge.py RESULTS_DIR            every run-*.json in it -> RESULTS_DIR/table.{md,json,png}
       merge.py -o OUTDIR A.json B.json ...
       merge.py --baseline A.json ...  the curated summary: table.{md,json} (no PNG) in
                                       bench/baselines/<date>-<gpu>/ of the last run
"""
import argparse
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

PEERS = ["eager", "compile-default", "compile-reduce-overhead", "compile-max-autotune"]
SIDES = PEERS + ["kiln"]
# The zoo's models in table order (bench/zoo.py ORDER; torch-free here).
MODELS = ["bert-base", "gpt2-small", "llama-1b", "vit-b16", "resnet50"]
SHORT = {"eager": "eager", "compile-default": "compile", "compile-reduce-overhead": "reduce-ovh",
         "compile-max-autotune": "max-autotune", "kiln": "Kiln"}


def cell(side):
    """What the table shows for one side: a time, FAIL, KILN-FAIL or '-'."""
    if not side:
        return "-"
    st = side.get("status")
    if st == "PASS":
        spread = ""
        if side.get("min_ms") is not None and side.get("max_ms") is not None:
            spread = f" ({side['min_ms']:.3f}-{side['max_ms']:.3f})"
        # basis fp32: farther than the tolerance from eager, but at least as
        # close to the fp32 result as eager in the same precision is.
        mark = "*" if side.get("basis") == "fp32" else ""
        return f"{side['median_ms']:.3f}{mark}{spread}"
    if st == "FAIL":
        return f"FAIL ({side.get('rel_err', float('nan')):.1e})"
    return st or "-"


def ratio(row, peer):
    k, p = row["sides"].get("kiln"), row["sides"].get(peer)
    if not k or not p or k.get("status") != "PASS" or p.get("status") != "PASS":
        return None
    return k["median_ms"] / p["median_ms"]


def merge_rows(runs):
    key = {}
    for run in runs:
        for r in run["rows"]:
            k = (r["model"], r["shape"], r["dtype"])
            old = key.get(k)
            if old is None:
                key[k] = dict(r, sides=dict(r["sides"]), env=run.get("env", {}))
            else:  # later sides replace earlier ones, others kept
                old["sides"].update(r["sides"])
                old["env"] = run.get("env", {})
    order = {m: i for i, m in enumerate(MODELS)}
    return sorted(key.values(), key=lambda r: (order.get(r["model"], 99), r["model"],
                                               [int(x) for x in r["shape"].split("x")],
                                               r["dtype"] != "fp16"))


def markdown(rows, envs):
    lines = []
    seen = set()
    for e in envs:
        t = (e.get("gpu"), e.get("driver"), e.get("torch"), e.get("cuda"))
        if t in seen:
            continue
        seen.add(t)
        lines.append(f"- {e.get('date')} {e.get('time', '')}: GPU {e.get('gpu')}, driver {e.get('driver')}, "
                     f"torch {e.get('torch')}, CUDA {e.get('cuda')}, cuDNN {e.get('cudnn')}, "
                     f"transformers {e.get('transformers')}, torchvision {e.get('torchvision')}, "
                     f"kiln {e.get('kiln')}")
    lines += ["", "Median latency in ms with (min-max) over the timed runs (CUDA events on both sides; "
              "runs and warm-up in the JSON). "
              "Kiln/peer ratio: below 1 means Kiln is faster. FAIL: output differs from PyTorch "
              "eager at the same precision by more than the tolerance (fp32 1e-3, fp16 2e-2, bf16 5e-2 of "
              "the max magnitude; a time marked * is farther than that from eager but at least as close "
              "to the fp32 result as eager itself, with eager within 10x the tolerance of it; both distances "
              "in the JSON); KILN-FAIL: kilnc or kiln-run failed (first error line below).", ""]
    hdr = ["model", "shape", "dtype"] + [SHORT[s] for s in SIDES] + \
          [f"Kiln/{SHORT[p]}" for p in PEERS] + ["kilnc s", "Kiln launches", "compile s (d/ro/ma)"]
    lines.append("| " + " | ".join(hdr) + " |")
    lines.append("|" + "---|" * len(hdr))
    notes = []
    for r in rows:
        s = r["sides"]
        rat = []
        for p in PEERS:
            x = ratio(r, p)
            rat.append("-" if x is None else f"{x:.2f}")
        comp = "/".join("-" if not s.get(p) or s[p].get("compile_s") is None else f"{s[p]['compile_s']:.0f}"
                        for p in PEERS[1:])
        kc = s.get("kiln", {}).get("compile_s")
        nl = s.get("kiln", {}).get("launches")
        lines.append("| " + " | ".join([r["model"], r["shape"], r["dtype"]] + [cell(s.get(x)) for x in SIDES]
                                       + rat + ["-" if kc is None else f"{kc:.1f}",
                                                "-" if nl is None else str(nl), comp]) + " |")
        for side in SIDES:
            if s.get(side, {}).get("error"):
                notes.append(f"- {r['model']} {r['shape']} {r['dtype']} {side}: {s[side]['error']}")
    if notes:
        lines += ["", "Errors:", ""] + notes
    return "\n".join(lines) + "\n"


def chart(rows, path):
    """Grouped bars: per row, each side's median relative to eager (lower is
    better); a missing/failed side leaves a gap. Skipped without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    labels, data = [], {s: [] for s in SIDES}
    for r in rows:
        e = r["sides"].get("eager")
        base = e["median_ms"] if e and e.get("status") == "PASS" else None
        labels.append(f"{r['model']}\n{r['shape']} {r['dtype']}")
        for s in SIDES:
            v = r["sides"].get(s)
            ok = base and v and v.get("status") == "PASS"
            data[s].append(v["median_ms"] / base if ok else math.nan)
    n = len(labels)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * n), 5))
    w = 0.8 / len(SIDES)
    for i, s in enumerate(SIDES):
        ax.bar([j + (i - len(SIDES) / 2 + 0.5) * w for j in range(n)], data[s], w, label=SHORT[s])
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xticks(range(n))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("latency / PyTorch eager (lower is better)")
    ax.legend(fontsize=8)
    ax.set_title("Kiln vs PyTorch, median latency")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# run.py's defaults: a baseline's command line names only what differs.
RUN_DEFAULTS = dict(runs=100, warmup=20, exporter="auto", kilnc_args="", kiln_precision=None, seed=0)


def run_command(args):
    """The bench/run.py command line that a run's recorded arguments stand for."""
    cmd = ["python3 bench/run.py"] + (["--quick"] if args.get("quick") else [])
    for key in ("models", "shapes", "dtypes", "peers") + tuple(RUN_DEFAULTS):
        v = args.get(key)
        if v is None or v == RUN_DEFAULTS.get(key) or (key == "models" and v == ",".join(MODELS)):
            continue
        cmd.append(f"--{key.replace('_', '-')}={v}" if str(v).startswith("-") else
                   f"--{key.replace('_', '-')} {v}")
    return " ".join(cmd)


def write_baseline(runs, root=None):
    """The curated summary of runs (bench/run.py JSON): table.md (the command
    lines, environment and table) and table.json (what the table shows) in
    root/<date>-<gpu>/ (root default bench/baselines/) of the last run.
    Returns that folder."""
    import common
    envs = [r.get("env", {}) for r in runs]
    d = common.results_dir(envs[-1], root or common.BASELINES)
    rows = merge_rows(runs)
    cmds = list(dict.fromkeys(run_command(e.get("args", {})) for e in envs))
    md = (f"# Kiln against PyTorch: {envs[-1].get('gpu')}, {envs[-1].get('date')}\n\n"
          + "Measured with\n\n" + "".join(f"    {c}\n" for c in cmds) + "\n" + markdown(rows, envs))
    with open(os.path.join(d, "table.md"), "w") as f:
        f.write(md)
    common.write_json(os.path.join(d, "table.json"), dict(commands=cmds, envs=envs, rows=rows))
    return d


def write_table(runs, outdir, stem="table"):
    from common import write_json
    rows = merge_rows(runs)
    envs = [r.get("env", {}) for r in runs]
    md = markdown(rows, envs)
    with open(os.path.join(outdir, stem + ".md"), "w") as f:
        f.write(md)
    write_json(os.path.join(outdir, stem + ".json"), dict(envs=envs, rows=rows))
    has_png = chart(rows, os.path.join(outdir, stem + ".png"))
    return md, has_png


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", help="a results dir, or run JSON files")
    p.add_argument("-o", "--out", help="output dir (default: the results dir / the first file's dir)")
    p.add_argument("--baseline", action="store_true",
                   help="write the curated table.{md,json} to bench/baselines/<date>-<gpu>/ instead")
    a = p.parse_args(argv)
    files = []
    for x in a.paths:
        if not os.path.exists(x):
            p.error(f"no such file or directory: {x}")
        files += sorted(glob.glob(os.path.join(x, "run-*.json"))) if os.path.isdir(x) else [x]
    if not files:
        print("no run-*.json found", file=sys.stderr)
        return 1
    runs = []
    for fn in files:
        with open(fn) as f:
            runs.append(json.load(f))
    runs.sort(key=lambda r: (r.get("env", {}).get("date", ""), r.get("env", {}).get("time", "")))
    if a.baseline:
        d = write_baseline(runs)
        with open(os.path.join(d, "table.md")) as f:
            print(f.read())
        print(f"wrote {d}/table.md, table.json")
        return 0
    out = a.out or (a.paths[0] if os.path.isdir(a.paths[0]) else os.path.dirname(os.path.abspath(files[0])))
    os.makedirs(out, exist_ok=True)
    md, png = write_table(runs, out)
    print(md)
    print(f"wrote {out}/table.md, table.json" + (", table.png" if png else " (no matplotlib: no PNG)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
