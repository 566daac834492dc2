#!/usr/bin/env python3
"""Validates kiln-fuse with the evaluator: each pattern below is an ONNX
model; kiln-eval runs it at -O1 (no fusion), -O2 and -O3 (elementwise and
matmul epilogue regions, raised norms and attention) on the same random,
non-zero inputs, and
the outputs must be bitwise equal (the evaluator rounds every op to its
element type in each, so a correct rewrite changes nothing). kilnc
--emit=graph -O3 must show the expected graph.fusion regions, so a pattern
that silently stopped fusing fails too.

  fusion_check.py --kilnc build/bin/kilnc [--work DIR]
Prints one line per pattern and 'fusion_check: N passed, M failed'."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16 = TensorProto.FLOAT, TensorProto.FLOAT16


def vi(name, t, shape):
    return helper.make_tensor_value_info(name, t, shape)


def const(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "fusion_check", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


N = helper.make_node


def patterns():
    """(name, model, expected regions: a count of elementwise regions,
    "matmul" for exactly one matmul-epilogue region, "rms" for one raised
    layer_norm {rms} and no region, whose single-pass statistics match -O1
    to 1e-6 relative instead of bitwise,
    "softmax" / "log_softmax" for one raised graph.softmax / log_softmax
    and no region (within 1e-6 relative, f16 1e-3: the row kernel keeps f32),
    "gemm" for one matmul-epilogue region made from a Gemm (split into
    MatMul + Add, so the product is rounded before the bias: within 1e-6
    relative of -O1's single rounding, not bitwise),
    "attention" for one graph.attention at -O3 with every transpose, softmax
    and matmul folded into it and any mask kept as its bias (not `causal`),
    "gqa-attention" for that with K and V read unrepeated (q_per_kv, no
    Expand left), "causal-attention" for one whose constant causal mask
    became `causal` at -O2 and -O3 (no bias left),
    "causal-gqa-attention" for both, "packed-attention" for one reading Q, K and V
    in place out of a packed projection (gathers as slices, the Q and K
    scalings folded into the scale; within 2e-3), "causal-padding-attention" for a mask
    `where(causal AND padding, 0, fill)` split into `causal` and the padding
    bias at -O2 and -O3, "gelu" / "gelu-matmul" for a written-out
    GELU raised to one graph.gelu at -O2 and -O3 (alone / in one
    matmul-epilogue region; within 1e-6 relative, f16 1e-3: computed in f32
    and rounded once), "conv-matmul" for 1x1 and patch convolutions as
    graph.matmul at -O2 and -O3 (kiln-conv-to-matmul) with one other
    convolution kept ("conv-matmul-all": none kept; "conv-matmul-none": every
    one kept, overlapping windows; within 2e-3 relative: the product is
    rounded before the bias), or
    "no-attention" for none at -O3)."""
    yield "silu_mul_add_f16", model(
        [N("Sigmoid", ["x"], ["s"]), N("Mul", ["x", "s"], ["m"]), N("Mul", ["m", "x"], ["mm"]),
         N("Add", ["mm", "y"], ["out"])],
        [vi("x", F16, [64, 96]), vi("y", F16, [64, 96])], [vi("out", F16, [64, 96])]), 1
    yield "bias_gelu_erf", model(
        [N("MatMul", ["x", "w"], ["mm"]), N("Add", ["mm", "b"], ["h"]), N("Div", ["h", "sq2"], ["d"]),
         N("Erf", ["d"], ["e"]), N("Add", ["e", "one"], ["p"]), N("Mul", ["h", "p"], ["q"]),
         N("Mul", ["q", "half"], ["out"])],
        [vi("x", F32, [8, 16])], [vi("out", F32, [8, 32])],
        [const("w", np.random.default_rng(1).standard_normal((16, 32)).astype(np.float32)),
         const("b", np.random.default_rng(2).standard_normal(32).astype(np.float32)),
         const("sq2", np.float32(1.4142135)), const("one", np.float32(1.0)),
         const("half", np.float32(0.5))]), "gelu-matmul"
    yield "linear_bias_residual_f16", model(
        [N("MatMul", ["x", "w"], ["mm"]), N("Add", ["mm", "b"], ["h"]), N("Add", ["h", "x"], ["out"])],
        [vi("x", F16, [2, 8, 16])], [vi("out", F16, [2, 8, 16])],
        [const("w", (np.random.default_rng(4).standard_normal((16, 16)) * 0.25).astype(np.float16)),
         const("b", np.random.default_rng(5).standard_normal(16).astype(np.float16))]), "matmul"
    # GPT-2's Conv1D: Gemm on [rows, K], reshaped back, tanh GELU; and a
    # torch Linear exported as Gemm(transB=1) with ReLU.
    yield "gemm_reshape_gelu_tanh", model(
        [N("Reshape", ["x", "rows"], ["x2"]), N("Gemm", ["x2", "w", "b"], ["g"]),
         N("Reshape", ["g", "back"], ["h"]), N("Mul", ["h", "h"], ["h2"]), N("Mul", ["h2", "h"], ["h3"]),
         N("Mul", ["h3", "c"], ["h4"]), N("Add", ["h", "h4"], ["h5"]), N("Tanh", ["h5"], ["t"]),
         N("Add", ["t", "one"], ["t1"]), N("Mul", ["h", "t1"], ["out"])],
        [vi("x", F32, [2, 8, 16])], [vi("out", F32, [2, 8, 32])],
        [const("w", np.random.default_rng(7).standard_normal((16, 32)).astype(np.float32)),
         const("b", np.random.default_rng(8).standard_normal(32).astype(np.float32)),
         const("rows", np.array([16, 16], np.int64)), const("back", np.array([2, 8, 32], np.int64)),
         const("c", np.float32(0.044715)), const("one", np.float32(1.0))]), "gemm"
    yield "gemm_transb_relu_f16", model(
        [N("Gemm", ["x", "w", "b"], ["g"], transB=1), N("Relu", ["g"], ["out"])],
        [vi("x", F16, [8, 64])], [vi("out", F16, [8, 32])],
        [const("w", (np.random.default_rng(9).standard_normal((32, 64)) * 0.2).astype(np.float16)),
         const("b", np.random.default_rng(10).standard_normal(32).astype(np.float16))]), "gemm"
    yield "attention_mask_broadcast", model(
        [N("Cast", ["mask"], ["mf"], to=F32), N("Sub", ["one", "mf"], ["inv"]),
         N("Mul", ["inv", "big"], ["neg"]), N("Div", ["scores", "scale"], ["sc"]),
         N("Add", ["sc", "neg"], ["out"])],
        [vi("scores", F32, [2, 4, 16, 16]), vi("mask", TensorProto.INT64, [2, 1, 1, 16])],
        [vi("out", F32, [2, 4, 16, 16])],
        [const("one", np.float32(1.0)), const("big", np.float32(-3.4e38)),
         const("scale", np.float32(8.0))]), 1
    yield "rmsnorm_elementwise_parts", model(
        [N("Pow", ["x", "two"], ["sq"]), N("ReduceMean", ["sq"], ["ms"], axes=[-1]),
         N("Add", ["ms", "eps"], ["v"]), N("Sqrt", ["v"], ["r"]), N("Reciprocal", ["r"], ["ir"]),
         N("Mul", ["x", "ir"], ["n"]), N("Mul", ["n", "g"], ["out"])],
        [vi("x", F32, [4, 8, 64])], [vi("out", F32, [4, 8, 64])],
        [const("two", np.float32(2.0)), const("eps", np.float32(1e-6)),
         const("g", np.random.default_rng(3).standard_normal(64).astype(np.float32))]), "rms"
    # (kiln-raise-norms makes the whole chain one graph.layer_norm {rms})
    # Half-precision Llama exports: statistics in f32 between casts.
    yield "rmsnorm_f16_stats_in_f32", model(
        [N("Cast", ["x"], ["x32"], to=F32), N("Pow", ["x32", "two"], ["sq"]),
         N("ReduceMean", ["sq"], ["ms"], axes=[-1]), N("Add", ["ms", "eps"], ["v"]), N("Sqrt", ["v"], ["r"]),
         N("Reciprocal", ["r"], ["ir"]), N("Mul", ["x32", "ir"], ["n"]), N("Cast", ["n"], ["n16"], to=F16),
         N("Mul", ["g", "n16"], ["out"])],
        [vi("x", F16, [4, 8, 64])], [vi("out", F16, [4, 8, 64])],
        [const("two", np.float32(2.0)), const("eps", np.float32(1e-6)),
         const("g", np.random.default_rng(11).standard_normal(64).astype(np.float16))]), "rms"
    # Layer norm written out (exporters below opset 17): one graph.layer_norm.
    yield "layernorm_written_out", model(
        [N("ReduceMean", ["x"], ["m"], axes=[-1]), N("Sub", ["x", "m"], ["d"]),
         N("Pow", ["d", "two"], ["sq"]), N("ReduceMean", ["sq"], ["v"], axes=[-1]),
         N("Add", ["v", "eps"], ["ve"]), N("Sqrt", ["ve"], ["s"]), N("Div", ["d", "s"], ["n"]),
         N("Mul", ["n", "g"], ["y"]), N("Add", ["y", "b"], ["out"])],
        [vi("x", F32, [4, 8, 64])], [vi("out", F32, [4, 8, 64])],
        [const("two", np.float32(2.0)), const("eps", np.float32(1e-5)),
         const("g", np.random.default_rng(5).standard_normal(64).astype(np.float32)),
         const("b", np.random.default_rng(6).standard_normal(64).astype(np.float32))]), "ln"
    # Softmax and log-softmax written out (x.exp() / sum, the stable form
    # with the max shift, over an inner axis): one graph.softmax each.
    yield "softmax_written_out", model(
        [N("ReduceMax", ["x"], ["m"], axes=[1]), N("Sub", ["x", "m"], ["d"]),
         N("Exp", ["d"], ["e"]), N("ReduceSum", ["e", "ax"], ["s"]), N("Div", ["e", "s"], ["out"])],
        [vi("x", F32, [4, 33, 8])], [vi("out", F32, [4, 33, 8])],
        [const("ax", np.array([1], dtype=np.int64))]), "softmax"
    yield "softmax_unshifted_f16", model(
        [N("Exp", ["x"], ["e"]), N("ReduceSum", ["e", "ax"], ["s"]), N("Div", ["e", "s"], ["out"])],
        [vi("x", F16, [6, 100])], [vi("out", F16, [6, 100])],
        [const("ax", np.array([-1], dtype=np.int64))]), "softmax"
    yield "log_softmax_written_out", model(
        [N("ReduceMax", ["x"], ["m"], axes=[-1]), N("Sub", ["x", "m"], ["d"]),
         N("Exp", ["d"], ["e"]), N("ReduceSum", ["e", "ax"], ["s"]), N("Log", ["s"], ["l"]),
         N("Sub", ["d", "l"], ["out"])],
        [vi("x", F32, [5, 64])], [vi("out", F32, [5, 64])],
        [const("ax", np.array([-1], dtype=np.int64))]), "log_softmax"
    yield "where_compare_cast_chain", model(
        [N("Cast", ["x"], ["xf"], to=F32), N("Greater", ["xf", "t"], ["gt"]), N("Neg", ["xf"], ["nx"]),
         N("Where", ["gt", "xf", "nx"], ["w"]), N("Cast", ["w"], ["out"], to=F16)],
        [vi("x", F16, [33, 17]), vi("t", F32, [17])], [vi("out", F16, [33, 17])]), 1
    yield "two_outputs_shared_value", model(
        [N("Exp", ["x"], ["e"]), N("Neg", ["e"], ["n"]), N("Abs", ["n"], ["a"]),
         N("Tanh", ["e"], ["t"]), N("Relu", ["t"], ["r"])],
        [vi("x", F32, [5, 7])], [vi("a", F32, [5, 7]), vi("r", F32, [5, 7])]), 1
    # Multi-output: a value returned and used by a chain that is returned
    # too (one region, both results); a shared value whose second user (a
    # reduction) comes before the chain's end and feeds it stays outside
    # (the region would depend on its own result): the exp stays a kernel of
    # its own and only the chain after the reduction is a region.
    yield "multi_output_value_also_returned", model(
        [N("Mul", ["x", "two"], ["y"]), N("Sigmoid", ["y"], ["s"]), N("Mul", ["y", "s"], ["z"])],
        [vi("x", F16, [9, 40])], [vi("y", F16, [9, 40]), vi("z", F16, [9, 40])],
        [const("two", np.float16(2.0))]), 1
    yield "multi_output_blocked_by_order", model(
        [N("Exp", ["x"], ["e"]), N("ReduceSum", ["e", "ax"], ["s"]), N("Mul", ["e", "s"], ["m"]),
         N("Neg", ["m"], ["out"])],
        [vi("x", F32, [6, 10])], [vi("out", F32, [6, 10])],
        [const("ax", np.array([1], dtype=np.int64))]), 1
    yield "expand_then_math_i64", model(
        [N("Expand", ["x", "shape"], ["ex"]), N("Add", ["ex", "y"], ["s"]), N("Mul", ["s", "s"], ["out"])],
        [vi("x", TensorProto.INT64, [1, 8]), vi("y", TensorProto.INT64, [6, 8])],
        [vi("out", TensorProto.INT64, [6, 8])], [const("shape", np.array([6, 8], dtype=np.int64))]), 1


    # Attention as exporters write it (kiln-raise-attention at -O3): BERT's
    # head transposes, scale and padding mask in f16; Llama's f32 softmax
    # between casts, division by sqrt(d) and a causal mask, no transposes;
    # bf16 rank 3 with Sq != Sk and Dv != D, no scale, no mask; f32 stays
    # unfused (the kernel is for tensor cores).
    rng = np.random.default_rng(6)
    causal = np.triu(np.full((16, 16), -65504.0, np.float16), 1)
    bhsd = [N("Transpose", ["q"], ["qt"], perm=[0, 2, 1, 3]),
            N("Transpose", ["k"], ["kt"], perm=[0, 2, 3, 1]),
            N("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
            N("MatMul", ["qt", "kt"], ["s"]), N("Mul", ["s", "scale"], ["ss"]),
            N("Add", ["ss", "mask"], ["sm"]), N("Softmax", ["sm"], ["p"], axis=-1),
            N("MatMul", ["p", "vt"], ["o"]), N("Transpose", ["o"], ["out"], perm=[0, 2, 1, 3])]
    yield "attention_bert_f16", model(
        bhsd, [vi("q", F16, [2, 16, 4, 32]), vi("k", F16, [2, 16, 4, 32]), vi("v", F16, [2, 16, 4, 32]),
               vi("mask", F16, [2, 1, 1, 16])], [vi("out", F16, [2, 16, 4, 32])],
        [const("scale", np.float16(0.1767767))]), "attention"
    yield "attention_llama_f16_softmax_f32", model(
        [N("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]), N("MatMul", ["q", "kt"], ["s"]),
         N("Div", ["s", "sqd"], ["ss"]), N("Add", ["ss", "causal"], ["sm"]),
         N("Cast", ["sm"], ["s32"], to=F32), N("Softmax", ["s32"], ["p32"], axis=-1),
         N("Cast", ["p32"], ["p"], to=F16), N("MatMul", ["p", "v"], ["out"])],
        [vi("q", F16, [1, 4, 16, 64]), vi("k", F16, [1, 4, 16, 64]), vi("v", F16, [1, 4, 16, 64])],
        [vi("out", F16, [1, 4, 16, 64])],
        [const("sqd", np.float16(8.0)), const("causal", causal)]), "attention"
    # torch.export's scaled_dot_product_attention: q and k^T each scaled by
    # sqrt(scale), an -inf mask that masks row 0 entirely, NaN -> 0.
    sdpa_mask = np.triu(np.full((16, 16), -np.inf, np.float16), 1)
    sdpa_mask[0, :] = -np.inf
    yield "attention_sdpa_export_f16", model(
        [N("Mul", ["q", "c"], ["qs"]), N("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
         N("Mul", ["kt", "c"], ["kts"]), N("MatMul", ["qs", "kts"], ["s"]),
         N("Add", ["s", "m"], ["sm"]), N("Softmax", ["sm"], ["p"], axis=-1),
         N("IsNaN", ["p"], ["nan"]), N("Where", ["nan", "zero", "p"], ["pz"]),
         N("MatMul", ["pz", "v"], ["out"])],
        [vi("q", F16, [1, 2, 16, 32]), vi("k", F16, [1, 2, 16, 32]), vi("v", F16, [1, 2, 16, 32])],
        [vi("out", F16, [1, 2, 16, 32])],
        [const("c", np.float16(0.4204)), const("m", sdpa_mask), const("zero", np.float16(0))]), \
        "attention"
    # GPT-2: Q, K and V split out of one c_attn projection, read in place.
    yield "attention_gpt2_split_f16", model(
        [N("Split", ["x", "sizes"], ["q", "k", "v"], axis=-1),
         N("Reshape", ["q", "heads"], ["q4"]), N("Reshape", ["k", "heads"], ["k4"]),
         N("Reshape", ["v", "heads"], ["v4"])] +
        [N(n.op_type, [{"q": "q4", "k": "k4", "v": "v4"}.get(i, i) for i in n.input], list(n.output),
           **{a.name: helper.get_attribute_value(a) for a in n.attribute}) for n in bhsd],
        [vi("x", F16, [2, 16, 3 * 4 * 32]), vi("mask", F16, [2, 1, 1, 16])], [vi("out", F16, [2, 16, 4, 32])],
        [const("scale", np.float16(0.1767767)), const("sizes", np.array([128, 128, 128], np.int64)),
         const("heads", np.array([2, 16, 4, 32], np.int64))]), "attention"
    # BERT: three linear layers of one input (kiln-merge-siblings: one
    # matmul), their heads read in place by the attention.
    lin = []
    for n in "qkv":
        lin += [N("MatMul", ["x", "w" + n], ["m" + n]), N("Add", ["m" + n, "b" + n], ["a" + n]),
                N("Reshape", ["a" + n, "heads"], [n])]
    wr = np.random.default_rng(12)
    yield "attention_bert_qkv_merged_f16", model(
        lin + bhsd, [vi("x", F16, [2, 16, 64]), vi("mask", F16, [2, 1, 1, 16])],
        [vi("out", F16, [2, 16, 2, 32])],
        [const("scale", np.float16(0.1767767)), const("heads", np.array([2, 16, 2, 32], np.int64))] +
        [const("w" + n, (wr.standard_normal((64, 64)) * 0.2).astype(np.float16)) for n in "qkv"] +
        [const("b" + n, wr.standard_normal(64).astype(np.float16)) for n in "qkv"]), "attention"
    # onnxscript's torchlib SDPA (torch.onnx dynamo): K^T as Reshape to
    # [B*H, S, D], Transpose(0, 2, 1), Reshape back, then scaled.
    yield "attention_torchlib_sdpa_f16", model(
        [N("Mul", ["q", "c"], ["qs"]), N("Reshape", ["k", "flat"], ["kf"]),
         N("Transpose", ["kf"], ["kft"], perm=[0, 2, 1]), N("Reshape", ["kft", "kshape"], ["kt"]),
         N("Mul", ["kt", "c"], ["kts"]), N("MatMul", ["qs", "kts"], ["s"]),
         N("Add", ["s", "m"], ["sm"]), N("Softmax", ["sm"], ["p"], axis=-1),
         N("MatMul", ["p", "v"], ["out"])],
        [vi("q", F16, [1, 4, 16, 32]), vi("k", F16, [1, 4, 16, 32]), vi("v", F16, [1, 4, 16, 32])],
        [vi("out", F16, [1, 4, 16, 32])],
        [const("c", np.float16(0.4204)), const("m", causal),
         const("flat", np.array([-1, 16, 32], np.int64)), const("kshape", np.array([1, 4, 32, 16], np.int64))]), \
        "attention"
    # nn.MultiheadAttention through torch.onnx dynamo (torchvision's ViT):
    # sequence-first [S, B, H*D] projections, heads split as Reshape to
    # [S, B*H, D], Transpose (1, 0, 2) for Q and V, (1, 2, 0) for K^T,
    # Reshape to [B, H, ...]; Q and K^T scaled by sqrt(scale) each; the
    # output transposed back to sequence-first and flattened.
    def heads(x, perm, shape, out):
        return [N("Reshape", [x, "sbh"], [x + "r"]), N("Transpose", [x + "r"], [x + "t"], perm=perm),
                N("Reshape", [x + "t", shape], [out])]
    def mha_heads_and_tail():
        return heads("q", [1, 0, 2], "bhsd", "qh") + heads("k", [1, 2, 0], "bhds", "kh") + \
            heads("v", [1, 0, 2], "bhsd", "vh") + \
            [N("Mul", ["qh", "c"], ["qs"]), N("Mul", ["kh", "c"], ["ks"]),
             N("MatMul", ["qs", "ks"], ["s"]), N("Softmax", ["s"], ["pr"], axis=-1),
             N("MatMul", ["pr", "vh"], ["o"]), N("Transpose", ["o"], ["ot"], perm=[2, 0, 1, 3]),
             N("Reshape", ["ot", "flat"], ["out"])]
    yield "attention_mha_seq_first_f16", model(
        mha_heads_and_tail(),
        [vi(n, F16, [24, 2, 128]) for n in "qkv"], [vi("out", F16, [48, 128])],
        [const("c", np.float16(0.3535)), const("sbh", np.array([24, 4, 64], np.int64)),
         const("bhsd", np.array([2, 2, 24, 64], np.int64)),
         const("bhds", np.array([2, 2, 64, 24], np.int64)),
         const("flat", np.array([48, 128], np.int64))]), "attention"
    # The same with nn.MultiheadAttention's packed in-projection, as torch.onnx
    # writes it: [S, B, 3E] -> Reshape [1, S, B, 3, E] -> Transpose (3, 1, 2,
    # 0, 4) -> Reshape [3, S, B, E] -> Gather 0, 1, 2. The gathers become
    # slices of the projection that the attention reads in place (q_heads),
    # and the two sqrt(scale) multiplies fold into its scale (in f32 on the
    # scores: within 2e-3 of -O1, which rounds Q and K after scaling).
    wpk = const("wpk", (wr.standard_normal((128, 384)) * 0.1).astype(np.float16))
    bpk = const("bpk", (wr.standard_normal(384) * 0.1).astype(np.float16))
    yield "attention_mha_packed_f16", model(
        [N("MatMul", ["x", "wpk"], ["pm"]), N("Add", ["pm", "bpk"], ["p"]),
         N("Reshape", ["p", "unflat"], ["pu"]), N("Transpose", ["pu"], ["pt"], perm=[3, 1, 2, 0, 4]),
         N("Reshape", ["pt", "stack"], ["ps"])] +
        [N("Gather", ["ps", "i" + n], [n], axis=0) for n in "qkv"] +
        mha_heads_and_tail(),
        [vi("x", F16, [24, 2, 128])], [vi("out", F16, [48, 128])],
        [wpk, bpk, const("c", np.float16(0.3535)),
         const("unflat", np.array([1, 24, 2, 3, 128], np.int64)),
         const("stack", np.array([3, 24, 2, 128], np.int64)),
         const("iq", np.array(0, np.int64)), const("ik", np.array(1, np.int64)),
         const("iv", np.array(-1, np.int64)),
         const("sbh", np.array([24, 4, 64], np.int64)),
         const("bhsd", np.array([2, 2, 24, 64], np.int64)),
         const("bhds", np.array([2, 2, 64, 24], np.int64)),
         const("flat", np.array([48, 128], np.int64))]), "packed-attention"
    # Grouped-query attention (Llama: 4 query heads, 2 KV heads), repeat_kv
    # as Unsqueeze -> Expand [1, 2, 2, S, D] -> Reshape [1, 4, S, D] on K and
    # V: HF's eager form (K^T a transpose, division by sqrt(d), causal mask).
    def repeat_kv(x, out):
        return [N("Unsqueeze", [x, "ax2"], [x + "_u"]), N("Expand", [x + "_u", "rep"], [x + "_e"]),
                N("Reshape", [x + "_e", "heads4"], [out])]
    gqa_consts = [const("ax2", np.array([2], np.int64)),
                  const("rep", np.array([1, 2, 2, 16, 64], np.int64)),
                  const("heads4", np.array([1, 4, 16, 64], np.int64))]
    yield "attention_llama_gqa_f16", model(
        repeat_kv("k", "kr") + repeat_kv("v", "vr") +
        [N("Transpose", ["kr"], ["kt"], perm=[0, 1, 3, 2]), N("MatMul", ["q", "kt"], ["s"]),
         N("Div", ["s", "sqd"], ["ss"]), N("Add", ["ss", "causal"], ["sm"]),
         N("Softmax", ["sm"], ["p"], axis=-1), N("MatMul", ["p", "vr"], ["out"])],
        [vi("q", F16, [1, 4, 16, 64]), vi("k", F16, [1, 2, 16, 64]), vi("v", F16, [1, 2, 16, 64])],
        [vi("out", F16, [1, 4, 16, 64])],
        [const("sqd", np.float16(8.0)), const("causal", causal)] + gqa_consts), "gqa-attention"
    # HF's sdpa through torch.onnx dynamo: torchlib's SDPA over the repeated
    # K and V, K^T as Reshape [-1, S, D] (composing with repeat_kv's reshape
    # into one from the rank-5 Expand), Q and K^T each scaled by sqrt(scale),
    # the causal mask a Boolean index comparison turned into 0/-inf, NaN -> 0;
    # the head split/merge transposes and the projections around it (merged
    # into one matmul at -O3 where they share an input, V's heads read out
    # of it under the repeat; K's projection takes another input, as its
    # scaling needs its own tensor).
    wg = np.random.default_rng(13)
    yield "attention_llama_sdpa_gqa_f16", model(
        [N("MatMul", ["x", "wq"], ["mq"]), N("Neg", ["x"], ["xk"]), N("MatMul", ["xk", "wk"], ["mk"]),
         N("MatMul", ["x", "wv"], ["mv"]),
         N("Reshape", ["mq", "qheads"], ["q4"]), N("Reshape", ["mk", "kvheads"], ["k4"]),
         N("Reshape", ["mv", "kvheads"], ["v4"]), N("Transpose", ["q4"], ["qt"], perm=[0, 2, 1, 3]),
         N("Transpose", ["k4"], ["k"], perm=[0, 2, 1, 3]),
         N("Transpose", ["v4"], ["v"], perm=[0, 2, 1, 3])] +
        repeat_kv("k", "kr") + repeat_kv("v", "vr") +
        [N("Range", ["r0", "r1", "r2"], ["pos"]), N("Unsqueeze", ["pos", "ax1"], ["qi"]),
         N("Unsqueeze", ["pos", "ax0"], ["ki"]), N("LessOrEqual", ["ki", "qi"], ["le"]),
         N("Where", ["le", "zero", "ninf"], ["m"]),
         N("Mul", ["qt", "c"], ["qs"]), N("Reshape", ["kr", "flat"], ["kf"]),
         N("Transpose", ["kf"], ["kft"], perm=[0, 2, 1]), N("Reshape", ["kft", "kshape"], ["ktt"]),
         N("Mul", ["ktt", "c"], ["kts"]), N("MatMul", ["qs", "kts"], ["s"]),
         N("Add", ["s", "m"], ["sm"]), N("Softmax", ["sm"], ["p"], axis=-1),
         N("IsNaN", ["p"], ["nan"]), N("Where", ["nan", "zero", "p"], ["pz"]),
         N("MatMul", ["pz", "vr"], ["o"]), N("Transpose", ["o"], ["out"], perm=[0, 2, 1, 3])],
        [vi("x", F16, [1, 16, 128])], [vi("out", F16, [1, 16, 4, 64])],
        [const("wq", (wg.standard_normal((128, 256)) * 0.1).astype(np.float16)),
         const("wk", (wg.standard_normal((128, 128)) * 0.1).astype(np.float16)),
         const("wv", (wg.standard_normal((128, 128)) * 0.1).astype(np.float16)),
         const("qheads", np.array([1, 16, 4, 64], np.int64)),
         const("kvheads", np.array([1, 16, 2, 64], np.int64)),
         const("r0", np.array(0, np.int64)), const("r1", np.array(16, np.int64)),
         const("r2", np.array(1, np.int64)), const("ax0", np.array([0], np.int64)),
         const("ax1", np.array([1], np.int64)), const("ninf", np.float16(-np.inf)),
         const("c", np.float16(0.3535)), const("zero", np.float16(0)),
         const("flat", np.array([-1, 16, 64], np.int64)),
         const("kshape", np.array([1, 4, 64, 16], np.int64))] + gqa_consts), "causal-gqa-attention"
    BF16 = TensorProto.BFLOAT16
    # GPT-2's causal mask as HF computes it, Where(Less(col, row)... as
    # Range/Unsqueeze/Less/Where over constants, -inf above the diagonal:
    # folded to a constant, it becomes `causal` at -O2 and -O3 (bitwise the
    # same: exp(-inf) = 0 either way).
    yield "attention_gpt2_causal_f16", model(
        [N("Range", ["zero", "seq", "one"], ["r"]),
         N("Unsqueeze", ["r", "ax1"], ["rows"]), N("Unsqueeze", ["r", "ax0"], ["cols"]),
         N("Less", ["rows", "cols"], ["above"]),
         N("Where", ["above", "ninf", "fzero"], ["mask"])] + bhsd,
        [vi("q", F16, [2, 16, 4, 32]), vi("k", F16, [2, 16, 4, 32]), vi("v", F16, [2, 16, 4, 32])],
        [vi("out", F16, [2, 16, 4, 32])],
        [const("scale", np.float16(0.1767767)), const("zero", np.int64(0)),
         const("seq", np.int64(16)), const("one", np.int64(1)),
         const("ax0", np.array([0], np.int64)), const("ax1", np.array([1], np.int64)),
         const("ninf", np.float16(-np.inf)), const("fzero", np.float16(0))]), "causal-attention"
    # A longer causal case (a -inf constant mask over 200 keys, not a
    # multiple of any key block): several query blocks, each reading the key
    # blocks up to its diagonal, the last one partly past the keys.
    causal200 = np.triu(np.full((200, 200), -np.inf, np.float16), 1)
    yield "attention_causal_200_f16", model(
        [N("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]), N("MatMul", ["q", "kt"], ["s0"]),
         N("Mul", ["s0", "scale"], ["s1"]), N("Add", ["s1", "mask"], ["s2"]),
         N("Softmax", ["s2"], ["p"], axis=-1), N("MatMul", ["p", "v"], ["out"])],
        [vi("q", F16, [2, 3, 200, 64]), vi("k", F16, [2, 3, 200, 64]), vi("v", F16, [2, 3, 200, 64])],
        [vi("out", F16, [2, 3, 200, 64])],
        [const("scale", np.float16(0.125)), const("mask", causal200)]), "causal-attention"
    # HF's GPT-2 mask: a constant causal pattern AND the padding of an
    # input (random, so some rows have every key up to theirs masked),
    # filled with the type's lowest value (eager) or -inf (SDPA's boolean
    # mask as torch.onnx writes it, with NaN -> 0). 160 keys: several query
    # and key blocks, so the kernel skips blocks past the diagonal and, for
    # the fully masked rows of the finite fill, reads them after all. The
    # small scale keeps those rows' f32 scores (the kernel) and f16 scores
    # + fill (the evaluator: all one value) both near uniform, so the GPU
    # check compares them at the fp16 tolerance; a kernel without the
    # fallback would average only the keys up to each such row.
    tril160 = np.tril(np.ones((1, 1, 160, 160), np.bool_))
    for fill, tag, scale, nan in ((-65504.0, "lowest", 0.004, False),
                                  (-np.inf, "ninf", 0.125, True)):
        tail = [N("IsNaN", ["p0"], ["isnan"]), N("Where", ["isnan", "zero", "p0"], ["p"])] \
            if nan else [N("Identity", ["p0"], ["p"])]
        yield f"attention_causal_padding_{tag}_f16", model(
            [N("Reshape", ["pad", "padshape"], ["padr"]), N("And", ["tril", "padr"], ["keep"]),
             N("Where", ["keep", "zero", "fill"], ["mask"]),
             N("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]), N("MatMul", ["q", "kt"], ["s0"]),
             N("Mul", ["s0", "scale"], ["s1"]), N("Add", ["s1", "mask"], ["s2"]),
             N("Softmax", ["s2"], ["p0"], axis=-1)] + tail + [N("MatMul", ["p", "v"], ["out"])],
            [vi("q", F16, [2, 2, 160, 64]), vi("k", F16, [2, 2, 160, 64]),
             vi("v", F16, [2, 2, 160, 64]), vi("pad", TensorProto.BOOL, [2, 160])],
            [vi("out", F16, [2, 2, 160, 64])],
            [const("tril", tril160), const("padshape", np.array([2, 1, 1, 160], np.int64)),
             const("zero", np.float16(0)), const("fill", np.float16(fill)),
             const("scale", np.float16(scale))]), "causal-padding-attention"
    yield "attention_rank3_bf16", model(
        [N("Transpose", ["k"], ["kt"], perm=[0, 2, 1]), N("MatMul", ["q", "kt"], ["s"]),
         N("Softmax", ["s"], ["p"], axis=2), N("MatMul", ["p", "v"], ["out"])],
        [vi("q", BF16, [3, 24, 16]), vi("k", BF16, [3, 40, 16]), vi("v", BF16, [3, 40, 32])],
        [vi("out", BF16, [3, 24, 32])]), "attention"
    yield "attention_f32_stays_unfused", model(
        bhsd, [vi("q", F32, [2, 16, 4, 32]), vi("k", F32, [2, 16, 4, 32]), vi("v", F32, [2, 16, 4, 32]),
               vi("mask", F32, [2, 1, 1, 16])], [vi("out", F32, [2, 16, 4, 32])],
        [const("scale", np.float32(0.1767767))]), "no-attention"
    # GPT-2's tanh GELU in f16 with the cube written as products and the
    # constants as f16 holds them: one graph.gelu at -O3.
    yield "gelu_tanh_cube_f16", model(
        [N("Mul", ["x", "x"], ["sq"]), N("Mul", ["sq", "x"], ["cube"]), N("Mul", ["k", "cube"], ["kc"]),
         N("Add", ["x", "kc"], ["s"]), N("Mul", ["s", "c"], ["b"]), N("Tanh", ["b"], ["t"]),
         N("Add", ["one", "t"], ["u"]), N("Mul", ["x", "half"], ["h"]), N("Mul", ["h", "u"], ["out"])],
        [vi("x", F16, [64, 96])], [vi("out", F16, [64, 96])],
        [const("k", np.float16(0.044715)), const("c", np.float16(0.7978845608)),
         const("one", np.float16(1.0)), const("half", np.float16(0.5))]), "gelu"
    # Reshapes and transposes inside elementwise regions (index maps): SiLU,
    # split into heads, a per-head-dim bias, heads transposed, times y: one
    # kernel reading x through a permuted map.
    yield "index_maps_split_heads_f16", model(
        [N("Sigmoid", ["x"], ["s"]), N("Mul", ["x", "s"], ["m"]), N("Reshape", ["m", "heads"], ["r"]),
         N("Add", ["r", "b"], ["a"]), N("Transpose", ["a"], ["t"], perm=[0, 2, 1, 3]),
         N("Mul", ["t", "y"], ["out"])],
        [vi("x", F16, [2, 64, 256]), vi("y", F16, [2, 8, 64, 32])], [vi("out", F16, [2, 8, 64, 32])],
        [const("heads", np.array([2, 64, 8, 32], np.int64)),
         const("b", rng.standard_normal(32).astype(np.float16))]), 1
    # Heads merged back: transpose then a reshape that joins two axes (the
    # iteration space is refined to [2, 64, 8, 32]), a residual, tanh.
    yield "index_maps_merge_heads_f32", model(
        [N("Mul", ["x", "c"], ["xs"]), N("Transpose", ["xs"], ["t"], perm=[0, 2, 1, 3]),
         N("Reshape", ["t", "merged"], ["r"]), N("Add", ["r", "res"], ["a"]), N("Tanh", ["a"], ["out"])],
        [vi("x", F32, [2, 8, 64, 32]), vi("res", F32, [2, 64, 256])], [vi("out", F32, [2, 64, 256])],
        [const("merged", np.array([2, 64, 256], np.int64)), const("c", np.float32(0.7))]), 1
    # A transpose that moves the innermost axis stays the tiled transpose
    # kernel: two regions, one on either side.
    yield "index_maps_inner_transpose_stays", model(
        [N("Exp", ["x"], ["e"]), N("Mul", ["e", "x"], ["m"]), N("Transpose", ["m"], ["t"], perm=[0, 2, 1]),
         N("Add", ["t", "y"], ["a"]), N("Relu", ["a"], ["out"])],
        [vi("x", F32, [2, 64, 48]), vi("y", F32, [2, 48, 64])], [vi("out", F32, [2, 48, 64])]), 2
    # x read twice, directly and through the transpose: the scale feeding
    # the transpose would give x a second map, so it stays outside (its
    # result is read permuted) and the region holds transpose, add, relu.
    yield "index_maps_two_views_of_input", model(
        [N("Mul", ["x", "c"], ["xs"]), N("Transpose", ["xs"], ["t"], perm=[0, 2, 1, 3]),
         N("Add", ["x", "t"], ["a"]), N("Relu", ["a"], ["out"])],
        [vi("x", F16, [2, 16, 16, 32])], [vi("out", F16, [2, 16, 16, 32])],
        [const("c", np.float16(0.5))]), 1
    # A ResNet bottleneck in f16: 1x1 (bias) -> relu -> 3x3 -> relu -> 1x1
    # (bias) + the input through a strided 1x1 (bias) -> relu. The three 1x1
    # convolutions become matmuls at -O2 (the strided one reads every second
    # row and column); the 3x3 stays a convolution.
    def w(*shape):
        return (rng.standard_normal(shape) * 0.15).astype(np.float16)
    yield "conv_bottleneck_1x1_f16", model(
        [N("Conv", ["x", "w1", "b1"], ["c1"]), N("Relu", ["c1"], ["r1"]),
         N("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
         N("Relu", ["c2"], ["r2"]), N("Conv", ["r2", "w3", "b3"], ["c3"]),
         N("Conv", ["x", "wd", "bd"], ["d"], strides=[2, 2]), N("Add", ["c3", "d"], ["a"]),
         N("Relu", ["a"], ["out"])],
        [vi("x", F16, [2, 32, 14, 14])], [vi("out", F16, [2, 64, 7, 7])],
        [const("w1", w(16, 32, 1, 1)), const("b1", w(16)), const("w2", w(16, 16, 3, 3)),
         const("w3", w(64, 16, 1, 1)), const("b3", w(64)), const("wd", w(64, 32, 1, 1)),
         const("bd", w(64))]), "conv-matmul"
    # ViT's patch embedding, smaller: 8x8 patches (strides 8) of a 34x32
    # image (two rows no patch covers), bias, then GELU's neighbour Relu.
    yield "conv_patches_f16", model(
        [N("Conv", ["x", "wp", "bp"], ["p"], kernel_shape=[8, 8], strides=[8, 8]),
         N("Relu", ["p"], ["out"])],
        [vi("x", F16, [2, 3, 34, 32])], [vi("out", F16, [2, 48, 4, 4])],
        [const("wp", w(48, 3, 8, 8)), const("bp", w(48))]), "conv-matmul-all"
    # ResNet's stem (7x7, strides 2, pads 3, three channels: K = 147) and a
    # dilated 3x3: overlapping windows, kept as convolutions (make_carry.sh
    # builds the conv_* patterns with the implicit-GEMM kernel too).
    yield "conv_stem_dilated_f16", model(
        [N("Conv", ["x", "ws", "bs"], ["s"], kernel_shape=[7, 7], strides=[2, 2],
           pads=[3, 3, 3, 3]),
         N("Relu", ["s"], ["r"]),
         N("Conv", ["r", "wd"], ["out"], kernel_shape=[3, 3], pads=[2, 2, 2, 2],
           dilations=[2, 2])],
        [vi("x", F16, [2, 3, 33, 31])], [vi("out", F16, [2, 24, 17, 16])],
        [const("ws", w(16, 3, 7, 7)), const("bs", w(16)), const("wd", w(24, 16, 3, 3))]), \
        "conv-matmul-none"
    del rng


def random_inputs(m, rng):
    out = {}
    for i in m.graph.input:
        tt = i.type.tensor_type
        shape = [d.dim_value for d in tt.shape.dim]
        dt = helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if np.issubdtype(dt, np.floating):
            a = rng.uniform(-2, 2, size=shape).astype(dt)
            a[a == 0] = dt.type(0.5)
        elif dt == np.bool_:
            a = rng.integers(0, 2, size=shape).astype(dt)
        else:
            a = rng.integers(1, 5, size=shape).astype(dt)
        out[i.name] = a
    return out


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kilnc", required=True)
    p.add_argument("--kiln-eval", help="default: beside --kilnc")
    p.add_argument("--work", help="keep the models and outputs here")
    a = p.parse_args()
    kiln_eval = a.kiln_eval or os.path.join(os.path.dirname(a.kilnc), "kiln-eval")
    work = a.work or tempfile.mkdtemp(prefix="kiln-fusion-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    passed = failed = 0
    for name, m, regions in patterns():
        path = os.path.join(work, name + ".onnx")
        onnx.save(m, path)
        inp = os.path.join(work, name + ".inputs.npz")
        np.savez(inp, **random_inputs(m, rng))
        outs, why = [], None
        for level in ("1", "2", "3"):
            o = os.path.join(work, f"{name}.O{level}.npz")
            r = run([kiln_eval, path, "-O", level, "--inputs", inp, "--outputs", o])
            if r.returncode:
                why = f"kiln-eval -O {level} failed: {r.stderr.strip().splitlines()[:1]}"
                break
            with np.load(o) as z:
                outs.append({k: z[k] for k in z.files})
        if why is None:
            for level, other in (("-O2", outs[1]), ("-O3", outs[2])):
                for k, ref in outs[0].items():
                    got = other.get(k)
                    if got is None or got.dtype != ref.dtype or got.shape != ref.shape:
                        why = f"output {k} missing or of another dtype/shape at {level}"
                    elif regions in ("rms", "ln", "gemm", "softmax", "log_softmax", "gelu",
                                     "gelu-matmul", "conv-matmul", "conv-matmul-all",
                                     "conv-matmul-none", "packed-attention"):
                        # conv-matmul: the product and bias are rounded
                        # apart in each of its chained convolutions.
                        tol = 1e-6 if ref.dtype == np.float32 else \
                            2e-3 if str(regions).startswith("conv-matmul") or \
                            regions == "packed-attention" else 1e-3
                        rel = float(np.max(np.abs(got.astype(np.float64) - ref))) / \
                            float(np.max(np.abs(ref)))
                        if rel > tol:
                            why = f"output {k} differs at {level} by {rel:.3g} of its max"
                    elif not np.array_equal(got.view(np.uint8), ref.view(np.uint8)):
                        why = f"output {k} differs at {level}: {int((got != ref).sum())} elements"
                    elif not ref.view(np.uint8).any():
                        why = f"output {k} is all zeros: the pattern checks nothing"
        if why is None:
            r = run([a.kilnc, path, "-O3", "--emit=graph"])
            n = r.stdout.count("graph.fusion")
            nm = r.stdout.count('graph.fusion "matmul"')
            n2 = run([a.kilnc, path, "-O2", "--emit=graph"]).stdout.count("graph.fusion")
            na = r.stdout.count("graph.attention")
            if regions in ("attention", "gqa-attention", "causal-attention",
                           "causal-gqa-attention", "causal-padding-attention",
                           "no-attention", "packed-attention"):
                folded = not any(f"graph.{o} " in r.stdout
                                 for o in ("transpose", "softmax", "slice", "expand"))
                if regions.endswith("gqa-attention"):
                    folded = folded and "q_per_kv" in r.stdout
                if regions == "packed-attention":
                    folded = folded and "q_heads" in r.stdout and \
                        not any(f"graph.{o} " in r.stdout for o in ("gather", "mul"))
                # `causal` (sorted first among the attributes) right after
                # the three operands q, k, v: the mask operand is gone.
                # causal-padding-attention: a fourth operand, the padding
                # bias, and causal_fill for a finite fill.
                bias = ", %[^ ,]+" if regions == "causal-padding-attention" else ""
                causal = re.search(r"graph\.attention %[^ ,]+, %[^ ,]+, %[^ ,]+" + bias +
                                   r" \{causal", r.stdout) is not None
                causal2 = "{causal" in run([a.kilnc, path, "-O2", "--emit=graph"]).stdout
                if regions == "causal-padding-attention" and \
                        ("causal_fill" in r.stdout) != ("lowest" in name):
                    causal = False
                if causal2 != causal or causal != regions.startswith("causal-"):
                    folded = False
                if r.returncode or (regions != "no-attention" and (na != 1 or not folded)) or \
                        (regions == "no-attention" and na):
                    why = f"-O3 made {na} graph.attention ops (folded everything: {folded}), " \
                          f"expected {regions}"
            elif regions == "rms":
                if r.returncode or n or n2 or "rms" not in r.stdout:
                    why = f"expected one layer_norm {{rms}} and no regions at -O2 ({n2}) and " \
                          f"-O3 ({n})"
            elif regions == "ln":
                if r.returncode or n or n2 or r.stdout.count("graph.layer_norm") != 1 or \
                        "rms" in r.stdout or "graph.reduce_mean" in r.stdout:
                    why = f"expected one layer_norm (not rms) and no regions at -O2 ({n2}) and " \
                          f"-O3 ({n})"
            elif regions in ("gelu", "gelu-matmul"):
                # -O2 and -O3 raise the written-out GELU: one graph.gelu, in
                # the matmul's epilogue region for gelu-matmul, else alone.
                want = (1, 1) if regions == "gelu-matmul" else (0, 0)
                for lvl, out in (("-O3", r), ("-O2", run([a.kilnc, path, "-O2", "--emit=graph"]))):
                    nl = out.stdout.count("graph.fusion")
                    nml = out.stdout.count('graph.fusion "matmul"')
                    if out.returncode or (nl, nml) != want or \
                            out.stdout.count("graph.gelu ") != 1 or \
                            any(f"graph.{o} " in out.stdout for o in ("erf", "tanh", "pow")):
                        why = f"expected one graph.gelu and {want[0]} regions at {lvl} " \
                              f"({nl}, {nml} matmul)"
            elif regions in ("conv-matmul", "conv-matmul-all", "conv-matmul-none"):
                # -O2 and -O3: the 1x1 and patch convolutions as matmuls,
                # the others kept (-O1 has every convolution).
                convs = run([a.kilnc, path, "-O1", "--emit=graph"]).stdout.count("graph.conv ")
                keep = {"conv-matmul-all": 0, "conv-matmul": 1}.get(regions, convs)
                for lvl, out in (("-O3", r), ("-O2", run([a.kilnc, path, "-O2", "--emit=graph"]))):
                    left = out.stdout.count("graph.conv ")
                    mms = out.stdout.count("graph.matmul ")
                    if out.returncode or left != keep or mms != convs - keep:
                        why = f"expected {convs - keep} convolutions as matmuls at {lvl} " \
                              f"({mms}, {left} convolutions left)"
            elif regions in ("softmax", "log_softmax"):
                if r.returncode or n or n2 or r.stdout.count(f"graph.{regions} ") != 1 or \
                        any(f"graph.{o} " in r.stdout for o in ("exp", "reduce_sum", "reduce_max")):
                    why = f"expected one graph.{regions} and no regions at -O2 ({n2}) and " \
                          f"-O3 ({n})"
            elif r.returncode or (regions in ("matmul", "gemm") and (n, nm) != (1, 1)) or \
                    (regions not in ("matmul", "gemm") and (n != regions or nm)) or \
                    (regions == "gemm" and "graph.gemm" in r.stdout):
                why = f"-O3 made {n} fusion regions ({nm} matmul), expected {regions}"
        if why:
            failed += 1
            print(f"FAIL {name}: {why}")
        else:
            passed += 1
            what = "1 graph.attention" if regions == "attention" else \
                "1 graph.attention with q_per_kv" if regions == "gqa-attention" else \
                "1 causal graph.attention (-O2 and -O3)" if regions == "causal-attention" else \
                "1 causal graph.attention with a padding bias (-O2 and -O3)" \
                if regions == "causal-padding-attention" else \
                "1 causal graph.attention with q_per_kv (-O2 and -O3)" \
                if regions == "causal-gqa-attention" else \
                "1 graph.attention reading the packed projection in place" \
                if regions == "packed-attention" else \
                "no graph.attention" if regions == "no-attention" else \
                "1 matmul region" if regions == "matmul" else \
                "1 graph.gelu in 1 matmul region (-O2 and -O3)" if regions == "gelu-matmul" else \
                "1 graph.gelu (-O2 and -O3)" if regions == "gelu" else \
                "convolutions as matmuls, one kept (-O2 and -O3)" if regions == "conv-matmul" else \
                "convolutions as matmuls (-O2 and -O3)" if regions == "conv-matmul-all" else \
                "convolutions kept (-O2 and -O3)" if regions == "conv-matmul-none" else \
                "Gemm split into 1 matmul region" if regions == "gemm" else \
                "layer_norm {rms}" if regions == "rms" else \
                "layer_norm" if regions == "ln" else \
                f"graph.{regions}" if regions in ("softmax", "log_softmax") else \
                f"{regions} region{'s' if regions > 1 else ''}"
            how = "-O2 and -O3 within 2e-3" if str(regions).startswith("conv-matmul") or \
                regions == "packed-attention" else \
                "-O2 and -O3 within 1e-6 (f16: 1e-3)" \
                if regions in ("rms", "ln", "gemm", "softmax", "log_softmax", "gelu",
                               "gelu-matmul") else "-O2 and -O3 bitwise"
            print(f"PASS {name}: {what}; {how} of -O1")
    print(f"fusion_check: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
