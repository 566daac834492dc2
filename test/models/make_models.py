#!/usr/bin/env python3
"""Exports random-weight BERT, GPT-2 and Llama-style models to ONNX, with inputs and ORT outputs.

Runs where torch 2.x, transformers, onnx and onnxruntime are installed (the
GPU machine; no GPU is used). For each model and exporter it writes

  OUTDIR/<name>-<exporter>.onnx        weights embedded, < 1 MiB (small models)
  OUTDIR/<name>-<exporter>.inputs.npz  fresh random inputs named by ONNX input
  OUTDIR/<name>-<exporter>.ort.npz     onnxruntime's outputs named by ONNX output
  OUTDIR/manifest.json                 versions, sizes, op counts, checks

Exporters: `torchscript` (torch.onnx.export dynamo=False, opset 17, batch and
sequence axes dynamic) and `dynamo` (dynamo=True, opset 18, dynamic axes where
torch.export accepts them, else static). A model or exporter that fails is
reported and the others go on; its stale files are removed so that
check_models.py never sees a half-written set.

Usage:
  make_models.py OUTDIR                 the small models (hidden 64, 2 layers, seq 16)
  make_models.py --big OUTDIR           BERT-base and GPT-2 small (random weights),
                                        batch 1 x 128, for import checks on that machine
  make_models.py --dry-run OUTDIR       no torch: a fake exporter writes tiny ONNX
                                        graphs, to test everything after the export
Options: --only NAME[,NAME], --exporters torchscript,dynamo, --seed N.

Exit status: 1 when a model got no file at all or a written file failed a
check (size, embedded weights, onnx.checker, onnxruntime vs torch);
0 otherwise, also when only the dynamo export of a model failed.
"""

import argparse
import collections
import importlib.util
import inspect
import json
import os
import sys
import time
import traceback
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_SMALL_BYTES = 1 << 20
# Larger than transformers' 0.02 so attention is far from uniform and a wrong
# mask, softmax axis or head split changes the outputs visibly.
INIT_RANGE = 0.15
# onnxruntime vs torch on the same inputs: a larger gap means a bad export.
EXPORT_RTOL = 1e-3

# Each model: the input names (int64 [batch, seq]), output names and the axes
# of each output that follow batch/seq. Torch-free, so --dry-run uses it too.
SPECS = {
    "bert": dict(vocab=100, batch=2, seq=16, big=False,
                 inputs=["input_ids", "attention_mask"],
                 outputs={"last_hidden_state": ("batch", "seq"), "pooler_output": ("batch",)}),
    "gpt2": dict(vocab=100, batch=2, seq=16, big=False,
                 inputs=["input_ids", "attention_mask"],
                 outputs={"last_hidden_state": ("batch", "seq")}),
    # Our own module: RMSNorm, rotary embeddings, SiLU MLP, GQA 4 q / 2 kv heads.
    "llama": dict(vocab=100, batch=2, seq=16, big=False,
                  inputs=["input_ids"],
                  outputs={"last_hidden_state": ("batch", "seq")}),
    # transformers' LlamaModel with the same sizes.
    "llama-hf": dict(vocab=100, batch=2, seq=16, big=False,
                     inputs=["input_ids", "attention_mask"],
                     outputs={"last_hidden_state": ("batch", "seq")}),
    "bert-base": dict(vocab=30522, batch=1, seq=128, big=True,
                      inputs=["input_ids", "attention_mask"],
                      outputs={"last_hidden_state": ("batch", "seq"),
                               "pooler_output": ("batch",)}),
    "gpt2-small": dict(vocab=50257, batch=1, seq=128, big=True,
                       inputs=["input_ids", "attention_mask"],
                       outputs={"last_hidden_state": ("batch", "seq")}),
}
SMALL = [n for n, s in SPECS.items() if not s["big"]]
BIG = [n for n, s in SPECS.items() if s["big"]]
EXPORTERS = ["torchscript", "dynamo"]
OPSET = {"torchscript": 17, "dynamo": 18}


