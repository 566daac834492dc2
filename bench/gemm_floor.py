#!/usr/bin/env python3
"""The floor a transformer encoder's row cannot go under while its matmuls
run at cuBLAS speed: the layers' GEMMs alone (and with the attention), each
layer's GEMMs at the model's shapes, all layers replayed from one CUDA graph.

A Kiln row that is to be F times faster than a PyTorch mode that takes T ms
must take T / F; when the GEMMs alone take more than that, F needs matmuls
faster than cuBLAS, whatever else is fused. bench/run.py times T in the same
call; this script prints the floors and, with --rows run.json, the largest
speed-up over the best PyTorch mode that the floor leaves.

  gemm        QKV [M, H] x [H, 3H], attention output [M, H] x [H, H],
              FFN1 [M, H] x [H, F], FFN2 [M, F] x [F, H] (torch.matmul into
              preallocated outputs), L layers
  gemm+attn   the same plus scaled_dot_product_attention (flash backend)
              on [B, heads, S, H / heads], causal for GPT-2

Operands are random normal (never zeros). Medians of CUDA events around one
graph replay, after warm-up.

Usage: gemm_floor.py [--models bert-base,gpt2-small] [--shapes 32x128,8x512]
                     [--runs 50] [--rows bench/out/.../run-*.json]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import common  # noqa: E402

# name: (layers, hidden, ffn, heads, causal)
MODELS = {
    "bert-base": (12, 768, 3072, 12, False),
    "gpt2-small": (12, 768, 3072, 12, True),
}
# The large-batch row of each model in bench/run.py's table.
DEFAULT_SHAPES = {"bert-base": "32x128", "gpt2-small": "8x512"}


def floors(model, batch, seq, runs, warmup):
    import torch
    import torch.nn.functional as F
    layers, h, f, heads, causal = MODELS[model]
    m = batch * seq
    dev, dt = "cuda", torch.float16
    g = torch.Generator(device=dev).manual_seed(0)

    def rnd(*shape, scale=1.0):
        return torch.randn(*shape, device=dev, dtype=dt, generator=g) * scale

    x = rnd(m, h)
    mid = rnd(m, f)
    ws = [dict(qkv=rnd(h, 3 * h, scale=h ** -0.5), out=rnd(h, h, scale=h ** -0.5),
               ffn1=rnd(h, f, scale=h ** -0.5), ffn2=rnd(f, h, scale=f ** -0.5))
          for _ in range(layers)]
    o_qkv = torch.empty(m, 3 * h, device=dev, dtype=dt)
    o_h = torch.empty(m, h, device=dev, dtype=dt)
    o_f = torch.empty(m, f, device=dev, dtype=dt)
    q, k, v = (rnd(batch, heads, seq, h // heads) for _ in range(3))

    def step(attn):
        for w in ws:
            torch.matmul(x, w["qkv"], out=o_qkv)
            if attn:
                with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            torch.matmul(x, w["out"], out=o_h)
            torch.matmul(x, w["ffn1"], out=o_f)
            torch.matmul(mid, w["ffn2"], out=o_h)

    out = {}
    flops = 2 * m * layers * (h * 3 * h + h * h + 2 * h * f)
    for label, attn in (("gemm", False), ("gemm+attn", True)):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.no_grad():
            for _ in range(3):
                step(attn)  # cuBLAS workspaces and heuristics before capture
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph), torch.no_grad():
            step(attn)
        r = common.time_cuda(graph.replay, runs, warmup)
        r["tflops_gemm"] = flops / (r["median_ms"] * 1e-3) / 1e12
        out[label] = r
    return out


def best_torch(rows, model, shape):
    """(mode, median ms) of the fastest PyTorch side that passed in
    bench/run.py's JSON for a row (fp16), or None."""
    best = None
    for r in rows.get("rows", []):
        if r.get("model") != model or r.get("shape") != shape or r.get("dtype") != "fp16":
            continue
        for peer, side in r.get("sides", {}).items():
            if peer == "kiln" or side.get("status") != "PASS" or side.get("median_ms") is None:
                continue
            if best is None or side["median_ms"] < best[1]:
                best = (peer, round(side["median_ms"], 4))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="bert-base,gpt2-small")
    ap.add_argument("--shapes", default=None, help="BxS per model, comma-separated (default: the large rows)")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--rows", default=None, help="bench/run.py JSON of the same call: speed-up ceilings")
    ap.add_argument("--out", default=None, help="results directory (default bench/out/<date>-<gpu>)")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("gemm_floor: no CUDA GPU is visible to PyTorch", file=sys.stderr)
        return 2
    models = a.models.split(",")
    for m in models:
        if m not in MODELS:
            print(f"gemm_floor: unknown model {m!r} (known: {', '.join(MODELS)})", file=sys.stderr)
            return 2
    shapes = a.shapes.split(",") if a.shapes else [DEFAULT_SHAPES[m] for m in models]
    if len(shapes) != len(models):
        print("gemm_floor: give one shape per model", file=sys.stderr)
        return 2
    rows = None
    if a.rows:
        with open(a.rows) as fh:
            rows = json.load(fh)
    env = common.environment()
    res = dict(env=env, floors=[])
    print(f"# GEMM floors, {env['gpu']}, {env['date']} {env['time']} (median of {a.runs} graph replays)")
    print("| row | GEMMs ms | TFLOP/s | GEMMs + attention ms | best torch mode ms | ceiling: GEMMs | "
          "ceiling: GEMMs + attention |")
    print("|---|---|---|---|---|---|---|")
    for model, shape in zip(models, shapes):
        b, s = (int(v) for v in shape.split("x"))
        fl = floors(model, b, s, a.runs, a.warmup)
        best = best_torch(rows, model, shape) if rows else None
        def ceil(label):
            return f"{best[1] / fl[label]['median_ms']:.2f}x" if best else "-"
        print(f"| {model} {shape} | {fl['gemm']['median_ms']:.3f} | {fl['gemm']['tflops_gemm']:.0f} | "
              f"{fl['gemm+attn']['median_ms']:.3f} | {f'{best[1]} ({best[0]})' if best else '-'} | "
              f"{ceil('gemm')} | {ceil('gemm+attn')} |")
        res["floors"].append(dict(model=model, shape=shape, best_torch=best, **fl))
    d = a.out or common.results_dir(env)
    path = os.path.join(d, "gemm-floor-" + time.strftime("%H%M%S") + ".json")
    common.write_json(path, res)
    print(f"gemm_floor: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
