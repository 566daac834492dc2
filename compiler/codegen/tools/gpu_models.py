#!/usr/bin/env python3
"""Small ONNX models that together use every graph op, for GPU checks.

Each entry is (name, mkonnx description). make_bundles.py turns them into GPU
check bundles (kilnc --emit=graph, then kiln-cgc --bundle); gpu_check.py runs
the bundles on a GPU and compares with the reference evaluator's outputs.
Integer inputs are random in [0, 10), floats in [-1, 1).
"""

UNARY = ["Sqrt", "Reciprocal", "Exp", "Log", "Erf", "Tanh", "Sigmoid", "Sin", "Cos",
         "Floor", "Ceil", "Neg", "Abs", "Relu"]


def unary_model(dtype):
    stmts = [f"x: {dtype}[3,1000]"]
    outs = []
    for i, op in enumerate(UNARY):
        stmts.append(f"u{i} = {op}(x)")
        outs.append(f"u{i}")
    stmts += ["g0 = Gelu(x)", "g1 = Gelu(x, approximate=tanh)", "l0 = LeakyRelu(x, alpha=0.2)",
              "c0 = Clip(x, lo, hi)", "n0 = IsNaN(x)",
              f"lo: {dtype}[] = {{-0.25}}", f"hi: {dtype}[] = {{0.5}}"]
    outs += ["g0", "g1", "l0", "c0", "n0"]
    return "; ".join(stmts + ["out " + ", ".join(outs)])


def binary_model(dtype, a="[4,1,64]", b="[3,64]"):
    ops = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "Equal", "Less", "LessOrEqual",
           "Greater", "GreaterOrEqual"]
    stmts = [f"x: {dtype}{a}", f"y: {dtype}{b}"]
    stmts += [f"o{i} = {op}(x, y)" for i, op in enumerate(ops)]
    return "; ".join(stmts + ["out " + ", ".join(f"o{i}" for i in range(len(ops)))])


