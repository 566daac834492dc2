"""Model zoo of the benchmarks: random-weight models at fixed shapes,
exported once with torch.onnx and cached under a work dir.

Rows (model, shape): bert-base 1x128, 32x128; gpt2-small 1x128, 8x512;
llama-1b 1x2048 (transformers LlamaConfig: hidden 2048, 16 layers, 32 heads,
8 kv heads, intermediate 8192: RMSNorm, rotary, SiLU MLP, GQA);
vit-b16 1, 64 (torchvision vit_b_16, else transformers ViTModel);
resnet50 1, 64 (torchvision). Each precision gets its own export: the fp16
ONNX comes from module.half() (Kiln has no --precision conversion yet).

BERT, GPT-2 and the Llama use transformers' sdpa attention for the PyTorch
peers; the export falls back to eager attention (the same numbers) when the
exporter cannot take the sdpa path.
"""
import copy
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "models"))
import make_models  # noqa: E402  (build_module, SPECS, _supported_kwargs)

# name -> family facts (torch-free). shapes: (batch, seq) or (batch,) for images.
MODELS = {
    "bert-base": dict(kind="text", vocab=30522, shapes=[(1, 128), (32, 128)],
                      inputs=["input_ids", "attention_mask"],
                      outputs=["last_hidden_state", "pooler_output"]),
    "gpt2-small": dict(kind="text", vocab=50257, shapes=[(1, 128), (8, 512)],
                       inputs=["input_ids", "attention_mask"], outputs=["last_hidden_state"]),
    "llama-1b": dict(kind="text", vocab=32000, shapes=[(1, 2048)],
                     inputs=["input_ids"], outputs=["last_hidden_state"]),
    "vit-b16": dict(kind="image", shapes=[(1,), (64,)], inputs=["pixel_values"], outputs=["output"]),
    "resnet50": dict(kind="image", shapes=[(1,), (64,)], inputs=["pixel_values"], outputs=["logits"]),
}
ORDER = list(MODELS)
IMAGE = (3, 224, 224)


def shape_str(shape):
    return "x".join(str(d) for d in shape) + ("x224x224" if len(shape) == 1 else "")


def rows(models=None):
    """[(model, shape)] in table order."""
    out = []
    for m in (models or ORDER):
        if m not in MODELS:
            raise ValueError(f"unknown model '{m}' (known: {', '.join(ORDER)})")
        out += [(m, s) for s in MODELS[m]["shapes"]]
    return out


def input_shapes(name, shape):
    f = MODELS[name]
    if f["kind"] == "text":
        return {n: tuple(shape) for n in f["inputs"]}
    return {"pixel_values": (shape[0],) + IMAGE}


def make_inputs(name, shape, dtype, seed):
    """Fresh non-zero numpy inputs: token ids in [1, vocab), mask of ones,
    pixels N(0,1) in the row's precision."""
    f = MODELS[name]
    rng = np.random.default_rng([seed, len(name), *shape])
    if f["kind"] == "text":
        out = {"input_ids": rng.integers(1, f["vocab"], size=shape, dtype=np.int64)}
        if "attention_mask" in f["inputs"]:
            out["attention_mask"] = np.ones(shape, dtype=np.int64)
        return out
    x = rng.standard_normal((shape[0],) + IMAGE).astype(np.float32)
    x[x == 0] = 1e-3
    return {"pixel_values": x.astype(np.float16 if dtype == "fp16" else np.float32)}


# --------------------------------------------------------------------------
# torch side
# --------------------------------------------------------------------------

def _set_attn(module, impl):
    for m in module.modules():
        cfg = getattr(m, "config", None)
        if cfg is not None and hasattr(cfg, "_attn_implementation"):
            try:
                cfg._attn_implementation = impl
            except Exception:  # noqa: BLE001
                pass