def kiln_import_ops():
    """The import list of test/conformance/node_suite.py, if it can be read."""
    path = os.path.join(os.path.dirname(HERE), "conformance", "node_suite.py")
    try:
        spec = importlib.util.spec_from_file_location("kiln_node_suite", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return set(mod.KILN_IMPORT_OPS)
    except Exception:
        return None


def make_inputs(name, base, seed):
    """Fresh random inputs for one file: token ids in [1, vocab) (never all
    zero), attention mask of ones. Seeded by the file name, so a re-run
    writes the same inputs and two files get different ones."""
    s = SPECS[name]
    rng = np.random.default_rng([seed, zlib.crc32(base.encode())])
    shape = (s["batch"], s["seq"])
    out = {"input_ids": rng.integers(1, s["vocab"], size=shape, dtype=np.int64)}
    if "attention_mask" in s["inputs"]:
        out["attention_mask"] = np.ones(shape, dtype=np.int64)
    return out


# --------------------------------------------------------------------------
# torch side: everything that imports torch stays below, called lazily.
# --------------------------------------------------------------------------

def build_module(name, seed):
    import torch
    torch.manual_seed(seed)
    if name in ("bert", "bert-base"):
        from transformers import BertConfig, BertModel
        if name == "bert":
            cfg = BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                             num_attention_heads=2, intermediate_size=256,
                             max_position_embeddings=64, initializer_range=INIT_RANGE)
        else:  # bert-base-uncased's configuration (BertConfig's defaults), random weights
            cfg = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=12,
                             num_attention_heads=12, intermediate_size=3072,
                             max_position_embeddings=512)
        _eager(cfg)
        inner = BertModel(cfg, add_pooling_layer=True)
        return _wrap_hf(inner, ["input_ids", "attention_mask"],
                        ["last_hidden_state", "pooler_output"], use_cache=None)
    if name in ("gpt2", "gpt2-small"):
        from transformers import GPT2Config, GPT2Model
        if name == "gpt2":
            cfg = GPT2Config(vocab_size=100, n_embd=64, n_layer=2, n_head=2, n_positions=64,
                             initializer_range=INIT_RANGE, use_cache=False)
        else:  # the gpt2 checkpoint's configuration (GPT2Config's defaults), random weights
            cfg = GPT2Config(vocab_size=50257, n_embd=768, n_layer=12, n_head=12,
                             n_positions=1024, use_cache=False)
        _eager(cfg)
        return _wrap_hf(GPT2Model(cfg), ["input_ids", "attention_mask"],
                        ["last_hidden_state"], use_cache=False)
    if name == "llama-hf":
        from transformers import LlamaConfig, LlamaModel
        cfg = LlamaConfig(vocab_size=100, hidden_size=64, intermediate_size=128,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          max_position_embeddings=64, rms_norm_eps=1e-6,
                          initializer_range=INIT_RANGE, use_cache=False)
        _eager(cfg)
        return _wrap_hf(LlamaModel(cfg), ["input_ids", "attention_mask"],
                        ["last_hidden_state"], use_cache=False)
    if name == "llama":
        return _tiny_llama()
    raise ValueError(f"unknown model '{name}'")


def _eager(cfg):
    """Plain matmul-softmax attention (not SDPA or flash kernels): what Kiln's
    frontend sees from most real exports, and the same under both exporters."""
    try:
        cfg._attn_implementation = "eager"
    except Exception:  # noqa: BLE001 - an older/newer config API
        setattr(cfg, "attn_implementation", "eager")


