#!/usr/bin/env python3
"""Verdict on one benchmark result, and the same rows measured with two
builds side by side.

  compare.py NEW.json [--base BASE.json] [--noise 0.03]

NEW.json is a bench/run.py run (rows of model, shape, dtype with sides) or a
bench/micro.py run (rows of section, case, dtype with peers). One line a row:
PASS when Kiln's output matched the reference (its time counted), FAIL (or
KILN-FAIL) otherwise; Kiln's median, the fastest PyTorch side's and Kiln over
it. With --base (the same rows measured with older binaries, in the same
call), each row also shows the base build's Kiln median and new / base, and
the row fails when new / base leaves 1 +- --noise. Exits 1 when a row fails
or no row was measured.
"""
import argparse
import json
import sys


def rows_of(run):
    """{(label, dtype): (kiln side, {peer: side})} for run.py and micro.py JSON."""
    out = {}
    for r in run.get("rows", []):
        if "sides" in r:  # bench/run.py
            label, sides = f"{r['model']} {r['shape']}", r["sides"]
        elif "peers" in r:  # bench/micro.py
            label, sides = f"{r['section']} {r['case']}", r["peers"]
        else:
            continue
        kiln = sides.get("kiln")
        if kiln is None:
            continue
        torch = {k: v for k, v in sides.items() if not k.startswith("kiln")}
        out[(label, r.get("dtype", ""))] = (kiln, torch)
    return out


def median(side):
    if side and side.get("status") == "PASS" and side.get("median_ms") is not None:
        return float(side["median_ms"])
    return None


def best_torch(peers):
    """(name, median) of the fastest PyTorch side that passed, or None."""
    timed = [(m, n) for n, s in peers.items() for m in [median(s)] if m is not None]
    return (min(timed)[1], min(timed)[0]) if timed else None


def ms(x):
    return "-" if x is None else f"{x:.4f}"


def verdict(new, base=None, noise=0.03):
    """(lines, failures): a markdown table of the rows and the count that fail."""
    hdr = ["row", "dtype", "result", "Kiln ms", "best PyTorch (ms)", "Kiln/PyTorch"]
    if base is not None:
        hdr += ["base Kiln ms", "new/base"]
    lines = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    failures = 0
    for key, (kiln, peers) in new.items():
        k = median(kiln)
        bt = best_torch(peers)
        ok = k is not None
        cells = [key[0], key[1], "", ms(k), "-" if bt is None else f"{bt[1]:.4f} ({bt[0]})",
                 "-" if k is None or bt is None else f"{k / bt[1]:.2f}"]
        why = "" if ok else (kiln.get("status") or "no time")
        if base is not None:
            b = median(base[key][0]) if key in base else None
            r = None if k is None or b is None else k / b
            cells += [ms(b), "-" if r is None else f"{r:.3f}"]
            if r is None:
                ok, why = False, why or "no base time"
            elif abs(r - 1) > noise:
                ok, why = False, f"new/base {r:.3f} outside 1 +- {noise:g}"
        cells[2] = "PASS" if ok else f"FAIL ({why})"
        failures += not ok
        lines.append("| " + " | ".join(cells) + " |")
    return lines, failures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("new", help="run.py or micro.py JSON")
    p.add_argument("--base", help="the same rows measured with the base binaries")
    p.add_argument("--noise", type=float, default=0.03,
                   help="largest |new/base - 1| that counts as unchanged (default 0.03)")
    a = p.parse_args(argv)
    with open(a.new) as f:
        new = rows_of(json.load(f))
    base = None
    if a.base:
        with open(a.base) as f:
            base = rows_of(json.load(f))
    lines, failures = verdict(new, base, a.noise)
    print("\n".join(lines))
    print(f"compare: {len(new) - failures} of {len(new)} rows pass")
    return 0 if new and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