def _wrap(inner, input_names, output_names, **fixed):
    import torch

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            out = self.inner(**dict(zip(input_names, args)), return_dict=True, **fixed)
            return tuple(getattr(out, n) for n in output_names)

    return Wrap().eval()


def build(name, seed=0, attn="sdpa"):
    """fp32 module on the CPU, eval mode, random weights (seeded: a re-run
    builds the same weights, so a cached export matches the module)."""
    import torch
    torch.manual_seed(seed)
    if name in ("bert-base", "gpt2-small"):
        m = make_models.build_module(name, seed)  # eager attention there
        _set_attn(m, attn)
        return m
    if name == "llama-1b":
        from transformers import LlamaConfig, LlamaModel
        cfg = LlamaConfig(vocab_size=32000, hidden_size=2048, intermediate_size=8192,
                          num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                          max_position_embeddings=4096, rms_norm_eps=1e-5, use_cache=False)
        cfg._attn_implementation = attn
        return _wrap(LlamaModel(cfg), ["input_ids"], ["last_hidden_state"], use_cache=False)
    if name == "vit-b16":
        try:
            import torchvision
            inner = torchvision.models.vit_b_16(weights=None)
            # torchvision zero-initializes the classifier head, which would
            # make every output 0 and the correctness check vacuous.
            torch.nn.init.normal_(inner.heads.head.weight, std=0.02)
            torch.nn.init.normal_(inner.heads.head.bias, std=0.02)

            class V(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = inner

                def forward(self, x):
                    return (self.inner(x),)
            return V().eval()
        except ImportError:
            from transformers import ViTConfig, ViTModel
            cfg = ViTConfig()
            cfg._attn_implementation = attn
            return _wrap(ViTModel(cfg, add_pooling_layer=False), ["pixel_values"], ["last_hidden_state"])
    if name == "resnet50":
        import torchvision
        inner = torchvision.models.resnet50(weights=None)

        class R(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return (self.inner(x),)
        return R().eval()
    raise ValueError(f"unknown model '{name}'")


def to_torch(inputs, dev="cuda", dtype=None):
    """Tensors on `dev`; with dtype "bf16", float inputs become bfloat16
    (numpy has no bfloat16, so bf16 rows keep float32 arrays)."""
    import torch
    out = []
    for v in inputs.values():
        t = torch.from_numpy(np.ascontiguousarray(v)).to(dev)
        if dtype == "bf16" and t.is_floating_point():
            t = t.to(torch.bfloat16)
        out.append(t)
    return out


def on_device(module, dtype):
    """A copy of the fp32 CPU module on the GPU in the row's precision."""
    import torch
    m = copy.deepcopy(module)
    t = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype, torch.float32)
    return m.to("cuda", dtype=t).eval()


def float_weight_types(path):
    """{onnx elem type name: elements} over the floating-point initializers
    (and Constant nodes) of an ONNX file, without loading external data."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    out = {}

    def add(t):
        if t.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
                           onnx.TensorProto.BFLOAT16, onnx.TensorProto.DOUBLE):
            n = 1
            for d in t.dims:
                n *= d
            k = onnx.TensorProto.DataType.Name(t.data_type)
            out[k] = out.get(k, 0) + n
    for t in m.graph.initializer:
        add(t)
    for node in m.graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                add(a.t)
    return out


def check_precision(path, dtype):
    """None if most floating-point weight elements of the export have the
    row's precision, else the reason (an exporter that did not keep fp16)."""
    want = {"fp16": "FLOAT16", "fp32": "FLOAT", "bf16": "BFLOAT16"}[dtype]
    types = float_weight_types(path)
    total = sum(types.values())
    if total and types.get(want, 0) < 0.5 * total:
        return f"the export's weights are {types}, not {want}"
    return None


def export(name, shape, dtype, module_gpu, workdir, seed, exporter="auto"):
    """Exports module_gpu (already on the GPU in `dtype`) at fixed shapes, or
    reuses the cached export. Returns (onnx path, facts)."""
    import torch
    d = os.path.join(workdir, "onnx", f"{name}-{shape_str(shape)}-{dtype}-s{seed}")
    path = os.path.join(d, "model.onnx")
    mark = os.path.join(d, "done.json")
    if os.path.exists(mark) and os.path.exists(path):
        with open(mark) as f:
            facts = json.load(f)
        if facts.get("torch") == torch.__version__:
            facts["cached"] = True
            return path, facts
    os.makedirs(d, exist_ok=True)
    for fn in os.listdir(d):
        os.remove(os.path.join(d, fn))
    f = MODELS[name]
    ex = make_inputs(name, shape, dtype, seed + 12345)  # not the timed inputs
    args = tuple(to_torch(ex))
    errors = []
    tries = ["torchscript", "dynamo"] if exporter == "auto" else [exporter]
    t0 = time.time()
    for how in tries:
        for attn in (None, "eager"):
            if attn and f["kind"] == "text":
                _set_attn(module_gpu, attn)
            elif attn:
                continue
            base = dict(input_names=f["inputs"], output_names=f["outputs"], export_params=True)
            if how == "torchscript":
                kw = dict(base, dynamo=False, opset_version=17, do_constant_folding=True)
            else:
                kw = dict(base, dynamo=True, opset_version=18, external_data=True, optimize=True,
                          verify=False, report=False, fallback=False)
            kw, _ = make_models._supported_kwargs(torch.onnx.export, kw)
            try:
                with torch.no_grad():
                    torch.onnx.export(module_gpu, args, path, **kw)
                wrong = check_precision(path, dtype)
                if wrong:
                    raise RuntimeError(wrong)
                facts = dict(exporter=how, attn_export=attn or "as-built", torch=torch.__version__,
                             export_s=round(time.time() - t0, 1), seed=seed,
                             weight_types=float_weight_types(path))
                if errors:
                    facts["earlier_errors"] = errors
                with open(mark, "w") as fh:
                    json.dump(facts, fh)
                if attn:
                    _set_attn(module_gpu, "sdpa")
                return path, facts
            except Exception as e:  # noqa: BLE001
                msg = str(e).strip().splitlines()
                errors.append(f"{how}/{attn or 'as-built'}: {type(e).__name__}: {msg[0] if msg else ''}"[:300])
                for fn in os.listdir(d):
                    os.remove(os.path.join(d, fn))
        if f["kind"] == "text":
            _set_attn(module_gpu, "sdpa")
    raise RuntimeError("; ".join(errors))


def main(argv=None):
    """`zoo.py export MODEL SHAPE DTYPE --work DIR [--inputs FILE.npz]`: the
    row's export (cached under DIR/onnx as bench/run.py caches it) and,
    with --inputs, the timed inputs bench/run.py would use. Prints the ONNX
    path, then the kilnc --input-shape value."""
    import argparse
    p = argparse.ArgumentParser(description=main.__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("model", choices=ORDER)
    e.add_argument("shape", help="e.g. 32x128 (batch only for images)")
    e.add_argument("dtype", choices=["fp16", "fp32"])
    e.add_argument("--work", required=True)
    e.add_argument("--inputs", help="write the row's inputs here (npz)")
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--exporter", default="auto", choices=["auto", "torchscript", "dynamo"])
    a = p.parse_args(argv)
    shape = tuple(int(x) for x in a.shape.split("x"))
    if shape not in MODELS[a.model]["shapes"]:
        p.error(f"{a.model} has no shape {a.shape}")
    module = on_device(build(a.model, a.seed), a.dtype)
    path, _ = export(a.model, shape, a.dtype, module, a.work, a.seed, a.exporter)
    if a.inputs:
        np.savez(a.inputs, **make_inputs(a.model, shape, a.dtype, a.seed))
    print(path)
    print(",".join(f"{n}={'x'.join(map(str, s))}" for n, s in input_shapes(a.model, shape).items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
