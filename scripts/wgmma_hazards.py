#!/usr/bin/env python3
"""Finds reads of wgmma accumulators that the SASS schedules while a wgmma
group may still be writing them.

PTX lets a thread touch a wgmma.mma_async's accumulators only after a
wgmma.wait_group that covers it. ptxas 13.0 has been seen to schedule the
epilogue's reads of the accumulators (F2FP conversions) above the final
`WARPGROUP.DEPBAR.LE gsb0, 0x0`, right behind the k loop's `DEPBAR.LE gsb0,
0x1`: the last k tile's group is still in flight and the tile comes out
wrong (the staged swap_ab epilogue at 64 x 128 tiles; docs/design-notes.md,
"the product as its transpose").

The scan is linear over each function's SASS: an HGMMA puts its accumulator
registers (Rd .. Rd + N/2 - 1 of an HGMMA.64xN F32) in flight, `DEPBAR.LE
gsb0, 0x0` retires them all, and any other instruction that reads one of
them in between is reported. Writes (the first register operand of an ALU
instruction) are not reads. Linear order is what the hazard looks like: the
k loop's back edge branches up, the epilogue falls through below it.

Usage:
  wgmma_hazards.py [--nvdisasm PATH] [--inspect PATH] [--which] FILE...
FILE is an engine (its cubin sections are extracted with kiln-inspect), a
cubin, or nvdisasm's text (.sass). Exit status 1 when a hazard is found, 2
when a tool is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

INS = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
HGMMA = re.compile(r"HGMMA\.64x(\d+)x\d+\.F32\S*\s+R(\d+)")
FUNC = re.compile(r"^\s*\.text\.(\S+):")
REG = re.compile(r"\bR(\d+)\b")
# Instructions whose every register operand is read (no destination).
NO_DEST = ("ST", "BAR", "SYNCS", "RED", "ATOM", "BRA", "EXIT", "RET")


def scan_text(text):
    """[(function, address, instruction)] of the hazards in nvdisasm text."""
    hits, fn, pending = [], "?", set()
    for line in text.splitlines():
        f = FUNC.match(line)
        if f:
            fn, pending = f.group(1), set()
            continue
        m = INS.search(line)
        if not m:
            continue
        addr, ins = m.groups()
        words = ins.split()
        if words and words[0].startswith("@"):
            words = words[1:]
        if not words:
            continue
        op = words[0]
        h = HGMMA.search(ins)
        if h:
            base, n = int(h.group(2)), int(h.group(1))
            pending |= set(range(base, base + n // 2))
            continue
        if op.startswith("WARPGROUP.DEPBAR") and "gsb0, 0x0" in ins:
            pending = set()
            continue
        if not pending:
            continue
        regs = [int(r) for r in REG.findall(" ".join(words[1:]))]
        reads = regs if op.startswith(NO_DEST) else regs[1:]
        if any(r in pending for r in reads):
            hits.append((fn, addr, ins))
    return hits


def disassemble(nvdisasm, cubin):
    r = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"nvdisasm {cubin}: {r.stderr.strip()}")
    return r.stdout


def cubins_of_engine(inspect, engine, tmp):
    """Extracts the engine's cubin sections; returns their paths."""
    r = subprocess.run([inspect, engine], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"kiln-inspect {engine}: {r.stderr.strip()}")
    out = []
    for m in re.finditer(r"^\s*(\d+) cubin\s", r.stdout, re.M):
        p = os.path.join(tmp, f"{os.path.basename(engine)}.{m.group(1)}.cubin")
        x = subprocess.run([inspect, engine, "--extract-section", m.group(1), "-o", p],
                           capture_output=True, text=True)
        if x.returncode:
            raise RuntimeError(f"kiln-inspect {engine}: {x.stderr.strip()}")
        out.append(p)
    return out


def pip_nvdisasm():
    """nvdisasm from the nvidia-cuda-nvdisasm wheel (scripts/bootstrap.sh
    installs it: the CUDA toolkit here has ptxas but no nvdisasm)."""
    for d in sys.path:
        for cu in ("cu13", "cu12"):
            c = os.path.join(d or ".", "nvidia", cu, "bin", "nvdisasm")
            if os.path.exists(c):
                return c
    return None


def find_tool(given, name, extra=()):
    for c in ([given] if given else []) + [shutil.which(name)] + list(extra):
        if c and os.path.exists(c):
            return c
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nvdisasm")
    p.add_argument("--inspect", help="kiln-inspect (for engines)")
    p.add_argument("-q", "--quiet", action="store_true", help="print hazards only")
    p.add_argument("--which", action="store_true", help="print the nvdisasm found and exit (1: none)")
    p.add_argument("files", nargs="*")
    a = p.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    nvdisasm = find_tool(a.nvdisasm, "nvdisasm", ["/usr/local/cuda/bin/nvdisasm", pip_nvdisasm()])
    inspect = find_tool(a.inspect, "kiln-inspect", [os.path.join(here, "..", "build", "bin", "kiln-inspect")])
    if a.which:
        print(nvdisasm or "")
        return 0 if nvdisasm else 1
    if not a.files:
        p.error("no FILE")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in a.files:
            try:
                if f.endswith(".sass"):
                    texts = [open(f).read()]
                else:
                    if not nvdisasm:
                        print("error: nvdisasm not found (pip install nvidia-cuda-nvdisasm, or --nvdisasm)",
                              file=sys.stderr)
                        return 2
                    if f.endswith(".cubin"):
                        cubins = [f]
                    elif inspect:
                        cubins = cubins_of_engine(inspect, f, tmp)
                    else:
                        print("error: kiln-inspect not found (--inspect)", file=sys.stderr)
                        return 2
                    texts = [disassemble(nvdisasm, c) for c in cubins]
            except (OSError, RuntimeError) as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
            hits = [h for t in texts for h in scan_text(t)]
            if hits:
                bad += 1
                print(f"{f}: HAZARD: {len(hits)} reads of in-flight wgmma accumulators, first "
                      f"{hits[0][0]} at {hits[0][1]}: {hits[0][2]}")
            elif not a.quiet:
                print(f"{f}: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