def int_model(dtype):
    ops = ["Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "Equal", "Less", "Greater"]
    stmts = [f"x: {dtype}[5,33]", f"y: {dtype}[33]"]
    stmts += [f"o{i} = {op}(x, y)" for i, op in enumerate(ops)]
    outs = [f"o{i}" for i in range(len(ops))]
    if dtype[0] == "i":
        stmts += ["n = Neg(x)", "a = Abs(n)", "r = Relu(n)"]
        outs += ["n", "a", "r"]
    stmts += [f"lo: {dtype}[] = {{2}}", f"hi: {dtype}[] = {{7}}", "c = Clip(x, lo, hi)"]
    outs.append("c")
    return "; ".join(stmts + ["out " + ", ".join(outs)])


MODELS = [
    ("unary_f32", unary_model("f32")),
    ("unary_f16", unary_model("f16")),
    ("unary_bf16", unary_model("bf16")),
    ("unary_f64", unary_model("f64")),
    ("binary_f32", binary_model("f32")),
    ("binary_f16", binary_model("f16")),
    ("binary_f32_same", binary_model("f32", "[64,128]", "[64,128]")),
    ("binary_f64_scalar", binary_model("f64", "[7,9]", "[]")),
    ("int_i32", int_model("i32")),
    ("int_i64", int_model("i64")),
    ("int_i8", int_model("i8")),
    ("int_u8", int_model("u8")),
    ("logic", "a: bool[4,16]; b: bool[16]; x: f32[4,16]; y: f32[1,16]; "
              "o0 = And(a, b); o1 = Or(a, b); o2 = Xor(a, b); o3 = Not(a); o4 = Where(a, x, y); "
              "o5 = Equal(a, b); out o0, o1, o2, o3, o4, o5"),
    ("casts", "x: f32[6,40]; s: f32[] = {3.0}; y = Mul(x, s); "
              "a = Cast(y, to=i32); b = Cast(y, to=i8); c = Cast(y, to=u8); d = Cast(y, to=bool); "
              "e = Cast(y, to=f16); f = Cast(y, to=bf16); g = Cast(y, to=f64); "
              "h = Cast(a, to=f32); i = Cast(e, to=f32); j = Cast(d, to=i64); k = Cast(a, to=i64); "
              "out a, b, c, d, e, f, g, h, i, j, k"),
    ("reduce_f32", "x: f32[4,6,300]; "
                   "s0 = ReduceSum(x, ax0); s1 = ReduceMean(x, ax2, keepdims=0); "
                   "s2 = ReduceMax(x, ax1); s3 = ReduceMin(x, ax02); s4 = ReduceProd(x, ax1); "
                   "s5 = ReduceSum(x); s6 = ReduceMax(x, ax2); s7 = ReduceMean(x, ax12); "
                   "ax0: i64[1] = {0}; ax1: i64[1] = {1}; ax2: i64[1] = {-1}; ax02: i64[2] = {0, 2}; "
                   "ax12: i64[2] = {1, 2}; out s0, s1, s2, s3, s4, s5, s6, s7"),
    ("reduce_f16", "x: f16[8,1000]; s0 = ReduceSum(x, ax1); s1 = ReduceMean(x, ax0); "
                   "s2 = ReduceMax(x, ax1); ax0: i64[1] = {0}; ax1: i64[1] = {1}; out s0, s1, s2"),
    ("reduce_int", "x: i32[5,7,9]; s0 = ReduceSum(x, ax2); s1 = ReduceMax(x, ax0); "
                   "s2 = ReduceMin(x, ax1); s3 = ReduceMean(x, ax2); s4 = ReduceProd(y, ax1); "
                   "y: i64[3,4]; ax0: i64[1] = {0}; ax1: i64[1] = {1}; ax2: i64[1] = {2}; "
                   "out s0, s1, s2, s3, s4"),
    ("softmax", "x: f32[4,7,130]; a = Softmax(x, axis=-1); b = Softmax(x, axis=1); "
                "c = LogSoftmax(x, axis=-1); d = LogSoftmax(x, axis=0); out a, b, c, d"),
    ("softmax_f16", "x: f16[16,2048]; a = Softmax(x, axis=-1); out a"),
    ("layernorm", "x: f32[2,9,768]; g: f32[768] = random(seed=3); b: f32[768] = random(seed=4); "
                  "y = LayerNormalization(x, g, b, axis=-1, epsilon=1e-5); "
                  "x2: f32[3,4,8]; g2: f32[4,8] = random(seed=5); "
                  "y2 = LayerNormalization(x2, g2, axis=1); out y, y2"),
    ("layernorm_f16", "x: f16[4,512]; g: f16[512] = random(seed=3); b: f16[512] = random(seed=4); "
                      "y = LayerNormalization(x, g, b, axis=-1); out y"),
    ("batchnorm", "x: f32[2,3,5,5]; s: f32[3] = random(seed=1); b: f32[3] = random(seed=2); "
                  "m: f32[3] = random(seed=3); v: f32[3] = random(seed=4, low=0.5, high=2.0); "
                  "y = BatchNormalization(x, s, b, m, v, epsilon=1e-5); out y"),
    ("matmul_f32", "a: f32[2,3,37,72]; b: f32[72,200]; c = MatMul(a, b); "
                   "d: f32[2,1,5,8]; e: f32[3,8,6]; f = MatMul(d, e); "
                   "v: f32[8]; g = MatMul(v, e); h = MatMul(d, v); out c, f, g, h"),
    ("matmul_f32_big", "a: f32[300,257]; b: f32[257,190]; c = MatMul(a, b); out c"),
    ("matmul_f64", "a: f64[33,20]; b: f64[20,17]; c = MatMul(a, b); out c"),
    ("matmul_i32", "a: i32[9,13]; b: i32[13,5]; c = MatMul(a, b); out c"),
    ("matmul_f16", "a: f16[256,128]; b: f16[128,192]; c = MatMul(a, b); "
                   "d: f16[37,72]; e: f16[72,200]; f = MatMul(d, e); "
                   "g: f16[3,40,24]; h: f16[3,24,33]; i = MatMul(g, h); out c, f, i"),
    ("matmul_bf16", "a: bf16[130,64]; b: bf16[64,136]; c = MatMul(a, b); out c"),
    ("gemm_f32", "a: f32[8,40]; b: f32[64,40]; c: f32[64]; y = Gemm(a, b, c, transB=1); "
                 "a2: f32[40,8]; b2: f32[40,30]; c2: f32[8,1]; "
                 "y2 = Gemm(a2, b2, c2, transA=1, alpha=0.5, beta=2.0); "
                 "a3: f32[40,8]; b3: f32[30,40]; y3 = Gemm(a3, b3, transA=1, transB=1); out y, y2, y3"),
    ("gemm_f16", "a: f16[130,96]; b: f16[200,96]; c: f16[200]; y = Gemm(a, b, c, transB=1); "
                 "a2: f16[96,130]; b2: f16[96,200]; y2 = Gemm(a2, b2, transA=1, alpha=0.25); "
                 "a3: f16[96,130]; b3: f16[200,96]; y3 = Gemm(a3, b3, transA=1, transB=1); "
                 "out y, y2, y3"),
    ("conv", "x: f32[2,4,11,11]; w: f32[6,2,3,3] = random(seed=1); b: f32[6] = random(seed=2); "
             "y = Conv(x, w, b, group=2, pads=[1,1,0,0], strides=[2,1], dilations=[1,2]); "
             "x1: f32[1,3,20]; w1: f32[5,3,4] = random(seed=3); y1 = Conv(x1, w1); "
             "w2: f32[8,4,1,1] = random(seed=4); y2 = Conv(x, w2); out y, y1, y2"),
    ("conv_f16", "x: f16[1,8,16,16]; w: f16[8,8,3,3] = random(seed=1); "
                 "y = Conv(x, w, pads=[1,1,1,1]); out y"),
    ("pool", "x: f32[2,3,9,9]; "
             "a = MaxPool(x, kernel_shape=[3,3], strides=[2,2], pads=[1,1,1,1]); "
             "b = AveragePool(x, kernel_shape=[3,3], strides=[2,2], pads=[1,1,1,1]); "
             "c = AveragePool(x, kernel_shape=[3,3], strides=[2,2], pads=[1,1,1,1], count_include_pad=1); "
             "d = MaxPool(x, kernel_shape=[2,2], strides=[2,2], ceil_mode=1); "
             "e = AveragePool(x, kernel_shape=[2,2], strides=[2,2], ceil_mode=1); "
             "f = MaxPool(x, kernel_shape=[3,3], dilations=[2,2]); g = GlobalAveragePool(x); "
             "out a, b, c, d, e, f, g"),
    ("gather", "t: f32[100,64]; ids: i64[2,5]; e = Gather(t, ids); "
               "d: f32[3,7,5]; j: i64[4] = {-1, 0, 6, -7}; f = Gather(d, j, axis=1); "
               "k: i32[2,2] = {{1, -3}, {4, 0}}; g = Gather(d, k, axis=2); "
               "q: i64[3,2,5] = {{{0,1,2,3,4},{6,5,4,3,2}},{{-1,-2,-3,0,0},{1,1,1,1,1}},"
               "{{2,2,2,2,2},{3,3,3,3,3}}}; h = GatherElements(d, q, axis=1); out e, f, g, h"),
    ("movement", "x: f32[2,3,4,8]; "
                 "t0 = Transpose(x, perm=[0,2,1,3]); t1 = Transpose(x, perm=[3,1,2,0]); "
                 "s0 = Slice(x, st0, en0, ax0); st0: i64[2] = {1, 6}; en0: i64[2] = {3, 0}; "
                 "ax0: i64[2] = {1, 3}; "
                 "s1 = Slice(x, st1, en1, ax1, sp1); st1: i64[1] = {7}; en1: i64[1] = {-100}; "
                 "ax1: i64[1] = {3}; sp1: i64[1] = {-2}; "
                 "y: f32[2,1,4,8]; c0 = Concat(x, y, x, axis=1); z: f32[2,3,4,5]; "
                 "c1 = Concat(x, z, axis=3); "
                 "v: f32[3,1]; e0 = Expand(v, sh); sh: i64[3] = {2, 3, 4}; "
                 "u0 = Trilu(x); u1 = Trilu(x, kk, upper=0); kk: i64[] = {-1}; "
                 "r0 = Reshape(x, rs); rs: i64[2] = {6, 32}; "
                 "out t0, t1, s0, s1, c0, c1, e0, u0, u1, r0"),
    ("outputs", "x: f32[4,6]; w: f32[4,6] = random(seed=9); y = Relu(x); "
                "r = Reshape(y, rs); rs: i64[1] = {24}; i0 = Identity(x); "
                "s = Slice(y, st, en); st: i64[1] = {1}; en: i64[1] = {3}; "
                "out r, i0, y, w, s, y"),
    ("split", "x: f32[6,10]; a, b, c = Split(x, sp, axis=1); sp: i64[3] = {2, 3, 5}; "
              "d = Add(a, a); out d, b, c"),
    ("empty", "x: f32[3,0]; y = Relu(x); s = ReduceSum(x, ax); ax: i64[1] = {1}; out y, s"),
    ("transformer_block_f32",
     "ids: i64[2,16]; emb: f32[100,64] = random(seed=1); x = Gather(emb, ids); "
     "g: f32[64] = random(seed=2); b: f32[64] = random(seed=3); h = LayerNormalization(x, g, b, axis=-1); "
     "wq: f32[64,64] = random(seed=4); wk: f32[64,64] = random(seed=5); wv: f32[64,64] = random(seed=6); "
     "q = MatMul(h, wq); k = MatMul(h, wk); v = MatMul(h, wv); "
     "kt = Transpose(k, perm=[0,2,1]); s = MatMul(q, kt); sc: f32[] = {0.125}; s2 = Mul(s, sc); "
     "mask: f32[16,16] = random(seed=9); m2 = Trilu(mask); s3 = Add(s2, m2); "
     "p = Softmax(s3, axis=-1); a = MatMul(p, v); r = Add(x, a); "
     "w1: f32[64,256] = random(seed=7); w2: f32[256,64] = random(seed=8); "
     "f1 = MatMul(r, w1); f2 = Gelu(f1); f3 = MatMul(f2, w2); y = Add(r, f3); out y"),
    ("cnn", "x: f32[2,3,16,16]; w: f32[8,3,3,3] = random(seed=1); c = Conv(x, w, pads=[1,1,1,1]); "
            "s: f32[8] = random(seed=2); b: f32[8] = random(seed=3); m: f32[8] = random(seed=4); "
            "v: f32[8] = random(seed=5, low=0.5, high=1.5); n = BatchNormalization(c, s, b, m, v); "
            "r = Relu(n); p = MaxPool(r, kernel_shape=[2,2], strides=[2,2]); g = GlobalAveragePool(p); "
            "f = Flatten(g); fw: f32[10,8] = random(seed=6); fb: f32[10] = random(seed=7); "
            "y = Gemm(f, fw, fb, transB=1); z = LogSoftmax(y, axis=1); out z"),
]

# Large models for timing (bundled without reference data: gpu_check.py fills
# the inputs on the GPU and checks against PyTorch). Each entry: name,
# description, and the work per run for the report ("flops" or "bytes").
PERF_MODELS = [
    ("perf_mm_f16", "a: f16[4096,4096]; b: f16[4096,4096]; c = MatMul(a, b); out c",
     ("flops", 2 * 4096 ** 3)),
    ("perf_gemm_f16_tb", "a: f16[4096,4096]; b: f16[4096,4096]; y = Gemm(a, b, transB=1); out y",
     ("flops", 2 * 4096 ** 3)),
    ("perf_bmm_f16", "a: f16[64,512,64]; b: f16[64,64,512]; c = MatMul(a, b); out c",
     ("flops", 2 * 64 * 512 * 512 * 64)),
    ("perf_mm_f32", "a: f32[2048,2048]; b: f32[2048,2048]; c = MatMul(a, b); out c",
     ("flops", 2 * 2048 ** 3)),
    ("perf_add_f32", "x: f32[8192,8192]; y: f32[8192]; z = Add(x, y); out z",
     ("bytes", 2 * 4 * 8192 * 8192)),
    ("perf_softmax_f16", "x: f16[8192,4096]; y = Softmax(x, axis=-1); out y",
     ("bytes", 2 * 2 * 8192 * 4096)),
    ("perf_layernorm_f16", "x: f16[8192,4096]; g: f16[4096]; b: f16[4096]; "
     "y = LayerNormalization(x, g, b, axis=-1); out y", ("bytes", 2 * 2 * 8192 * 4096)),
    ("perf_reduce_f32", "x: f32[8192,4096]; ax: i64[1] = {1}; y = ReduceSum(x, ax); out y",
     ("bytes", 4 * 8192 * 4096)),
    ("perf_transpose_f32", "x: f32[4096,4096]; y = Transpose(x, perm=[1,0]); out y",
     ("bytes", 2 * 4 * 4096 * 4096)),
    ("perf_conv_f32", "x: f32[8,64,56,56]; w: f32[64,64,3,3]; y = Conv(x, w, pads=[1,1,1,1]); out y",
     ("flops", 2 * 8 * 64 * 56 * 56 * 64 * 9)),
]