def _wrap_hf(inner, input_names, output_names, use_cache):
    """A module whose forward takes the inputs positionally and returns a
    tuple of tensors, so both exporters see the same signature."""
    import torch

    class Wrap(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            kw = dict(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
            if use_cache is not None:
                kw["use_cache"] = use_cache
            out = self.inner(**kw)
            if isinstance(out, (tuple, list)):  # a model that ignores return_dict
                return tuple(out[:len(output_names)])
            return tuple(getattr(out, n) for n in output_names)

    return Wrap().eval()


def _tiny_llama(vocab=100, hidden=64, layers=2, heads=4, kv_heads=2, ffn=128, max_pos=64,
                eps=1e-6, theta=10000.0):
    """A Llama-style decoder written out: RMSNorm, rotary embeddings (half
    rotation, as in Llama), grouped-query causal attention, SiLU-gated MLP."""
    import math
    import torch
    from torch import nn

    head_dim = hidden // heads

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            # Not ones: a norm whose weight is ignored would still pass.
            self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

        def forward(self, x):
            var = x.pow(2).mean(-1, keepdim=True)
            return self.weight * (x * torch.rsqrt(var + eps))

    def rotate_half(x):
        x1, x2 = x[..., : head_dim // 2], x[..., head_dim // 2:]
        return torch.cat((-x2, x1), dim=-1)

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(hidden, heads * head_dim, bias=False)
            self.k = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.v = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.o = nn.Linear(heads * head_dim, hidden, bias=False)

        def forward(self, x, cos, sin, mask):
            b, t, _ = x.shape
            q = self.q(x).view(b, t, heads, head_dim).transpose(1, 2)
            k = self.k(x).view(b, t, kv_heads, head_dim).transpose(1, 2)
            v = self.v(x).view(b, t, kv_heads, head_dim).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            rep = heads // kv_heads  # each kv head serves `rep` query heads
            k = k[:, :, None].expand(b, kv_heads, rep, t, head_dim).reshape(b, heads, t, head_dim)
            v = v[:, :, None].expand(b, kv_heads, rep, t, head_dim).reshape(b, heads, t, head_dim)
            s = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(head_dim) + mask
            p = torch.softmax(s, dim=-1)
            y = torch.matmul(p, v).transpose(1, 2).reshape(b, t, heads * head_dim)
            return self.o(y)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(hidden, ffn, bias=False)
            self.up = nn.Linear(hidden, ffn, bias=False)
            self.down = nn.Linear(ffn, hidden, bias=False)

        def forward(self, x):
            return self.down(nn.functional.silu(self.gate(x)) * self.up(x))

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn_norm, self.attn = RMSNorm(), Attention()
            self.mlp_norm, self.mlp = RMSNorm(), MLP()

        def forward(self, x, cos, sin, mask):
            x = x + self.attn(self.attn_norm(x), cos, sin, mask)
            return x + self.mlp(self.mlp_norm(x))

    class TinyLlama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = RMSNorm()
            inv = 1.0 / theta ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim)
            ang = torch.outer(torch.arange(max_pos, dtype=torch.float32), inv)
            ang = torch.cat((ang, ang), dim=-1)                   # [max_pos, head_dim]
            self.register_buffer("cos_cached", ang.cos(), persistent=False)
            self.register_buffer("sin_cached", ang.sin(), persistent=False)
            causal = torch.full((max_pos, max_pos), torch.finfo(torch.float32).min).triu(1)
            self.register_buffer("causal", causal, persistent=False)

        def forward(self, input_ids):
            t = input_ids.shape[1]
            x = self.embed(input_ids)
            cos, sin = self.cos_cached[:t], self.sin_cached[:t]
            mask = self.causal[:t, :t]
            for layer in self.layers:
                x = layer(x, cos, sin, mask)
            return (self.norm(x),)

    with torch.no_grad():
        m = TinyLlama()
        for mod in m.modules():  # the same scale as the HF models here
            if isinstance(mod, nn.Linear):
                mod.weight.normal_(0.0, INIT_RANGE)
            elif isinstance(mod, nn.Embedding):
                mod.weight.normal_(0.0, INIT_RANGE * 4)
    return m.eval()


def _supported_kwargs(fn, kwargs):
    """kwargs without the ones fn does not take (the export API moves between
    torch versions); returns (kept, dropped names)."""
    params = inspect.signature(fn).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return kwargs, []
    kept = {k: v for k, v in kwargs.items() if k in params}
    return kept, sorted(set(kwargs) - set(kept))


def torch_export(module, name, exporter, inputs, path):
    """Exports; returns a dict of facts about the export (dynamic, dropped args)."""
    import torch
    spec = SPECS[name]
    args = tuple(torch.from_numpy(inputs[n]) for n in spec["inputs"])
    out_names = list(spec["outputs"])
    facts = {}
    base = dict(input_names=spec["inputs"], output_names=out_names,
                opset_version=OPSET[exporter], export_params=True)
    if exporter == "torchscript":
        axes = {n: {0: "batch", 1: "seq"} for n in spec["inputs"]}
        for o, dims in spec["outputs"].items():
            axes[o] = {i: d for i, d in enumerate(dims)}
        kw, dropped = _supported_kwargs(torch.onnx.export, dict(
            base, dynamo=False, dynamic_axes=axes, do_constant_folding=True))
        if "dynamic_axes" in dropped:
            raise RuntimeError("this torch.onnx.export has no TorchScript exporter "
                               "(no dynamic_axes= argument)")
        with torch.no_grad():
            torch.onnx.export(module, args, path, **kw)
        facts.update(dynamic=True, dropped_args=dropped)
        return facts
    # dynamo: try dynamic batch/seq (Dim.AUTO lets torch.export specialize a
    # dim it must), then fall back to static shapes.
    common = dict(base, dynamo=True, external_data=False, optimize=True, verify=False,
                  report=False, fallback=False)
    errors = []
    attempts = []
    dim = getattr(getattr(torch.export, "Dim", None), "AUTO", None)
    if dim is not None:
        attempts.append(("dynamic", {n: {0: dim, 1: dim} for n in spec["inputs"]}))
    attempts.append(("static", None))
    for how, shapes in attempts:
        kw = dict(common)
        if shapes is not None:
            kw["dynamic_shapes"] = shapes
        kw, dropped = _supported_kwargs(torch.onnx.export, kw)
        if "dynamo" in dropped:
            raise RuntimeError("this torch.onnx.export has no dynamo= argument")
        try:
            with torch.no_grad():
                torch.onnx.export(module, args, path, **kw)
            facts.update(dynamic=(how == "dynamic"), dropped_args=dropped)
            if errors:
                facts["dynamic_failed"] = errors[0]
            return facts
        except Exception as e:  # noqa: BLE001 - report and try the next way
            errors.append(f"{how}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            _remove(path, path + ".data")
    raise RuntimeError("; ".join(errors))


def torch_run(module, name, inputs):
    import torch
    spec = SPECS[name]
    with torch.no_grad():
        outs = module(*(torch.from_numpy(inputs[n]) for n in spec["inputs"]))
    return {n: o.detach().cpu().numpy() for n, o in zip(spec["outputs"], outs)}


def versions():
    v = {"python": sys.version.split()[0], "numpy": np.__version__}
    for mod in ("torch", "transformers", "onnx", "onnxruntime", "onnxscript"):
        try:
            v[mod] = __import__(mod).__version__
        except Exception:  # noqa: BLE001
            v[mod] = None
    return v


# --------------------------------------------------------------------------
# --dry-run: a fake exporter with the same names, no torch.
# --------------------------------------------------------------------------

class FakeModule:
    """Stands in for a torch module: an embedding lookup, times the mask."""

    def __init__(self, name, seed):
        s = SPECS[name]
        rng = np.random.default_rng(seed)
        self.name = name
        self.table = rng.standard_normal((s["vocab"], 8)).astype(np.float32)


def fake_export(module, name, exporter, inputs, path):
    from onnx import TensorProto, helper, numpy_helper
    if name == "llama-hf" and exporter == "dynamo":
        raise RuntimeError("dry run: a simulated export failure")
    s = SPECS[name]
    ins = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
           for n in s["inputs"]]
    nodes = [helper.make_node("Gather", ["table", "input_ids"], ["emb"], name="embed")]
    last = "emb"
    if "attention_mask" in s["inputs"]:
        nodes += [helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
                  helper.make_node("Unsqueeze", ["maskf", "ax"], ["mask3"]),
                  helper.make_node("Mul", ["emb", "mask3"], ["masked"])]
        last = "masked"
    outs = []
    for o, dims in s["outputs"].items():
        if len(dims) == 2:
            nodes.append(helper.make_node("Identity", [last], [o]))
            outs.append(helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", "seq", 8]))
        else:
            if OPSET[exporter] >= 18:
                nodes.append(helper.make_node("ReduceMean", [last, "ax1"], [o], keepdims=0))
            else:
                nodes.append(helper.make_node("ReduceMean", [last], [o], axes=[1], keepdims=0))
            outs.append(helper.make_tensor_value_info(o, TensorProto.FLOAT, ["batch", 8]))
    inits = [numpy_helper.from_array(module.table, "table"),
             numpy_helper.from_array(np.array([-1], np.int64), "ax"),
             numpy_helper.from_array(np.array([1], np.int64), "ax1")]
    g = helper.make_graph(nodes, f"fake-{name}", ins, outs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET[exporter])])
    m.ir_version = 8
    import onnx
    onnx.save(m, path)
    return {"dynamic": True, "dropped_args": [], "fake": True}


def fake_run(module, name, inputs):
    s = SPECS[name]
    emb = module.table[inputs["input_ids"]]
    if "attention_mask" in inputs:
        emb = emb * inputs["attention_mask"][..., None].astype(np.float32)
    out = {}
    for o, dims in s["outputs"].items():
        out[o] = emb if len(dims) == 2 else emb.mean(axis=1)
    return out


# --------------------------------------------------------------------------
# torch-free checks of a written file
# --------------------------------------------------------------------------

def _remove(*paths):
    for p in paths:
        if os.path.lexists(p):
            os.remove(p)


def validate(path, big, kiln_ops):
    """Size, embedded weights, onnx.checker, op counts. Returns (facts, problems)."""
    import onnx
    facts, problems = {}, []
    size = os.path.getsize(path)
    facts["bytes"] = size
    if not big and size >= MAX_SMALL_BYTES:
        problems.append(f"{size} bytes, over the 1 MiB limit for committed models")
    m = onnx.load(path, load_external_data=False)
    ext = [t.name for t in m.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    if ext:
        problems.append(f"{len(ext)} initializers in external data (e.g. '{ext[0]}'), "
                        "weights must be embedded")
    if os.path.exists(path + ".data"):
        problems.append(f"an external data file {os.path.basename(path)}.data was written")
    try:
        # Path form: the checker reads the file itself (works for > 2 GiB too).
        onnx.checker.check_model(path)
    except Exception as e:  # noqa: BLE001
        problems.append(f"onnx.checker: {str(e).splitlines()[0]}")
    ops = collections.Counter()

    def walk(g):
        for n in g.node:
            ops[(n.domain or "") + ("::" if n.domain else "") + n.op_type] += 1
            for a in n.attribute:
                if a.HasField("g"):
                    walk(a.g)
                for sg in a.graphs:
                    walk(sg)
    walk(m.graph)
    facts["ops"] = dict(sorted(ops.items()))
    facts["opset"] = {o.domain or "ai.onnx": o.version for o in m.opset_import}
    facts["functions"] = [f.name for f in m.functions]
    facts["inputs"] = {i.name: [d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
                       for i in m.graph.input}
    facts["outputs"] = [o.name for o in m.graph.output]
    if kiln_ops is not None:
        facts["ops_not_in_kiln_list"] = sorted(o for o in ops if o not in kiln_ops)
    return facts, problems


def run_ort(path, inputs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    # Semantics-preserving rewrites only: the reference is the graph as written.
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    feed = {i.name: inputs[i.name] for i in sess.get_inputs()}
    return dict(zip(names, sess.run(names, feed)))


def compare_ref(torch_out, ort_out):
    """Max |ort - torch| relative to max |torch| per output; problems if > EXPORT_RTOL."""
    facts, problems = {}, []
    for n, t in torch_out.items():
        if n not in ort_out:
            problems.append(f"output '{n}' missing from the ONNX model")
            continue
        o = ort_out[n]
        if o.shape != t.shape:
            problems.append(f"output '{n}': ort shape {o.shape} != torch {t.shape}")
            continue
        err = float(np.max(np.abs(o.astype(np.float64) - t))) if t.size else 0.0
        mag = float(np.max(np.abs(t))) if t.size else 0.0
        rel = err / mag if mag else err
        facts[n] = {"max_abs_err": err, "max_abs_ref": mag, "rel": rel}
        if not np.isfinite(rel) or rel > EXPORT_RTOL:
            problems.append(f"output '{n}': ort vs torch relative error {rel:.3g} > {EXPORT_RTOL}")
    return facts, problems


# --------------------------------------------------------------------------

def make_one(name, exporter, module, outdir, seed, kiln_ops, export_fn, run_fn):
    """Writes one model's three files; returns its manifest entry (never raises)."""
    base = f"{name}-{exporter}"
    path = os.path.join(outdir, base + ".onnx")
    npz_in = os.path.join(outdir, base + ".inputs.npz")
    npz_ort = os.path.join(outdir, base + ".ort.npz")
    _remove(path, path + ".data", npz_in, npz_ort)  # no stale set survives a failure
    entry = {"name": name, "exporter": exporter, "file": base + ".onnx", "status": "failed"}
    t0 = time.monotonic()
    step = "inputs"
    try:
        inputs = make_inputs(name, base, seed)
        step = "export"
        entry.update(export_fn(module, name, exporter, inputs, path))
        entry["export_s"] = round(time.monotonic() - t0, 1)
        step = "validate"
        facts, problems = validate(path, SPECS[name]["big"], kiln_ops)
        entry.update(facts)
        # An exporter may drop an input the graph does not use; feed and save
        # only the graph's own inputs, so kiln-eval gets no stray array.
        graph_inputs = {k: v for k, v in inputs.items() if k in facts["inputs"]}
        if len(graph_inputs) < len(inputs):
            entry["inputs_dropped_by_exporter"] = sorted(set(inputs) - set(graph_inputs))
        step = "torch reference"
        ref = run_fn(module, name, inputs)
        step = "onnxruntime"
        ort_out = run_ort(path, graph_inputs)
        step = "compare"
        cmp_facts, cmp_problems = compare_ref(ref, ort_out)
        entry["ort_vs_torch"] = cmp_facts
        problems += cmp_problems
        np.savez(npz_in, **graph_inputs)
        np.savez(npz_ort, **ort_out)
        entry["problems"] = problems
        entry["status"] = "ok" if not problems else "invalid"
    except Exception as e:  # noqa: BLE001 - one model must not stop the rest
        entry["error"] = f"{step}: {type(e).__name__}: {e}"
        entry["traceback"] = traceback.format_exc(limit=6)
        _remove(path, path + ".data", npz_in, npz_ort)
    entry["seconds"] = round(time.monotonic() - t0, 1)
    return entry


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("outdir", nargs="?", help="where to write the small models")
    p.add_argument("--big", metavar="OUTDIR", help="export BERT-base and GPT-2 small instead")
    p.add_argument("--only", help="comma-separated model names (%s)" % ", ".join(SPECS))
    p.add_argument("--exporters", default=",".join(EXPORTERS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dry-run", action="store_true",
                   help="no torch: fake exports, to test the rest of the pipeline")
    a = p.parse_args()
    outdir = a.big or a.outdir
    if not outdir:
        p.error("need OUTDIR or --big OUTDIR")
    names = BIG if a.big else SMALL
    if a.only:
        names = [n.strip() for n in a.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in SPECS]
        if unknown:
            p.error(f"unknown model(s) {unknown}; known: {list(SPECS)}")
    exporters = [e.strip() for e in a.exporters.split(",") if e.strip()]
    if set(exporters) - set(EXPORTERS):
        p.error(f"exporters are {EXPORTERS}")
    os.makedirs(outdir, exist_ok=True)

    if a.dry_run:
        build, export_fn, run_fn = FakeModule, fake_export, fake_run
    else:
        import torch  # noqa: F401 - fail here, clearly, when torch is missing
        build, export_fn, run_fn = build_module, torch_export, torch_run
        torch.set_num_threads(min(8, os.cpu_count() or 1))
    kiln_ops = kiln_import_ops()
    print("make_models: " + ", ".join(f"{k} {v}" for k, v in versions().items()), flush=True)

    manifest = {"versions": versions(), "seed": a.seed, "dry_run": a.dry_run, "models": []}
    for name in names:
        try:
            module = build(name, a.seed)
        except Exception as e:  # noqa: BLE001
            for exp in exporters:
                manifest["models"].append({"name": name, "exporter": exp, "status": "failed",
                                           "error": f"build: {type(e).__name__}: {e}",
                                           "traceback": traceback.format_exc(limit=6)})
            print(f"FAILED {name}: cannot build the model: {e}", flush=True)
            continue
        for exp in exporters:
            e = make_one(name, exp, module, outdir, a.seed, kiln_ops, export_fn, run_fn)
            manifest["models"].append(e)
            line = f"{e['status'].upper():8s} {name}-{exp}"
            if e["status"] != "failed":
                rel = max((v["rel"] for v in e.get("ort_vs_torch", {}).values()), default=0.0)
                line += (f": {e['bytes'] / 1024:.0f} KiB, {sum(e['ops'].values())} nodes, "
                         f"{'dynamic' if e.get('dynamic') else 'static'} shapes, "
                         f"ort vs torch rel err {rel:.2g}, {e['seconds']} s")
                if e.get("ops_not_in_kiln_list"):
                    line += f"; ops not in Kiln's list: {' '.join(e['ops_not_in_kiln_list'])}"
                if e.get("dynamic_failed"):
                    line += f"; dynamic shapes failed ({e['dynamic_failed'][:200]})"
                for prob in e.get("problems", []):
                    line += f"\n         problem: {prob}"
            else:
                line += f": {e['error'][:400]}"
            print(line, flush=True)
        del module

    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, default=str)

    by_name = collections.defaultdict(list)
    for e in manifest["models"]:
        by_name[e["name"]].append(e["status"])
    invalid = [f"{e['name']}-{e['exporter']}" for e in manifest["models"]
               if e["status"] == "invalid"]
    nothing = [n for n, st in by_name.items() if "ok" not in st and "invalid" not in st]
    failed = [f"{e['name']}-{e['exporter']}" for e in manifest["models"] if e["status"] == "failed"]
    ok = sum(e["status"] == "ok" for e in manifest["models"])
    print(f"make_models: {ok} written and checked, {len(invalid)} invalid, {len(failed)} failed "
          f"to export, in {outdir} (manifest.json has the details)")
    if failed:
        print(f"make_models: export failed: {', '.join(failed)}")
    if invalid or nothing:
        print(f"make_models: error: invalid: {invalid or '-'}; no file at all: {nothing or '-'}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
