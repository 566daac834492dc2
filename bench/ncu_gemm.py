#!/usr/bin/env python3
"""Nsight Compute on one GEMM: Kiln's kernel (an engine kilnc builds here)
and cuBLAS's (torch.matmul on the same shapes and layouts), each profiled
once with the full section set, so the two kernels' tensor-pipe activity,
stall reasons, L2 and DRAM traffic and clocks can be compared.

Usage (GPU machine): python3 bench/ncu_gemm.py --bin BIN --work DIR --out DIR
  [--shapes LABEL=M,K,N;...] [--dtype fp16] [--variant NAME=FLAGS ...]
  [--epilogues none,bias,residual,relu,gelu,gelu_tanh]
For each shape (and epilogue kind other than none: OUT/<label>+<kind>-...)
it writes OUT/<label>-<who>.txt (ncu's details page) and
OUT/<label>-<who>.csv (the raw metrics); FLAGS are extra kilnc flags, comma
separated (the default variant "auto" has none). ncu runs with
--clock-control none: the GPU's clocks are left as they are.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import micro  # noqa: E402

TORCH_GEMM = r"""
import sys, torch
m, k, n, dt = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
t = torch.float16 if dt == "fp16" else torch.bfloat16
torch.manual_seed(0)
x = torch.randn(m, k, device="cuda", dtype=t)
w = torch.randn(k, n, device="cuda", dtype=t) / k ** 0.5
for _ in range(5):
    y = torch.matmul(x, w)
torch.cuda.synchronize()
"""


def ncu(cmd, kernel_regex, stem, skip):
    rep = stem + ".ncu-rep"
    base = ["ncu", "--clock-control", "none", "--set", "full", "-k", "regex:" + kernel_regex,
            "--launch-skip", str(skip), "-c", "1", "-f", "-o", stem]
    r = subprocess.run(base + cmd, capture_output=True, text=True, timeout=600)
    if r.returncode or not os.path.exists(rep):
        print(f"ncu failed for {stem}: {(r.stderr or r.stdout)[-800:]}", flush=True)
        return
    for page, ext, extra in (("details", ".txt", []), ("raw", ".csv", ["--csv"])):
        q = subprocess.run(["ncu", "--import", rep, "--page", page] + extra,
                           capture_output=True, text=True, timeout=300)
        with open(stem + ext, "w") as f:
            f.write(q.stdout)
    print(f"ncu {os.path.basename(stem)}: ok", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--shapes", default="bert-ffn1=4096,768,3072")
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=FLAGS: another Kiln kernel (kilnc flags, comma separated)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--epilogues", default="none",
                    help="comma list of epilogue kinds on Kiln's side (micro.onnx_gemm_epilogue)")
    a = ap.parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    variants = [("auto", [])] + [(v.split("=", 1)[0], v.split("=", 1)[1].split(","))
                                 for v in a.variant]
    for item in a.shapes.split(";"):
        label, dims = item.split("=")
        m, k, n = (int(x) for x in dims.split(","))
        for kind in a.epilogues.split(","):
            tag = label if kind == "none" else f"{label}+{kind}"
            model = os.path.join(a.work, f"{tag}.onnx")
            micro.onnx_gemm_epilogue(model, m, k, n, a.dtype, kind)
            for name, flags in variants:
                engine = os.path.join(a.work, f"{tag}-{name}.engine")
                r = subprocess.run([os.path.join(a.bin, "kilnc"), model, "-O3", "-o", engine] + flags,
                                   capture_output=True, text=True)
                if r.returncode:
                    print(f"kilnc {tag} {name}: {r.stderr.strip()[-400:]}", flush=True)
                    continue
                # kiln-run's one run after its warm-up: skip the warm-up launches.
                ncu([os.path.join(a.bin, "kiln-run"), engine, "--seed", "1"], "kiln_matmul",
                    os.path.join(a.out, f"{tag}-kiln-{name}"), 0)
        if not a.no_torch:
            ncu([sys.executable, "-c", TORCH_GEMM, str(m), str(k), str(n), a.dtype],
                "gemm|sm90|cutlass|xmma", os.path.join(a.out, f"{label}-cublas"), 2)


if __name__ == "__main__":
    main()
