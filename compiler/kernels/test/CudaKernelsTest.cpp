//===- CudaKernelsTest.cpp - Every kernel kind through NVRTC, no GPU ------===//
//
// Builds launch specs for every kind over a spread of dtypes and shapes
// (broadcasts, odd extents, vector and scalar paths, both matmul paths with
// every transpose), runs the heuristics and the emitters, and compiles each
// kernel with NVRTC for sm_90: a cubin must come out and the PTX must define
// the entry. Exits 77 (skipped) when NVRTC is not installed, or 0 with
// --allow-missing-nvrtc (for lit).
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/kernels/common/KernelSource.h"
#include "compiler/nvrtc/NvrtcCompiler.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unistd.h>
#include <vector>

using namespace kiln::codegen;
using kiln::codegen::DType;

namespace {

BufferSpec buf(DType t, std::vector<int64_t> shape, int64_t align = 256) {
  BufferSpec b;
  b.dtype = t;
  b.shape = std::move(shape);
  b.alignment = align;
  return b;
}

struct Case {
  LaunchSpec spec;
  int64_t expectVec = -1; // -1: don't care
  /// Text the generated source must contain (the path a template takes).
  std::vector<std::string> expectSource;
  /// The launch geometry configureLaunch must pick (0: don't care).
  int64_t expectBlock = 0, expectGrid = 0;
  /// Text the compiled PTX must contain (instructions the template only
  /// emits when the path is instantiated), and must not.
  std::vector<std::string> expectPtx, rejectPtx;
};

std::vector<Case> cases;
/// Launches configureLaunch must reject, with a piece of the message.
std::vector<std::pair<LaunchSpec, std::string>> rejects;

LaunchSpec &add(const std::string &name, const std::string &kind,
                std::vector<BufferSpec> ins, BufferSpec out,
                int64_t expectVec = -1) {
  Case c;
  c.spec.name = name;
  c.spec.kind = kind;
  c.spec.inputs = std::move(ins);
  c.spec.outputs = {std::move(out)};
  c.expectVec = expectVec;
  cases.push_back(std::move(c));
  return cases.back().spec;
}

/// Sets integer config keys of a launch.
void setInts(LaunchSpec &s,
             std::initializer_list<std::pair<const char *, int64_t>> kv) {
  for (auto [k, v] : kv)
    s.config.set(k, ConfigValue::ofInt(v));
}

void setOp(LaunchSpec &s, const std::string &op) {
  s.config.set("op", ConfigValue::ofString(op));
}

/// The last case added: what its source must contain and its geometry.
void expect(std::vector<std::string> source, int64_t block = 0,
            int64_t grid = 0) {
  cases.back().expectSource = std::move(source);
  cases.back().expectBlock = block;
  cases.back().expectGrid = grid;
}

LaunchSpec &softmaxRow(const std::string &name, DType t, int64_t rows,
                       int64_t len, bool log = false, int64_t align = 256) {
  LaunchSpec &s =
      add(name, "softmax", {buf(t, {rows, len}, align)}, buf(t, {rows, len}));
  s.config.set("axis", ConfigValue::ofInt(1));
  s.config.set("log", ConfigValue::ofBool(log));
  return s;
}

LaunchSpec &layerNormRow(const std::string &name, DType t, DType st,
                         int64_t rows, int64_t n, bool bias,
                         int64_t scaleAlign = 256) {
  std::vector<BufferSpec> ins = {buf(t, {rows, n}), buf(st, {n}, scaleAlign)};
  if (bias)
    ins.push_back(buf(st, {n}, scaleAlign));
  LaunchSpec &l = add(name, "layer_norm", ins, buf(t, {rows, n}));
  l.config.set("axis", ConfigValue::ofInt(1));
  l.config.set("epsilon", ConfigValue::ofFloat(1e-5));
  return l;
}

void tf32Cases();

void buildCases() {
  const DType floats[] = {DType::F32, DType::F16, DType::BF16, DType::F64};
  const DType ints[] = {DType::I8, DType::I32, DType::I64, DType::U8,
                        DType::U32};
  for (DType t : floats) {
    for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow"})
      setOp(add(std::string(op) + "_" + dtypeName(t), "elementwise",
                {buf(t, {4, 64}), buf(t, {64})}, buf(t, {4, 64})),
            op);
    for (const char *op : {"equal", "less", "greater_or_equal"})
      setOp(add(std::string(op) + "_" + dtypeName(t), "elementwise",
                {buf(t, {3, 1, 5}), buf(t, {4, 1})},
                buf(DType::Bool, {3, 4, 5})),
            op);
    for (const char *op :
         {"sqrt", "reciprocal", "exp", "log", "erf", "tanh", "sigmoid", "sin",
          "cos", "floor", "ceil", "neg", "abs", "relu", "gelu", "leaky_relu",
          "clip", "is_nan"})
      setOp(add(std::string(op) + "_" + dtypeName(t), "elementwise",
                {buf(t, {1000})},
                buf(std::string(op) == "is_nan" ? DType::Bool : t, {1000})),
            op);
  }
  {
    LaunchSpec &s = add("gelu_tanh", "elementwise", {buf(DType::F32, {8, 16})},
                        buf(DType::F32, {8, 16}));
    setOp(s, "gelu");
    s.config.set("approximate", ConfigValue::ofString("tanh"));
    LaunchSpec &c = add("clip_min", "elementwise", {buf(DType::F16, {8, 16})},
                        buf(DType::F16, {8, 16}));
    setOp(c, "clip");
    c.config.set("min", ConfigValue::ofFloat(0.0));
  }
  for (DType t : ints) {
    for (const char *op : {"add", "sub", "mul", "div", "max", "min", "pow"})
      setOp(add(std::string(op) + "_" + dtypeName(t), "elementwise",
                {buf(t, {2, 3, 7}), buf(t, {3, 1})}, buf(t, {2, 3, 7})),
            op);
    for (const char *op : {"neg", "abs", "relu", "clip"}) {
      LaunchSpec &s = add(std::string(op) + "_" + dtypeName(t), "elementwise",
                          {buf(t, {33})}, buf(t, {33}));
      setOp(s, op);
      s.config.set("min", ConfigValue::ofFloat(-3.5));
      s.config.set("max", ConfigValue::ofFloat(100.0));
    }
  }
  // pow with mixed types, logic, where, casts between every pair of classes.
  setOp(add("pow_f32_i64", "elementwise",
            {buf(DType::F32, {16}), buf(DType::I64, {16})},
            buf(DType::F32, {16})),
        "pow");
  setOp(add("pow_i32_f32", "elementwise",
            {buf(DType::I32, {16}), buf(DType::F32, {16})},
            buf(DType::I32, {16})),
        "pow");
  for (const char *op : {"and", "or", "xor"})
    setOp(add(op, "elementwise",
              {buf(DType::Bool, {64}), buf(DType::Bool, {1})},
              buf(DType::Bool, {64})),
          op);
  setOp(add("not", "elementwise", {buf(DType::Bool, {64})},
            buf(DType::Bool, {64})),
        "not");
  setOp(add("where", "elementwise",
            {buf(DType::Bool, {2, 1, 8}), buf(DType::F32, {3, 8}),
             buf(DType::F32, {})},
            buf(DType::F32, {2, 3, 8})),
        "where");
  const DType all[] = {DType::F32,  DType::F16, DType::BF16, DType::F64,
                       DType::Bool, DType::I8,  DType::I16,  DType::I32,
                       DType::I64,  DType::U8,  DType::U64};
  for (DType a : all)
    for (DType b : all)
      setOp(add(std::string("cast_") + dtypeName(a) + "_" + dtypeName(b),
                "elementwise", {buf(a, {12})}, buf(b, {12})),
            "cast");
  // Vector widths: contiguous f32 gets 4, an odd extent 1, a misaligned
  // alias 1.
  setOp(add("copy_vec", "elementwise", {buf(DType::F32, {1024})},
            buf(DType::F32, {1024}), 4),
        "copy");
  setOp(add("copy_odd", "elementwise", {buf(DType::F32, {1023})},
            buf(DType::F32, {1023}), 1),
        "copy");
  setOp(add("copy_misaligned", "elementwise", {buf(DType::F32, {1024}, 4)},
            buf(DType::F32, {1024}), 1),
        "copy");
  setOp(add("add_bcast_vec", "elementwise",
            {buf(DType::F16, {128, 1}), buf(DType::F16, {128, 64})},
            buf(DType::F16, {128, 64}), 8),
        "add");
  setOp(add("expand", "elementwise", {buf(DType::I64, {3, 1})},
            buf(DType::I64, {2, 3, 4})),
        "copy");

  // Fused elementwise programs: a broadcast mask chain, mixed dtypes with a
  // compare/where, attributes, and a vectorized fp16 chain.
  {
    LaunchSpec &f = add("fused_mask", "fused_elementwise",
                        {buf(DType::F32, {2, 4, 8, 8}), buf(DType::F32, {2, 1, 1, 8}),
                         buf(DType::F32, {})},
                        buf(DType::F32, {2, 4, 8, 8}));
    f.config.set("program", ConfigValue::ofString(
                                "t0 = mul(i1, i2) : f32; t1 = add(i0, t0) : f32"));
    LaunchSpec &m = add("fused_where_cast", "fused_elementwise",
                        {buf(DType::F16, {4, 8}), buf(DType::F32, {8})},
                        buf(DType::F32, {4, 8}));
    m.config.set("program",
                 ConfigValue::ofString("t0 = cast(i0) : f32; t1 = greater(t0, i1) : i1; "
                                       "t2 = copy(i1) : f32; t3 = where(t1, t0, t2) : f32"));
    LaunchSpec &g = add("fused_gelu_f16", "fused_elementwise",
                        {buf(DType::F16, {64, 256}), buf(DType::F16, {256})},
                        buf(DType::F16, {64, 256}), 8);
    g.config.set("program",
                 ConfigValue::ofString("t0 = add(i0, i1) : f16; t1 = gelu{approximate=tanh}(t0) : f16; "
                                       "t2 = leaky_relu{alpha=0.10000000000000001}(t1) : f16; "
                                       "t3 = clip{max=6,min=-6}(t2) : f16"));
    LaunchSpec &b = add("fused_bf16_int", "fused_elementwise",
                        {buf(DType::BF16, {1000}), buf(DType::I32, {1000})},
                        buf(DType::BF16, {1000}));
    b.config.set("program", ConfigValue::ofString(
                                "t0 = cast(i1) : bf16; t1 = sub(i0, t0) : bf16; t2 = exp(t1) : bf16"));
  }

  // Explicit index maps (a region's reshape and transpose): x [2, 64, 256]
  // split into 8 heads of 32 and read as [2, 8, 64, 32], plus a bias over
  // the head dim; vectorized along the head dim.
  {
    LaunchSpec &h = add("fused_index_maps", "fused_elementwise",
                        {buf(DType::F16, {2, 64, 256}), buf(DType::F16, {32})},
                        buf(DType::F16, {2, 8, 64, 32}), 8);
    h.config.set("program", ConfigValue::ofString(
                                "t0 = sigmoid(i0) : f16; t1 = add(t0, i1) : f16"));
    h.config.set("space", ConfigValue::ofInts({2, 8, 64, 32}));
    h.config.set("input_strides",
                 ConfigValue::ofInts({16384, 32, 256, 1, 0, 0, 0, 1}));
    expect({"const int c1 = c_r % 8;"}, 0, 0);
    // Maps that read past an input, or do not cover the output.
    LaunchSpec past = h;
    past.name = "fused_index_maps_past_end";
    past.config.set("input_strides",
                    ConfigValue::ofInts({16384, 32, 256, 1, 0, 0, 1, 1}));
    rejects.push_back({past, "input 1 is read past its 32 elements"});
    LaunchSpec small = h;
    small.name = "fused_index_maps_small_space";
    small.config.set("space", ConfigValue::ofInts({2, 8, 64, 16}));
    rejects.push_back({small, "space has 16384 elements, the output 32768"});
  }

  // RMSNorm: the layer_norm kernel without the mean pass.
  {
    LaunchSpec &r = add("rms_norm_f16", "layer_norm",
                        {buf(DType::F16, {8, 256}), buf(DType::F16, {256})},
                        buf(DType::F16, {8, 256}));
    r.config.set("axis", ConfigValue::ofInt(1));
    r.config.set("epsilon", ConfigValue::ofFloat(1e-6));
    r.config.set("rms", ConfigValue::ofBool(true));
  }

  // Matmul epilogue programs: bias + GELU on tensor cores, bias + residual
  // with a cast on the SIMT path.
  {
    LaunchSpec &e = add("matmul_epilogue_mma", "matmul",
                        {buf(DType::F16, {128, 64}), buf(DType::F16, {64, 256}),
                         buf(DType::F16, {256})},
                        buf(DType::F16, {128, 256}));
    e.config.set("trans_a", ConfigValue::ofBool(false));
    e.config.set("trans_b", ConfigValue::ofBool(false));
    e.config.set("epilogue", ConfigValue::ofString(
                                 "t0 = add(i0, i1) : f16; t1 = gelu{approximate=none}(t0) : f16"));
    LaunchSpec &r = add("matmul_epilogue_simt", "matmul",
                        {buf(DType::F32, {33, 20}), buf(DType::F32, {20, 48}),
                         buf(DType::F32, {48}), buf(DType::F16, {33, 48}), buf(DType::F32, {})},
                        buf(DType::F32, {33, 48}));
    r.config.set("trans_a", ConfigValue::ofBool(false));
    r.config.set("trans_b", ConfigValue::ofBool(true));
    r.inputs[1] = buf(DType::F32, {48, 20});
    r.config.set("epilogue", ConfigValue::ofString(
                                 "t0 = add(i0, i1) : f32; t1 = cast(i2) : f32; t2 = add(t0, t1) : f32; "
                                 "t3 = mul(t2, i3) : f32"));
  }

  // Data movement.
  {
    LaunchSpec &t = add("transpose", "transpose", {buf(DType::F32, {2, 3, 4})},
                        buf(DType::F32, {4, 2, 3}));
    t.config.set("perm", ConfigValue::ofInts({2, 0, 1}));
    LaunchSpec &t2 =
        add("transpose_inner", "transpose", {buf(DType::F16, {8, 4, 64})},
            buf(DType::F16, {4, 8, 64}), 8);
    t2.config.set("perm", ConfigValue::ofInts({1, 0, 2}));
    LaunchSpec &t3 =
        add("transpose_tiled_bool", "transpose",
            {buf(DType::Bool, {5, 3, 40, 2})}, buf(DType::Bool, {5, 2, 40, 3}));
    t3.config.set("perm", ConfigValue::ofInts({0, 3, 2, 1}));
    LaunchSpec &t4 =
        add("transpose_tiled_f16", "transpose", {buf(DType::F16, {100, 70})},
            buf(DType::F16, {70, 100}));
    t4.config.set("perm", ConfigValue::ofInts({1, 0}));
    LaunchSpec &sl = add("slice", "slice", {buf(DType::F32, {4, 8})},
                         buf(DType::F32, {4, 3}));
    sl.config.set("starts", ConfigValue::ofInts({0, 7}));
    sl.config.set("steps", ConfigValue::ofInts({1, -2}));
    LaunchSpec &tr = add("trilu", "trilu", {buf(DType::F32, {2, 5, 8})},
                         buf(DType::F32, {2, 5, 8}), 4);
    tr.config.set("k", ConfigValue::ofInt(-1));
    tr.config.set("upper", ConfigValue::ofBool(true));
    LaunchSpec &cc =
        add("concat", "concat",
            {buf(DType::F32, {2, 3, 4}), buf(DType::F32, {2, 1, 4}),
             buf(DType::F32, {2, 0, 4})},
            buf(DType::F32, {2, 4, 4}), 4);
    cc.config.set("axis", ConfigValue::ofInt(1));
    LaunchSpec &c2 = add("concat_last", "concat",
                         {buf(DType::I64, {2, 3}), buf(DType::I64, {2, 5})},
                         buf(DType::I64, {2, 8}), 1);
    c2.config.set("axis", ConfigValue::ofInt(1));
  }
  // Reductions.
  for (DType t : {DType::F32, DType::F16, DType::F64, DType::I32, DType::U8}) {
    for (const char *op : {"sum", "mean", "max", "min", "prod"}) {
      LaunchSpec &r = add(std::string("reduce_row_") + op + dtypeName(t),
                          "reduce", {buf(t, {4, 3, 300})}, buf(t, {4, 3, 1}));
      setOp(r, op);
      r.config.set("axes", ConfigValue::ofInts({2}));
      LaunchSpec &c = add(std::string("reduce_col_") + op + dtypeName(t),
                          "reduce", {buf(t, {5, 6, 7})}, buf(t, {6}));
      setOp(c, op);
      c.config.set("axes", ConfigValue::ofInts({0, 2}));
    }
  }
  {
    LaunchSpec &r = add("reduce_bool", "reduce", {buf(DType::Bool, {4, 40})},
                        buf(DType::Bool, {4}));
    setOp(r, "max");
    r.config.set("axes", ConfigValue::ofInts({1}));
    LaunchSpec &all2 = add("reduce_all", "reduce", {buf(DType::F32, {3, 4, 5})},
                           buf(DType::F32, {}));
    setOp(all2, "sum");
  }
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64})
    for (bool log : {false, true}) {
      LaunchSpec &s = add(std::string("softmax_row_") + dtypeName(t), "softmax",
                          {buf(t, {3, 100})}, buf(t, {3, 100}));
      s.config.set("axis", ConfigValue::ofInt(1));
      s.config.set("log", ConfigValue::ofBool(log));
      LaunchSpec &c = add(std::string("softmax_col_") + dtypeName(t), "softmax",
                          {buf(t, {3, 100, 5})}, buf(t, {3, 100, 5}));
      c.config.set("axis", ConfigValue::ofInt(1));
      c.config.set("log", ConfigValue::ofBool(log));
    }
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    LaunchSpec &l = add(std::string("layer_norm_") + dtypeName(t), "layer_norm",
                        {buf(t, {2, 7, 768}), buf(t, {768}), buf(t, {768})},
                        buf(t, {2, 7, 768}));
    l.config.set("axis", ConfigValue::ofInt(2));
    l.config.set("epsilon", ConfigValue::ofFloat(1e-5));
    LaunchSpec &l2 =
        add(std::string("layer_norm_bcast_") + dtypeName(t), "layer_norm",
            {buf(t, {2, 7, 8}), buf(t, {1, 8})}, buf(t, {2, 7, 8}));
    l2.config.set("axis", ConfigValue::ofInt(1));
    l2.config.set("epsilon", ConfigValue::ofFloat(1e-5));
  }
  {
    LaunchSpec &b =
        add("batch_norm", "batch_norm",
            {buf(DType::F32, {2, 3, 4, 4}), buf(DType::F32, {3}),
             buf(DType::F32, {3}), buf(DType::F32, {3}), buf(DType::F32, {3})},
            buf(DType::F32, {2, 3, 4, 4}));
    b.config.set("epsilon", ConfigValue::ofFloat(1e-5));
  }
  // bench/micro.py's memory-bound shapes (fp16, 32768 x 4096: 256 MiB per
  // tensor): SiLU-mul-add chains of two and three inputs, layer norm, RMS
  // norm and softmax over the last axis.
  {
    const int64_t R = 32768, C = 4096;
    LaunchSpec &e2 = add("bench_fused_silu2", "fused_elementwise",
                         {buf(DType::F16, {R, C}), buf(DType::F16, {R, C})},
                         buf(DType::F16, {R, C}), 8);
    e2.config.set("program",
                  ConfigValue::ofString(
                      "t0 = sigmoid(i0) : f16; t1 = mul(i0, t0) : f16; "
                      "t2 = mul(t1, i0) : f16; t3 = add(t2, i1) : f16"));
    LaunchSpec &e3 = add("bench_fused_silu3", "fused_elementwise",
                         {buf(DType::F16, {R, C}), buf(DType::F16, {R, C}),
                          buf(DType::F16, {R, C})},
                         buf(DType::F16, {R, C}), 8);
    e3.config.set("program",
                  ConfigValue::ofString(
                      "t0 = sigmoid(i0) : f16; t1 = mul(i0, t0) : f16; "
                      "t2 = mul(t1, i1) : f16; t3 = add(t2, i2) : f16"));
    LaunchSpec &ln = add(
        "bench_layer_norm", "layer_norm",
        {buf(DType::F16, {R, C}), buf(DType::F16, {C}), buf(DType::F16, {C})},
        buf(DType::F16, {R, C}));
    ln.config.set("axis", ConfigValue::ofInt(1));
    ln.config.set("epsilon", ConfigValue::ofFloat(1e-5));
    LaunchSpec &rn = add("bench_rms_norm", "layer_norm",
                         {buf(DType::F16, {R, C}), buf(DType::F16, {C})},
                         buf(DType::F16, {R, C}));
    rn.config.set("axis", ConfigValue::ofInt(1));
    rn.config.set("epsilon", ConfigValue::ofFloat(1e-6));
    rn.config.set("rms", ConfigValue::ofBool(true));
    LaunchSpec &sm = add("bench_softmax", "softmax", {buf(DType::F16, {R, C})},
                         buf(DType::F16, {R, C}));
    sm.config.set("axis", ConfigValue::ofInt(1));
    sm.config.set("log", ConfigValue::ofBool(false));
  }
  // Where the bench kernels land: two inputs take two 8-wide items per
  // thread (four 16-byte loads in flight), three inputs too; the row kernels
  // hold four 16-byte vectors a thread (128 threads per 4096-element row,
  // one row per block, a block per row).
  for (Case &c : cases) {
    const std::string &n = c.spec.name;
    if (n == "bench_fused_silu2" || n == "bench_fused_silu3") {
      c.expectSource = {"for (int u = 0; u < 2; ++u)"};
      c.expectBlock = 256;
      c.expectGrid = 32768;
    } else if (n == "bench_layer_norm" || n == "bench_rms_norm") {
      c.expectSource = {"VEC = 8, TEAM = 128, ITEMS = 4;", "SVEC = true;"};
      c.expectBlock = 128;
      c.expectGrid = 32768;
    } else if (n == "bench_softmax") {
      c.expectSource = {"TEAM = 128, ITEMS = 4;"};
      c.expectBlock = 128;
      c.expectGrid = 32768;
    }
  }

  // Row kernels with the row in registers (ITEMS > 0) and streamed
  // (ITEMS = 0), over lengths that do and do not split evenly over the
  // team, odd lengths (scalar access), sub-warp teams with several rows to a
  // block, whole-block teams that are not a power of two, and mixed dtypes.
  for (bool log : {false, true}) {
    const std::string sfx = log ? "_log" : "";
    softmaxRow("softmax_held_4000" + sfx, DType::F16, 4096, 4000, log);
    expect({"VEC = 8;", "TEAM = 128, ITEMS = 4;"}, 128, 4096);
    softmaxRow("softmax_held_odd" + sfx, DType::F16, 4096, 4095, log);
    expect({"VEC = 1;", "TEAM = 128, ITEMS = 32;"}, 128, 4096);
    softmaxRow("softmax_attn128" + sfx, DType::F16, 32 * 12 * 128, 128, log);
    expect({"TEAM = 8, ITEMS = 2;"}, 128, 3072);
    softmaxRow("softmax_long_held" + sfx, DType::F16, 1024, 32768, log);
    expect({"TEAM = 512, ITEMS = 8;"}, 512, 1024);
    softmaxRow("softmax_streamed" + sfx, DType::F16, 64, 1 << 17, log);
    expect({"TEAM = 512, ITEMS = 0;"}, 512, 64);
    softmaxRow("softmax_held_f32" + sfx, DType::F32, 8192, 4096, log);
    expect({"VEC = 4;", "TEAM = 256, ITEMS = 4;"}, 256, 8192);
    softmaxRow("softmax_held_f64" + sfx, DType::F64, 1000, 1000, log);
    expect({"VEC = 2;", "TEAM = 512, ITEMS = 1;"}, 512, 1000);
    softmaxRow("softmax_held_bf16_misaligned" + sfx, DType::BF16, 3000, 1000,
               log, 2);
    expect({"VEC = 1;"});
  }
  {
    // A row too short for a warp and too few rows to fill the GPU: the team
    // grows to a warp, a block per row.
    softmaxRow("softmax_tiny", DType::F32, 4, 10);
    expect({"TEAM = 32, ITEMS = 1;"}, 32, 4);
    softmaxRow("softmax_fewrows", DType::F32, 4, 500);
    expect({"TEAM = 128, ITEMS = 1;"}, 128, 4);
    // An explicit sub-warp team (as autotuning may set): 8 rows per block
    // of 128 threads, the last block partly idle; over 100 rows, 2 rows
    // per block of a warp, so that more SMs get one.
    LaunchSpec &t = softmaxRow("softmax_team16", DType::F16, 100001, 256);
    t.config.set("block_size", ConfigValue::ofInt(16));
    expect({"TEAM = 16, ITEMS = 2;"}, 128, 12501);
    LaunchSpec &t2 = softmaxRow("softmax_team16_few", DType::F16, 100, 256);
    t2.config.set("block_size", ConfigValue::ofInt(16));
    expect({"TEAM = 16, ITEMS = 2;"}, 32, 50);
  }
  for (bool bias : {false, true}) {
    const std::string sfx = bias ? "_bias" : "";
    layerNormRow("layer_norm_bert" + sfx, DType::F16, DType::F16, 4096, 768,
                 bias);
    // A warp per row (3 vectors a lane), 4 rows a block: layer norm never
    // grows a team that fits in a warp.
    expect({"TEAM = 32, ITEMS = 3;", "SVEC = true;"}, 128, 1024);
    layerNormRow("layer_norm_1000" + sfx, DType::F16, DType::F16, 16384, 1000,
                 bias);
    expect({"VEC = 8, TEAM = 32, ITEMS = 4;"}, 128, 4096);
    layerNormRow("layer_norm_odd" + sfx, DType::BF16, DType::BF16, 4096, 4097,
                 bias);
    expect({"VEC = 1,", "SVEC = false;"});
    layerNormRow("layer_norm_f32_scale" + sfx, DType::F16, DType::F32, 8192,
                 4096, bias);
    expect({"ITEMS = 4;", "SVEC = true;"});
    layerNormRow("layer_norm_scale_misaligned" + sfx, DType::F16, DType::F16,
                 8192, 4096, bias, 4);
    expect({"ITEMS = 4;", "SVEC = false;", "BVEC = false;"});
    layerNormRow("layer_norm_streamed" + sfx, DType::F32, DType::F32, 16,
                 1 << 16, bias);
    expect({"ITEMS = 0;"});
    layerNormRow("layer_norm_f64" + sfx, DType::F64, DType::F64, 64, 3000,
                 bias);
  }
  {
    LaunchSpec &r = layerNormRow("rms_norm_held", DType::BF16, DType::BF16,
                                 16384, 2048, false);
    r.config.set("rms", ConfigValue::ofBool(true));
    expect({"RMS = true;", "ITEMS = 4;"});
    LaunchSpec &b = add("layer_norm_bcast_scale", "layer_norm",
                        {buf(DType::F16, {4096, 8, 64}),
                         buf(DType::F16, {1, 64}), buf(DType::F16, {8, 1})},
                        buf(DType::F16, {4096, 8, 64}));
    b.config.set("axis", ConfigValue::ofInt(1));
    b.config.set("epsilon", ConfigValue::ofFloat(1e-5));
    expect({"SVEC = false;", "BVEC = false;", "TEAM = 32, ITEMS = 2;"});
  }
  // Explicit teams (as autotuning may set them) over f32 rows: a partial
  // last item in whole-block, warp and sub-warp teams, teams past the last
  // row in the last block, scalar rows, streamed rows with several rows to
  // a block.
  struct RowCase {
    const char *name;
    int64_t rows, len, team;
    const char *text;
  };
  const RowCase rowCases[] = {
      {"block64", 37, 1000, 64, "TEAM = 64, ITEMS = 4;"},
      {"warp_scalar", 2113, 1001, 32, "TEAM = 32, ITEMS = 32;"},
      {"team8", 3001, 40, 8, "TEAM = 8, ITEMS = 2;"},
      {"streamed", 5, 20000, 64, "TEAM = 64, ITEMS = 0;"},
      {"streamed_team16", 2113, 3000, 16, "TEAM = 16, ITEMS = 0;"},
  };
  for (const RowCase &rc : rowCases)
    for (bool log : {false, true}) {
      LaunchSpec &sm = softmaxRow(std::string("softmax_f32_") + rc.name +
                                      (log ? "_log" : ""),
                                  DType::F32, rc.rows, rc.len, log);
      sm.config.set("block_size", ConfigValue::ofInt(rc.team));
      expect({rc.text});
    }
  for (const RowCase &rc : rowCases)
    for (int variant = 0; variant < 3; ++variant) { // bias, no bias, rms
      LaunchSpec &ln =
          layerNormRow(std::string("layer_norm_f32_") + rc.name +
                           (variant == 0   ? "_bias"
                            : variant == 1 ? ""
                                           : "_rms"),
                       DType::F32, DType::F32, rc.rows, rc.len, variant == 0);
      if (variant == 2)
        ln.config.set("rms", ConfigValue::ofBool(true));
      ln.config.set("block_size", ConfigValue::ofInt(rc.team));
      expect({rc.text});
    }
  {
    LaunchSpec &b = add("layer_norm_f32_bcast_scale", "layer_norm",
                        {buf(DType::F32, {37, 5, 8}), buf(DType::F32, {1, 8}),
                         buf(DType::F32, {5, 1})},
                        buf(DType::F32, {37, 5, 8}));
    b.config.set("axis", ConfigValue::ofInt(1));
    b.config.set("epsilon", ConfigValue::ofFloat(1e-5));
    expect({"SVEC = false;", "BVEC = false;"});
  }
  // Elementwise tails: odd extents with several items per thread.
  {
    setOp(add("add_f32_bcast_odd", "elementwise",
              {buf(DType::F32, {1000, 37}), buf(DType::F32, {37})},
              buf(DType::F32, {1000, 37}), 1),
          "add");
    expect({"for (int u = 0; u < 2; ++u)"});
    setOp(add("copy_f32_odd", "elementwise", {buf(DType::F32, {262147})},
              buf(DType::F32, {262147}), 1),
          "copy");
    expect({"for (int u = 0; u < 4; ++u)"});
    LaunchSpec &f =
        add("fused_f32_fma3", "fused_elementwise",
            {buf(DType::F32, {4096, 64}), buf(DType::F32, {4096, 64}),
             buf(DType::F32, {4096, 64})},
            buf(DType::F32, {4096, 64}), 4);
    f.config.set("program",
                 ConfigValue::ofString(
                     "t0 = sigmoid(i0) : f32; t1 = mul(i0, t0) : f32; "
                     "t2 = mul(t1, i1) : f32; t3 = add(t2, i2) : f32"));
    expect({"for (int u = 0; u < 2; ++u)"});
    setOp(add("where_f32_scalar", "elementwise",
              {buf(DType::Bool, {333, 3}), buf(DType::F32, {333, 3}),
               buf(DType::F32, {})},
              buf(DType::F32, {333, 3})),
          "where");
    setOp(add("sigmoid_f32_odd", "elementwise", {buf(DType::F32, {100003})},
              buf(DType::F32, {100003}), 1),
          "sigmoid");
  }
  // Block sizes a row kernel rejects: not a power of two below a warp, not a
  // multiple of a warp above it.
  for (int64_t bs : {int64_t(12), int64_t(48), int64_t(2048)}) {
    LaunchSpec s;
    s.name = "softmax_bad_block_" + std::to_string(bs);
    s.kind = "softmax";
    s.inputs = {buf(DType::F32, {4, 100})};
    s.outputs = {buf(DType::F32, {4, 100})};
    s.config.set("axis", ConfigValue::ofInt(1));
    s.config.set("log", ConfigValue::ofBool(false));
    s.config.set("block_size", ConfigValue::ofInt(bs));
    rejects.push_back({s, "block_size (threads per row)"});
  }

  // Elementwise items per thread follow the streamed inputs: one input or a
  // row-broadcast operand (a scalar per row) takes 4 items, two streamed
  // inputs 2; small tensors keep one item and a single block.
  {
    setOp(add("copy_big", "elementwise", {buf(DType::F32, {1 << 20})},
              buf(DType::F32, {1 << 20}), 4),
          "copy");
    expect({"for (int u = 0; u < 4; ++u)"}, 256, 256);
    setOp(add("add_rowbcast_big", "elementwise",
              {buf(DType::F16, {4096, 1024}), buf(DType::F16, {4096, 1})},
              buf(DType::F16, {4096, 1024}), 8),
          "add");
    expect({"for (int u = 0; u < 4; ++u)", "c_r /= 1024"}, 256, 512);
    setOp(add("add_colbcast_big", "elementwise",
              {buf(DType::F16, {4096, 1024}), buf(DType::F16, {1024})},
              buf(DType::F16, {4096, 1024}), 8),
          "add");
    expect({"for (int u = 0; u < 2; ++u)"}, 256, 1024);
    setOp(add("sigmoid_odd_big", "elementwise", {buf(DType::F32, {999999})},
              buf(DType::F32, {999999}), 1),
          "sigmoid");
    expect({"for (int u = 0; u < 4; ++u)", "out0[o] = "}, 256, 977);
    setOp(add("add_small", "elementwise",
              {buf(DType::F32, {8, 64}), buf(DType::F32, {8, 1})},
              buf(DType::F32, {8, 64}), 4),
          "add");
    expect({"for (int u = 0; u < 1; ++u)"}, 256, 1);
    LaunchSpec &tr =
        add("trilu_big", "trilu", {buf(DType::F16, {64, 512, 512})},
            buf(DType::F16, {64, 512, 512}), 8);
    tr.config.set("k", ConfigValue::ofInt(0));
    tr.config.set("upper", ConfigValue::ofBool(false));
  }
  // Matmuls: both paths, every transpose, batch broadcast, gemm epilogue.
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I32,
                  DType::I64})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int64_t m : {int64_t(37), int64_t(256)}) {
          int64_t k = 72, n = 200;
          LaunchSpec &s =
              add(std::string("matmul_") + dtypeName(t) + (ta ? "_ta" : "") +
                      (tb ? "_tb" : "") + "_m" + std::to_string(m),
                  "matmul",
                  {buf(t, ta ? std::vector<int64_t>{3, k, m}
                             : std::vector<int64_t>{3, m, k}),
                   buf(t, tb ? std::vector<int64_t>{n, k}
                             : std::vector<int64_t>{k, n})},
                  buf(t, {3, m, n}));
          s.config.set("trans_a", ConfigValue::ofBool(ta));
          s.config.set("trans_b", ConfigValue::ofBool(tb));
        }
  for (DType t : {DType::F32, DType::F16, DType::I32}) {
    LaunchSpec &g =
        add(std::string("gemm_c_") + dtypeName(t), "matmul",
            {buf(t, {4, 8}), buf(t, {16, 8}), buf(t, {16})}, buf(t, {4, 16}));
    g.config.set("trans_b", ConfigValue::ofBool(true));
    g.config.set("alpha", ConfigValue::ofFloat(0.5));
    g.config.set("beta", ConfigValue::ofFloat(2.0));
  }
  for (bool tb : {false, true}) {
    LaunchSpec &s =
        add(std::string("matmul_stage_out") + (tb ? "_tb" : ""), "matmul",
            {buf(DType::F16, {100, 64}),
             buf(DType::F16, tb ? std::vector<int64_t>{136, 64}
                                : std::vector<int64_t>{64, 136})},
            buf(DType::F16, {100, 136}));
    s.config.set("trans_b", ConfigValue::ofBool(tb));
    s.config.set("stage_out", ConfigValue::ofBool(true));
  }
  // wgmma (sm_90a): both dtypes, every transpose, ragged M/N/K (zero-filled
  // k tiles, partial row and column tiles, unpaired stores for odd N).
  // Each through the cp.async kernel and the TMA one (tma=true: a producer
  // warpgroup, tensor map parameters, a persistent grid).
  for (DType t : {DType::F16, DType::BF16})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (bool tma : {false, true}) {
          LaunchSpec &s =
              add(std::string("matmul_wgmma_") + dtypeName(t) +
                      (ta ? "_ta" : "") + (tb ? "_tb" : "") +
                      (tma ? "_tma" : ""),
                  "matmul", {buf(t, {1000, 1000}), buf(t, {1000, 1000})},
                  buf(t, {1000, 1000}));
          s.config.set("trans_a", ConfigValue::ofBool(ta));
          s.config.set("trans_b", ConfigValue::ofBool(tb));
          s.config.set("path", ConfigValue::ofString("wgmma"));
          s.config.set("tma", ConfigValue::ofBool(tma));
          // cp.async: 64 x 128 tiles of one warpgroup, 16 x 8 blocks. TMA:
          // 128 x 64 tiles of two (the heuristics' choice at a tie in
          // waves), 128 tiles for as many persistent blocks.
          expect({tma ? "kiln::mm::wgmma_tma_gemm<P>"
                      : "kiln::mm::wgmma_gemm<P>",
                  tma ? "WARPGROUPS = 2" : "WARPGROUPS = 1",
                  std::string(tma ? "m64n64k16.f32." : "m64n128k16.f32.") +
                      dtypeName(t) + "." + dtypeName(t),
                  std::string(", p, 1, 1, ") + (ta ? "1" : "0") + ", " +
                      (tb ? "0" : "1") + ";"},
                 tma ? 384 : 128, tma ? 128 : 8);
        }
  {
    // Large: 128 x 256 tiles of two warpgroups, four stages.
    LaunchSpec &big =
        add("matmul_wgmma_big", "matmul",
            {buf(DType::F16, {2048, 4096}), buf(DType::F16, {4096, 4096})},
            buf(DType::F16, {2048, 4096}));
    big.config.set("path", ConfigValue::ofString("wgmma"));
    // TMA by default (batch 1): 256 tiles over 132 persistent blocks.
    expect({"wgmma_tma_gemm<P>", "WARPGROUPS = 2", "STAGES = 4", "GROUP_M = 8",
            "m64n256k16", "__launch_bounds__(384, 1)", "__grid_constant__"},
           384, 132);
    // Four waves of 128 x 128 tiles or more (1024 at 4096 x 4096) with K
    // below 4096: ping-pong by default; with K = 4096 128 x 256 cooperative
    // tiles in 4 stages.
    for (int64_t k : {1024, 4096}) {
      const bool pingpong = k < 4096;
      add(pingpong ? "matmul_wgmma_many_tiles" : "matmul_wgmma_many_tiles_long_k",
          "matmul", {buf(DType::F16, {4096, k}), buf(DType::F16, {k, 4096})},
          buf(DType::F16, {4096, 4096}))
          .config.set("path", ConfigValue::ofString("wgmma"));
      expect({"wgmma_tma_gemm<P>",
              pingpong ? "PINGPONG = true" : "PINGPONG = false", "STAGES = 4",
              pingpong ? "m64n128k16" : "m64n256k16"},
             384, 132);
    }
    // Ping-pong: two consumer warpgroups taking whole 128 x 128 tiles in
    // turn, ragged edges (1000 = 7 x 128 + 104), bf16, K-major B.
    LaunchSpec &pp =
        add("matmul_wgmma_pingpong", "matmul",
            {buf(DType::BF16, {1000, 1000}), buf(DType::BF16, {1000, 1000})},
            buf(DType::BF16, {1000, 1000}));
    pp.config.set("path", ConfigValue::ofString("wgmma"));
    pp.config.set("trans_b", ConfigValue::ofBool(true));
    setInts(pp, {{"tile_m", 128}, {"tile_n", 128}, {"warpgroups", 2}});
    pp.config.set("pingpong", ConfigValue::ofBool(true));
    expect({"PINGPONG = true", "WARPGROUPS = 2", "m64n128k16"}, 384, 64);
    LaunchSpec &bigAsync =
        add("matmul_wgmma_big_cp_async", "matmul",
            {buf(DType::F16, {4096, 4096}), buf(DType::F16, {4096, 4096})},
            buf(DType::F16, {4096, 4096}));
    bigAsync.config.set("path", ConfigValue::ofString("wgmma"));
    bigAsync.config.set("tma", ConfigValue::ofBool(false));
    expect({"wgmma_gemm<P>", "WARPGROUPS = 2", "STAGES = 4", "m64n256k16"},
           256, 16);
    // Batched with broadcasting B: A [4, 2, 96, 64] x B [4, 1, 64, 200].
    LaunchSpec &bat = add(
        "matmul_wgmma_batched", "matmul",
        {buf(DType::BF16, {4, 2, 96, 64}), buf(DType::BF16, {4, 1, 64, 200})},
        buf(DType::BF16, {4, 2, 96, 200}));
    bat.config.set("path", ConfigValue::ofString("wgmma"));
    expect({"BATCH = 8", "wgmma_gemm"});
    // 256-row tiles (two warpgroups of 128 rows: two m64 blocks each) with an
    // N-major B of 96 columns (a partial 64-column swizzle block).
    LaunchSpec &tall =
        add("matmul_wgmma_m256_n96", "matmul",
            {buf(DType::F16, {512, 128}), buf(DType::F16, {128, 200})},
            buf(DType::F16, {512, 200}));
    setInts(
        tall,
        {{"tile_m", 256}, {"tile_n", 96}, {"warpgroups", 2}, {"stages", 3}});
    tall.config.set("path", ConfigValue::ofString("wgmma"));
    // TMA: the producer warpgroup beside two consumers; 2 x 3 tiles.
    expect({"m64n96k16", "STAGES = 3", "wgmma_tma_gemm<P>"}, 384, 6);
    // One warpgroup of 128 rows, M-major A, five stages.
    LaunchSpec &one =
        add("matmul_wgmma_wg1_m128_ta", "matmul",
            {buf(DType::BF16, {64, 384}), buf(DType::BF16, {64, 136})},
            buf(DType::BF16, {384, 136}));
    setInts(
        one,
        {{"tile_m", 128}, {"tile_n", 64}, {"warpgroups", 1}, {"stages", 5}});
    one.config.set("trans_a", ConfigValue::ofBool(true));
    one.config.set("path", ConfigValue::ofString("wgmma"));
    expect({"m64n64k16", "WARPGROUPS = 1", "STAGES = 5", "wgmma_tma_gemm<P>"},
           256, 9);
    // Gemm (alpha, beta, C) and an epilogue program on wgmma.
    LaunchSpec &g = add("gemm_c_wgmma", "matmul",
                        {buf(DType::F16, {72, 64}), buf(DType::F16, {40, 64}),
                         buf(DType::F16, {40})},
                        buf(DType::F16, {72, 40}));
    g.config.set("trans_b", ConfigValue::ofBool(true));
    g.config.set("alpha", ConfigValue::ofFloat(0.5));
    g.config.set("beta", ConfigValue::ofFloat(2.0));
    g.config.set("path", ConfigValue::ofString("wgmma"));
    LaunchSpec &e = add("matmul_epilogue_wgmma", "matmul",
                        {buf(DType::BF16, {128, 64}),
                         buf(DType::BF16, {64, 256}), buf(DType::BF16, {256})},
                        buf(DType::BF16, {128, 256}));
    e.config.set(
        "epilogue",
        ConfigValue::ofString(
            "t0 = add(i0, i1) : bf16; t1 = gelu{approximate=none}(t0) : bf16"));
    e.config.set("path", ConfigValue::ofString("wgmma"));
    // An epilogue program goes through shared memory by default (16-byte
    // rows of 8 outputs); the same as ping-pong tiles, with ragged M.
    expect({"STAGE_OUT = true", "PINGPONG = false"});
    LaunchSpec &ep = add("matmul_epilogue_wgmma_pingpong", "matmul",
                         {buf(DType::F16, {200, 64}), buf(DType::F16, {64, 256}),
                          buf(DType::F16, {256})},
                         buf(DType::F16, {200, 256}));
    ep.config.set("epilogue",
                  ConfigValue::ofString("t0 = add(i0, i1) : f16; t1 = "
                                        "gelu{approximate=tanh}(t0) : f16"));
    ep.config.set("path", ConfigValue::ofString("wgmma"));
    setInts(
        ep,
        {{"tile_m", 128}, {"tile_n", 128}, {"warpgroups", 2}, {"stages", 4}});
    ep.config.set("pingpong", ConfigValue::ofBool(true));
    expect({"STAGE_OUT = true", "PINGPONG = true"}, 384, 4);
    // Clusters of two blocks sharing B tiles through TMA multicast: K-major
    // B split into row halves, ping-pong, an odd count of tile rows (850: 7
    // rows of 128, the last pair's second tile past M).
    LaunchSpec &cl =
        add("matmul_wgmma_cluster_kmajor_b", "matmul",
            {buf(DType::BF16, {850, 512}), buf(DType::BF16, {384, 512})},
            buf(DType::BF16, {850, 384}));
    cl.config.set("path", ConfigValue::ofString("wgmma"));
    cl.config.set("trans_b", ConfigValue::ofBool(true));
    setInts(
        cl,
        {{"tile_m", 128}, {"tile_n", 128}, {"warpgroups", 2}, {"cluster", 2}});
    cl.config.set("pingpong", ConfigValue::ofBool(true));
    // 4 pairs of tile rows x 3 tile columns: 12 clusters of 2.
    expect({"CLUSTER = 2", "__cluster_dims__(2, 1, 1)", "PINGPONG = true"},
           384, 24);
    // N-major B in three 64-column blocks (block 0 and 2 from one block, 1
    // from the other), cooperative, a GELU epilogue, M of 9 tile rows.
    LaunchSpec &cn = add(
        "matmul_wgmma_cluster_nmajor_b", "matmul",
        {buf(DType::F16, {1100, 256}), buf(DType::F16, {256, 576}),
         buf(DType::F16, {576})},
        buf(DType::F16, {1100, 576}));
    cn.config.set("path", ConfigValue::ofString("wgmma"));
    cn.config.set("epilogue",
                  ConfigValue::ofString("t0 = add(i0, i1) : f16; t1 = "
                                        "gelu{approximate=none}(t0) : f16"));
    setInts(
        cn,
        {{"tile_m", 128}, {"tile_n", 192}, {"warpgroups", 2}, {"cluster", 2}});
    // 5 pairs of tile rows x 3 tile columns.
    expect({"CLUSTER = 2", "PINGPONG = false", "m64n192k16"}, 384, 30);
    // Split-K on the TMA kernel: BERT 1x128's FFN2 (48 k tiles) with bias
    // + residual in clusters of 4, the heuristic's tiles (64 x 64: 24
    // tiles, one per cluster).
    LaunchSpec &sk = add(
        "matmul_wgmma_split_k4_residual", "matmul",
        {buf(DType::F16, {128, 3072}), buf(DType::F16, {3072, 768}),
         buf(DType::F16, {768}), buf(DType::F16, {128, 768})},
        buf(DType::F16, {128, 768}));
    sk.config.set("path", ConfigValue::ofString("wgmma"));
    sk.config.set("epilogue",
                  ConfigValue::ofString("t0 = add(i0, i1) : f16; t1 = "
                                        "add(t0, i2) : f16"));
    setInts(sk, {{"split_k", 4}});
    expect({"SPLIT = 4", "SPLIT_VEC = true", "__cluster_dims__(4, 1, 1)",
            "STAGE_OUT = false", "TMA_STORE = false"},
           256, 96);
    // N = 100 (scalar stores), K-major bf16 B, ragged M and K (9 k tiles:
    // blocks of one or two), clusters of 8: 10 tiles of 64 x 64.
    LaunchSpec &sr = add("matmul_wgmma_split_k8_ragged", "matmul",
                         {buf(DType::BF16, {300, 520}),
                          buf(DType::BF16, {100, 520})},
                         buf(DType::BF16, {300, 100}));
    sr.config.set("path", ConfigValue::ofString("wgmma"));
    sr.config.set("trans_b", ConfigValue::ofBool(true));
    setInts(sr, {{"split_k", 8}, {"tile_m", 64}, {"tile_n", 64},
                 {"warpgroups", 1}});
    expect({"SPLIT = 8", "SPLIT_VEC = false", "__cluster_dims__(8, 1, 1)"},
           256, 80);
    // Cooperative 128 x 128 tiles in pairs: 3 x 5 tiles.
    LaunchSpec &sc = add("matmul_wgmma_split_k2_coop", "matmul",
                         {buf(DType::F16, {300, 1024}),
                          buf(DType::F16, {1024, 520})},
                         buf(DType::F16, {300, 520}));
    sc.config.set("path", ConfigValue::ofString("wgmma"));
    setInts(sc, {{"split_k", 2}, {"tile_m", 128}, {"tile_n", 128},
                 {"warpgroups", 2}, {"stages", 4}});
    sc.config.set("pingpong", ConfigValue::ofBool(false));
    expect({"SPLIT = 2", "WARPGROUPS = 2", "PINGPONG = false"}, 384, 30);
  }
  // wgmma configs the heuristics must refuse, and why.
  auto wgmmaReject = [](const std::string &name, std::vector<int64_t> a,
                        std::vector<int64_t> b, std::vector<int64_t> o,
                        const char *key, int64_t value,
                        const std::string &why) {
    LaunchSpec s;
    s.name = name;
    s.kind = "matmul";
    s.inputs = {buf(DType::F16, std::move(a)), buf(DType::F16, std::move(b))};
    s.outputs = {buf(DType::F16, std::move(o))};
    s.config.set("path", ConfigValue::ofString("wgmma"));
    if (key)
      s.config.set(key, ConfigValue::ofInt(value));
    rejects.push_back({s, why});
  };
  {
    // Batched products on the TMA kernel (tma=true; 3-D tensor maps): A
    // broadcast over the batch (a convolution's weights), ragged M and N;
    // both batched with K-major B, ping-pong and clusters of two.
    LaunchSpec &bw = add("matmul_wgmma_tma_batched_broadcast_a", "matmul",
                         {buf(DType::F16, {200, 64}), buf(DType::F16, {4, 64, 392})},
                         buf(DType::F16, {4, 200, 392}));
    bw.config.set("path", ConfigValue::ofString("wgmma"));
    bw.config.set("tma", ConfigValue::ofBool(true));
    // 2 x 4 tiles of 128 x 128 (or the heuristic's) per matrix, 4 matrices.
    expect({"wgmma_tma_gemm<P>", "BATCH = 4"});
    LaunchSpec &bb = add("matmul_wgmma_tma_batched_pingpong_cluster", "matmul",
                         {buf(DType::BF16, {3, 300, 128}),
                          buf(DType::BF16, {3, 256, 128})},
                         buf(DType::BF16, {3, 300, 256}));
    bb.config.set("path", ConfigValue::ofString("wgmma"));
    bb.config.set("trans_b", ConfigValue::ofBool(true));
    bb.config.set("tma", ConfigValue::ofBool(true));
    setInts(
        bb,
        {{"tile_m", 128}, {"tile_n", 128}, {"warpgroups", 2}, {"cluster", 2}});
    bb.config.set("pingpong", ConfigValue::ofBool(true));
    // 3 matrices x 2 pairs of tile rows x 2 tile columns: 12 clusters.
    expect({"BATCH = 3", "CLUSTER = 2", "PINGPONG = true"}, 384, 24);
  }
  {
    // The TMA kernel's groups of 1..64 tile rows.
    LaunchSpec s;
    s.name = "wgmma_tma_group_m";
    s.kind = "matmul";
    s.config.set("path", ConfigValue::ofString("wgmma"));
    s.config.set("tma", ConfigValue::ofBool(true));
    s.config.set("group_m", ConfigValue::ofInt(0));
    s.name = "wgmma_tma_group_m";
    s.inputs = {buf(DType::F16, {64, 64}), buf(DType::F16, {64, 64})};
    s.outputs = {buf(DType::F16, {64, 64})};
    rejects.push_back({s, "group_m must be in [1, 64]"});
    s.name = "wgmma_pingpong_one_warpgroup";
    s.config.set("group_m", ConfigValue::ofInt(8));
    s.config.set("warpgroups", ConfigValue::ofInt(1));
    s.config.set("pingpong", ConfigValue::ofBool(true));
    rejects.push_back({s, "pingpong takes two consumer warpgroups"});
  }
  // K = 100: A's rows are not 16-byte aligned.
  wgmmaReject("wgmma_unaligned", {64, 100}, {100, 64}, {64, 64}, nullptr, 0,
              "16-byte loads");
  wgmmaReject("wgmma_tile_k", {64, 64}, {64, 64}, {64, 64}, "tile_k", 32,
              "tile_k must be 64");
  wgmmaReject("wgmma_split_k_3", {64, 4096}, {4096, 64}, {64, 64}, "split_k",
              3, "split_k must be 1, 2, 4 or 8");
  // 64 x 128 k: 2 k tiles for 4 blocks.
  wgmmaReject("wgmma_split_k_short", {64, 128}, {128, 64}, {64, 64}, "split_k",
              4, "exceeds the product's 2 k tiles");
  // 4096^3: the tiles fill the GPU already.
  wgmmaReject("wgmma_split_k_full", {4096, 4096}, {4096, 4096}, {4096, 4096},
              "split_k", 2, "do not fill the GPU");
  {
    LaunchSpec s;
    s.kind = "matmul";
    s.inputs = {buf(DType::F16, {256, 4096}), buf(DType::F16, {4096, 256})};
    s.outputs = {buf(DType::F16, {256, 256})};
    s.config.set("path", ConfigValue::ofString("wgmma"));
    setInts(s, {{"split_k", 2}, {"tile_m", 128}, {"tile_n", 128},
                {"warpgroups", 2}});
    s.name = "wgmma_split_k_pingpong";
    s.config.set("pingpong", ConfigValue::ofBool(true));
    rejects.push_back({s, "split_k takes cooperative tiles"});
    s.name = "wgmma_split_k_cluster";
    s.config.set("pingpong", ConfigValue::ofBool(false));
    s.config.set("cluster", ConfigValue::ofInt(2));
    rejects.push_back({s, "split_k and cluster (multicast pairs) exclude"});
    s.name = "wgmma_split_k_cp_async";
    s.config.erase("cluster");
    s.config.set("tma", ConfigValue::ofBool(false));
    rejects.push_back({s, "takes the TMA kernel"});
  }
  wgmmaReject("wgmma_tile_n", {64, 64}, {64, 64}, {64, 64}, "tile_n", 260,
              "multiple of 8 up to 256");
  wgmmaReject("wgmma_cluster_4", {4096, 512}, {512, 512}, {4096, 512},
              "cluster", 4, "cluster must be 1 or 2");
  // N = 64: 64 x 64 tiles, one 64-column block of B, nothing to share.
  wgmmaReject("wgmma_cluster_narrow_b", {256, 64}, {64, 64}, {256, 64},
              "cluster", 2, "needs tile_n above 64");
  // 8 stages of 128 x 256 x 64 f16 tiles: 385 KiB.
  wgmmaReject("wgmma_smem", {4096, 4096}, {4096, 4096}, {4096, 4096}, "stages",
              8, "bytes of shared memory");
  {
    LaunchSpec &s = add("matmul_simt_f16", "matmul",
                        {buf(DType::F16, {9, 5}), buf(DType::F16, {5, 3})},
                        buf(DType::F16, {9, 3}));
    s.config.set("path", ConfigValue::ofString("simt"));
  }
  tf32Cases();
  // Convolution and pooling.
  for (DType t : {DType::F32, DType::F16}) {
    LaunchSpec &c =
        add(std::string("conv2d_") + dtypeName(t), "conv",
            {buf(t, {1, 4, 9, 9}), buf(t, {6, 2, 3, 3}), buf(t, {6})},
            buf(t, {1, 6, 4, 4}));
    c.config.set("strides", ConfigValue::ofInts({2, 2}));
    c.config.set("pads", ConfigValue::ofInts({1, 1, 0, 0}));
    c.config.set("dilations", ConfigValue::ofInts({1, 2}));
    c.config.set("group", ConfigValue::ofInt(2));
  }
  // The implicit-GEMM convolution (conv.path=igemm): 3x3 with padding and
  // a bias (64 x 64 tiles), ResNet's stem (7x7, strides 2, K = 147: scalar
  // weight loads) in bf16, a dilated 3x3 on 128 x 128 tiles.
  {
    auto igemm = [&](const std::string &name, DType t, std::vector<int64_t> x,
                     std::vector<int64_t> w, std::vector<int64_t> o,
                     bool bias, std::vector<int64_t> strides,
                     std::vector<int64_t> pads, std::vector<int64_t> dil) {
      std::vector<BufferSpec> ins = {buf(t, std::move(x)), buf(t, w)};
      if (bias)
        ins.push_back(buf(t, {w[0]}));
      LaunchSpec &c = add(name, "conv", ins, buf(t, std::move(o)));
      c.config.set("strides", ConfigValue::ofInts(strides));
      c.config.set("pads", ConfigValue::ofInts(pads));
      c.config.set("dilations", ConfigValue::ofInts(dil));
      c.config.set("group", ConfigValue::ofInt(1));
      c.config.set("path", ConfigValue::ofString("igemm"));
      return &c;
    };
    igemm("conv_igemm_3x3_bias", DType::F16, {2, 64, 14, 14}, {64, 64, 3, 3},
          {2, 64, 14, 14}, true, {1, 1}, {1, 1, 1, 1}, {1, 1});
    expect({"IM2COL = true", "kiln_conv_igemm", "BM = 64, BN = 64"}, 128, 4);
    igemm("conv_igemm_stem", DType::BF16, {1, 3, 33, 31}, {16, 3, 7, 7},
          {1, 16, 17, 16}, false, {2, 2}, {3, 3, 3, 3}, {1, 1});
    expect({"K = 147", "A_VEC = false"});
    igemm("conv_igemm_dilated_large", DType::F16, {2, 128, 28, 28},
          {256, 128, 3, 3}, {2, 256, 28, 28}, false, {1, 1}, {2, 2, 2, 2},
          {2, 2});
    expect({"BM = 128, BN = 128", "DH = 2"}, 256);
    // Output rows staged through shared memory (28 x 28 pixels: whole
    // 16-byte rows), one stage; and 64-deep k tiles in two stages (the
    // image's next tile gathered ahead), which need dynamic shared memory
    // (71680 bytes).
    igemm("conv_igemm_stage_out", DType::F16, {3, 64, 28, 28}, {128, 64, 3, 3},
          {3, 128, 28, 28}, true, {1, 1}, {1, 1, 1, 1}, {1, 1})
        ->config.set("stage_out", ConfigValue::ofBool(true));
    expect({"OUT_VEC = true", "STAGES = 1"});
    LaunchSpec *deep = igemm("conv_igemm_deep_k", DType::BF16, {2, 96, 20, 20},
                             {128, 96, 3, 3}, {2, 128, 18, 18}, false, {1, 1},
                             {0, 0, 0, 0}, {1, 1});
    deep->config.set("tile_m", ConfigValue::ofInt(128));
    deep->config.set("tile_n", ConfigValue::ofInt(128));
    deep->config.set("tile_k", ConfigValue::ofInt(64));
    deep->config.set("warps_n", ConfigValue::ofInt(4));
    deep->config.set("stages", ConfigValue::ofInt(2));
    expect({"BK = 64", "STAGES = 2", "SMEM_BYTES = 71680", "OUT_VEC = false"});
    // Refused: f32 (no tensor cores without tf32), groups.
    LaunchSpec f;
    f.name = "conv_igemm_f32";
    f.kind = "conv";
    f.inputs = {buf(DType::F32, {1, 4, 8, 8}), buf(DType::F32, {4, 4, 3, 3})};
    f.outputs = {buf(DType::F32, {1, 4, 6, 6})};
    f.config.set("strides", ConfigValue::ofInts({1, 1}));
    f.config.set("pads", ConfigValue::ofInts({0, 0, 0, 0}));
    f.config.set("dilations", ConfigValue::ofInts({1, 1}));
    f.config.set("group", ConfigValue::ofInt(1));
    f.config.set("path", ConfigValue::ofString("igemm"));
    rejects.push_back({f, "the igemm convolution needs f16 or bf16"});
    LaunchSpec g = f;
    g.name = "conv_igemm_groups";
    g.inputs = {buf(DType::F16, {1, 4, 8, 8}), buf(DType::F16, {4, 2, 3, 3})};
    g.outputs = {buf(DType::F16, {1, 4, 6, 6})};
    g.config.set("group", ConfigValue::ofInt(2));
    rejects.push_back({g, "the igemm convolution takes no groups"});
  }
  {
    LaunchSpec &c =
        add("conv1d", "conv",
            {buf(DType::F32, {2, 3, 10}), buf(DType::F32, {4, 3, 3})},
            buf(DType::F32, {2, 4, 8}));
    c.config.set("strides", ConfigValue::ofInts({1}));
    c.config.set("pads", ConfigValue::ofInts({0, 0}));
    c.config.set("dilations", ConfigValue::ofInts({1}));
    c.config.set("group", ConfigValue::ofInt(1));
    for (const char *op : {"max", "average"})
      for (DType t : {DType::F32, DType::F16}) {
        LaunchSpec &p = add(std::string("pool_") + op + dtypeName(t), "pool",
                            {buf(t, {1, 3, 8, 8})}, buf(t, {1, 3, 4, 4}));
        setOp(p, op);
        p.config.set("kernel_shape", ConfigValue::ofInts({3, 3}));
        p.config.set("strides", ConfigValue::ofInts({2, 2}));
        p.config.set("pads", ConfigValue::ofInts({1, 1, 1, 1}));
        p.config.set("dilations", ConfigValue::ofInts({1, 1}));
        p.config.set("count_include_pad", ConfigValue::ofBool(true));
      }
    LaunchSpec &pi = add("pool_max_i32", "pool", {buf(DType::I32, {1, 2, 5})},
                         buf(DType::I32, {1, 2, 2}));
    setOp(pi, "max");
    pi.config.set("kernel_shape", ConfigValue::ofInts({2}));
    pi.config.set("strides", ConfigValue::ofInts({2}));
    pi.config.set("pads", ConfigValue::ofInts({0, 0}));
    pi.config.set("dilations", ConfigValue::ofInts({1}));
  }
  // Gathers.
  for (DType it : {DType::I64, DType::I32, DType::U8}) {
    LaunchSpec &g = add(std::string("gather_") + dtypeName(it), "gather",
                        {buf(DType::F32, {100, 64}), buf(it, {2, 5})},
                        buf(DType::F32, {2, 5, 64}), 4);
    g.config.set("axis", ConfigValue::ofInt(0));
    LaunchSpec &ge = add(
        std::string("gather_elements_") + dtypeName(it), "gather_elements",
        {buf(DType::F16, {4, 6}), buf(it, {4, 3})}, buf(DType::F16, {4, 3}));
    ge.config.set("axis", ConfigValue::ofInt(1));
  }
  {
    LaunchSpec &g = add("gather_axis1", "gather",
                        {buf(DType::I64, {3, 7, 5}), buf(DType::I64, {4})},
                        buf(DType::I64, {3, 4, 5}), 1);
    g.config.set("axis", ConfigValue::ofInt(1));
  }
  // Flash attention, [batch, heads, seq, 64] f16 in canonical order; causal
  // ones skip the key blocks above the diagonal (seq 200: a ragged last
  // block, its rows and keys past 200 masked too), and with a bias the mask
  // applies after it.
  auto attention = [](const std::string &name, DType t, int64_t seq,
                      bool causal, bool bias) -> LaunchSpec & {
    std::vector<BufferSpec> ins(3, buf(t, {2, 4, seq, 64}));
    if (bias)
      ins.push_back(buf(t, {1, 1, seq, seq}));
    LaunchSpec &s = add(name, "attention", ins, buf(t, {2, 4, seq, 64}));
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      s.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    s.config.set("scale", ConfigValue::ofFloat(0.125));
    s.config.set("causal", ConfigValue::ofBool(causal));
    return s;
  };
  // A wgmma-variant attention over `ins` in their own layouts.
  auto wgmmaAttention = [](const std::string &name,
                           const std::vector<BufferSpec> &ins, BufferSpec out,
                           double scale) -> LaunchSpec & {
    LaunchSpec &s = add(name, "attention", ins, out);
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      s.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    s.config.set("scale", ConfigValue::ofFloat(scale));
    s.config.set("variant", ConfigValue::ofString("wgmma"));
    return s;
  };
  attention("attention_f16_128", DType::F16, 128, false, true);
  expect({"CAUSAL = false", "HAS_BIAS = true", "BIAS_PAIRS = true"});
  // An odd number of keys: the bias's key pairs straddle rows, so its
  // elements load one by one.
  attention("attention_bias_f16_199", DType::F16, 199, false, true);
  expect({"HAS_BIAS = true", "BIAS_PAIRS = false"});
  attention("attention_causal_f16_128", DType::F16, 128, true, false);
  expect({"CAUSAL = true", "HAS_BIAS = false"});
  attention("attention_causal_bf16_200", DType::BF16, 200, true, false);
  expect({"CAUSAL = true", "SQ = 200"});
  attention("attention_causal_bias_f16_200", DType::F16, 200, true, true);
  expect({"CAUSAL = true", "HAS_BIAS = true"});
  // A finite causal fill (HF's eager mask): masked pairs get s + F, and a
  // block with a fully masked row reads the key blocks past the diagonal.
  attention("attention_causal_fill_f16_200", DType::F16, 200, true, true)
      .config.set("causal_fill", ConfigValue::ofFloat(-65504.0));
  expect({"CAUSAL_FILL = true", "FILL_LOG2 = -0x1.71264cp+16f"});
  {
    // Enough 64-row blocks to fill the GPU (2 x 12 heads x 8 = 192): the
    // wgmma kernel by default on sm_90, whose blocks are 64 x 64.
    std::vector<BufferSpec> ins(3, buf(DType::F16, {2, 12, 512, 64}));
    ins.push_back(buf(DType::F16, {2, 1, 1, 512}));
    LaunchSpec &d = add("attention_default_wgmma", "attention", ins,
                        buf(DType::F16, {2, 12, 512, 64}));
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      d.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    d.config.set("causal", ConfigValue::ofBool(true));
    d.config.set("causal_fill", ConfigValue::ofFloat(-65504.0));
    expect({"kiln::att::flash_wgmma<P>", "CAUSAL_FILL = true"}, 128, 192);
    // --set=attention.variant=wgmma on a launch whose heuristic chose mma
    // blocks (32 rows): the wgmma kernel's 64 x 64 blocks replace them.
    LaunchSpec &w = add("attention_wgmma_over_mma_blocks", "attention",
                        std::vector<BufferSpec>(3, buf(DType::F16, {1, 4, 128, 64})),
                        buf(DType::F16, {1, 4, 128, 64}));
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      w.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    w.config.set("block_m", ConfigValue::ofInt(32));
    w.config.set("block_n", ConfigValue::ofInt(64));
    w.config.set("variant", ConfigValue::ofString("wgmma"));
    expect({"kiln::att::flash_wgmma<P>", "BM = 64, BN = 64"}, 128, 8);
  }
  // The wgmma variant (attention_sm90.cuh): S from shared-memory
  // descriptors, P V with P in registers; causal with a ragged last block,
  // a bias, bf16, and 128-wide heads.
  for (auto [name, t, seq, causal, bias] :
       {std::tuple{"attention_wgmma_f16_128", DType::F16, int64_t(128), false, true},
        std::tuple{"attention_wgmma_causal_bf16_200", DType::BF16, int64_t(200), true,
                   false},
        std::tuple{"attention_wgmma_causal_fill_f16_200", DType::F16, int64_t(200),
                   true, true}}) {
    LaunchSpec &w = attention(name, t, seq, causal, bias);
    w.config.set("variant", ConfigValue::ofString("wgmma"));
    if (std::string(name).find("fill") != std::string::npos)
      w.config.set("causal_fill", ConfigValue::ofFloat(-65504.0));
    expect({"kiln::att::flash_wgmma<P>", "wgmma_o(float (&d)[32]"}, 128, 0);
    cases.back().expectPtx = {"wgmma.mma_async.sync.aligned.m64n64k16.f32"};
    // The bias's key pairs as 32-bit loads (load_bias, a key block ahead).
    if (bias)
      cases.back().expectPtx.push_back("ld.global.nc.u32");
  }
  // q_tiles = 2: a block's two query tiles over K and V loaded once (at
  // most 128 keys): with a bias, causal with a finite fill, and 200
  // queries over 120 keys (a lone last tile, a ragged key block).
  for (auto [name, t, seq, causal, bias] :
       {std::tuple{"attention_wgmma_q2_bias_f16_128", DType::F16, int64_t(128), false,
                   true},
        std::tuple{"attention_wgmma_q2_causal_fill_bf16_128", DType::BF16,
                   int64_t(128), true, true}}) {
    LaunchSpec &w = attention(name, t, seq, causal, bias);
    w.config.set("variant", ConfigValue::ofString("wgmma"));
    w.config.set("q_tiles", ConfigValue::ofInt(2));
    if (causal)
      w.config.set("causal_fill", ConfigValue::ofFloat(-65504.0));
    expect({"Q_TILES = 2", "kiln::att::flash_wgmma<P>"}, 128, 8);
  }
  {
    std::vector<BufferSpec> ins = {buf(DType::F16, {2, 4, 200, 64}),
                                   buf(DType::F16, {2, 4, 120, 64}),
                                   buf(DType::F16, {2, 4, 120, 64}),
                                   buf(DType::F16, {2, 1, 200, 120})};
    LaunchSpec &r = wgmmaAttention("attention_wgmma_q2_ragged", ins,
                                   buf(DType::F16, {2, 4, 200, 64}), 0.125);
    r.config.set("q_tiles", ConfigValue::ofInt(2));
    expect({"Q_TILES = 2", "SQ = 200", "SK = 120"}, 128, 16);
    // More than 128 keys do not stay resident.
    LaunchSpec long_ = r;
    long_.name = "attention_wgmma_q2_200_keys";
    long_.inputs = {buf(DType::F16, {2, 4, 200, 64}), buf(DType::F16, {2, 4, 200, 64}),
                    buf(DType::F16, {2, 4, 200, 64})};
    rejects.push_back({long_, "at most 128 keys, not 200"});
    LaunchSpec mma = r;
    mma.name = "attention_mma_q2";
    mma.config.set("variant", ConfigValue::ofString("mma"));
    rejects.push_back({mma, "q_tiles is the wgmma variant's"});
  }
  {
    // BERT 32x128's attention (384 heads, 128 keys): the wgmma variant with
    // two query tiles by default, 384 blocks; q_tiles = 1 keeps 768.
    std::vector<BufferSpec> ins(3, buf(DType::F16, {32, 12, 128, 64}));
    ins.push_back(buf(DType::F16, {32, 1, 1, 128}));
    LaunchSpec &d = add("attention_default_q2", "attention", ins,
                        buf(DType::F16, {32, 12, 128, 64}));
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      d.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    expect({"kiln::att::flash_wgmma<P>", "Q_TILES = 2"}, 128, 384);
    LaunchSpec &one = add("attention_q1", "attention", ins,
                          buf(DType::F16, {32, 12, 128, 64}));
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      one.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    one.config.set("q_tiles", ConfigValue::ofInt(1));
    expect({"kiln::att::flash_wgmma<P>"}, 128, 768);
  }
  {
    std::vector<BufferSpec> ins(3, buf(DType::F16, {2, 4, 96, 128}));
    LaunchSpec &s = wgmmaAttention("attention_wgmma_d128", ins,
                                   buf(DType::F16, {2, 4, 96, 128}), 0.088);
    expect({"wgmma_o(float (&d)[64]", "D = 128, DV = 128"}, 128, 0);
    cases.back().expectPtx = {"m64n128k16.f32.f16.f16"};
    // 96-wide heads are not a wgmma tile.
    LaunchSpec odd = s;
    odd.name = "attention_wgmma_d96";
    odd.inputs.assign(3, buf(DType::F16, {2, 4, 96, 96}));
    odd.outputs = {buf(DType::F16, {2, 4, 96, 96})};
    rejects.push_back({odd, "head dimensions of 64 or 128"});
  }
  {
    // The kernel's mask is j <= i: Sq != Sk has no causal launch.
    LaunchSpec s;
    s.name = "attention_causal_ragged_keys";
    s.kind = "attention";
    s.inputs = {buf(DType::F16, {2, 4, 64, 64}),
                buf(DType::F16, {2, 4, 128, 64}),
                buf(DType::F16, {2, 4, 128, 64})};
    s.outputs = {buf(DType::F16, {2, 4, 64, 64})};
    for (const char *perm : {"q_perm", "k_perm", "v_perm", "out_perm"})
      s.config.set(perm, ConfigValue::ofInts({0, 1, 2, 3}));
    s.config.set("causal", ConfigValue::ofBool(true));
    rejects.push_back({s, "causal needs as many queries as keys"});
    // A finite causal fill only far below any score.
    LaunchSpec fill = s;
    fill.name = "attention_causal_fill_small";
    fill.inputs.assign(3, buf(DType::F16, {2, 4, 128, 64}));
    fill.outputs = {buf(DType::F16, {2, 4, 128, 64})};
    fill.config.set("causal_fill", ConfigValue::ofFloat(-100.0));
    rejects.push_back({fill, "causal_fill needs causal and a value in [-2e38, -1e4]"});
  }
}

/// tf32 = true (--precision=tf32): f32 matmuls on the mma.sync m16n8k8 tf32
/// path, operands rounded by cvt.rna, through every transpose, ragged edge
/// tiles (M, N, K not multiples of the tiles, odd N: unpaired stores, K not
/// a multiple of 4: synchronous loads), batches, gemm C, epilogue programs,
/// split-K clusters and the staged output; the SIMT path rounds too.
void tf32Cases() {
  const std::string mmaTf32 =
                        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                    cvt = "cvt.rna.tf32.f32";
  auto tf32 = [&](LaunchSpec &s) {
    s.config.set("tf32", ConfigValue::ofBool(true));
    return &s;
  };
  auto expectMma = [&](std::vector<std::string> source) {
    source.push_back("TF32 = true");
    source.push_back("kiln::mm::tensor_core<P>");
    expect(source);
    cases.back().expectPtx = {mmaTf32, cvt};
  };
  const DType f = DType::F32;
  struct Shape {
    int64_t batch, m, n, k;
  };
  for (Shape sh : {Shape{3, 37, 200, 72}, Shape{1, 256, 130, 64},
                   Shape{2, 16, 8, 19}, Shape{1, 100, 33, 50}})
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb) {
        std::vector<int64_t> as = ta ? std::vector<int64_t>{sh.k, sh.m}
                                     : std::vector<int64_t>{sh.m, sh.k};
        std::vector<int64_t> bs = tb ? std::vector<int64_t>{sh.n, sh.k}
                                     : std::vector<int64_t>{sh.k, sh.n};
        std::vector<int64_t> os = {sh.m, sh.n};
        if (sh.batch > 1) {
          as.insert(as.begin(), sh.batch);
          os.insert(os.begin(), sh.batch);
        }
        LaunchSpec &s = *tf32(add(
            "matmul_tf32_b" + std::to_string(sh.batch) + "_m" +
                std::to_string(sh.m) + "_n" + std::to_string(sh.n) + "_k" +
                std::to_string(sh.k) + (ta ? "_ta" : "") + (tb ? "_tb" : ""),
            "matmul", {buf(f, as), buf(f, bs)}, buf(f, os)));
        s.config.set("trans_a", ConfigValue::ofBool(ta));
        s.config.set("trans_b", ConfigValue::ofBool(tb));
        // A single product of 64+ rows with K-major operands takes tf32
        // wgmma (below); the rest mma.sync.
        if (sh.batch == 1 && sh.m >= 64 && !ta && tb && sh.k % 8 == 0) {
          expect({"typedef float T;", "wgmma_tma_gemm<P>", "k8.f32.tf32.tf32"});
          continue;
        }
        expectMma({"typedef float T;"});
      }
  // tf32 on the TMA wgmma kernel (m64nNk8.f32.tf32.tf32, no transposes:
  // A [M, K], B [N, K]): ragged M, N and K (zero-filled k tiles, partial
  // tiles, an odd N's unpaired stores), 128 x 256 tiles of two warpgroups,
  // ping-pong 128 x 128 tiles, and a bias + GELU epilogue.
  {
    const std::string inst = "m64n128k8.f32.tf32.tf32";
    LaunchSpec &r =
        *tf32(add("matmul_tf32_wgmma_ragged", "matmul",
                  {buf(f, {1000, 1000}), buf(f, {999, 1000})},
                  buf(f, {1000, 999})));
    r.config.set("trans_b", ConfigValue::ofBool(true));
    r.config.set("path", ConfigValue::ofString("wgmma"));
    setInts(r, {{"tile_m", 64}, {"tile_n", 128}});
    expect({"wgmma_tma_gemm<P>", "BK = 32", "STAGE_OUT = false",
            inst + " {", "}, %64, %65, p, 1, 1;"},
           256, 128);
    // A is rounded in shared memory as mma.sync rounds its operands.
    cases.back().expectPtx = {"wgmma.mma_async.sync.aligned." + inst,
                              "cvt.rna.tf32.f32"};
    LaunchSpec &big = *tf32(add("matmul_tf32_wgmma_big", "matmul",
                                {buf(f, {2048, 1024}), buf(f, {4096, 1024})},
                                buf(f, {2048, 4096})));
    big.config.set("trans_b", ConfigValue::ofBool(true));
    expect({"wgmma_tma_gemm<P>", "WARPGROUPS = 2", "m64n256k8.f32.tf32.tf32"},
           384, 132);
    // Many tiles: tf32 keeps 128 x 256 cooperative tiles by default (no
    // ping-pong rule); ping-pong when asked.
    LaunchSpec &many = *tf32(add("matmul_tf32_wgmma_many_tiles", "matmul",
                                 {buf(f, {4096, 512}), buf(f, {4096, 512})},
                                 buf(f, {4096, 4096})));
    many.config.set("trans_b", ConfigValue::ofBool(true));
    expect({"PINGPONG = false", "STAGES = 4", "m64n256k8.f32.tf32.tf32"}, 384,
           132);
    LaunchSpec &pp = *tf32(add("matmul_tf32_wgmma_pingpong", "matmul",
                               {buf(f, {4096, 512}), buf(f, {4096, 512})},
                               buf(f, {4096, 4096})));
    pp.config.set("trans_b", ConfigValue::ofBool(true));
    setInts(pp, {{"tile_m", 128}, {"tile_n", 128}, {"warpgroups", 2}});
    pp.config.set("pingpong", ConfigValue::ofBool(true));
    expect({"PINGPONG = true", "m64n128k8.f32.tf32.tf32"}, 384, 132);
    LaunchSpec &e =
        *tf32(add("matmul_tf32_wgmma_gelu", "matmul",
                  {buf(f, {512, 256}), buf(f, {768, 256}), buf(f, {768})},
                  buf(f, {512, 768})));
    e.config.set("trans_b", ConfigValue::ofBool(true));
    e.config.set(
        "epilogue",
        ConfigValue::ofString(
            "t0 = add(i0, i1) : f32; t1 = gelu{approximate=none}(t0) : f32"));
    expect({"wgmma_tma_gemm<P>", "struct Extra", "STAGE_OUT = false",
            "k8.f32.tf32.tf32"});
  }
  // Gemm: alpha * A B^T + beta * C (C added in f32, not rounded).
  {
    LaunchSpec &g = *tf32(add(
        "gemm_c_tf32", "matmul",
        {buf(f, {45, 24}), buf(f, {40, 24}), buf(f, {40})}, buf(f, {45, 40})));
    g.config.set("trans_b", ConfigValue::ofBool(true));
    g.config.set("alpha", ConfigValue::ofFloat(0.5));
    g.config.set("beta", ConfigValue::ofFloat(2.0));
    expectMma({"TRANS_B = true"});
  }
  // Epilogue programs: bias + GELU, and bias + residual on an odd N.
  {
    LaunchSpec &e =
        *tf32(add("matmul_epilogue_tf32", "matmul",
                  {buf(f, {128, 64}), buf(f, {64, 256}), buf(f, {256})},
                  buf(f, {128, 256})));
    e.config.set(
        "epilogue",
        ConfigValue::ofString(
            "t0 = add(i0, i1) : f32; t1 = gelu{approximate=none}(t0) : f32"));
    expectMma({"struct Extra"});
    LaunchSpec &r = *tf32(add(
        "matmul_epilogue_residual_tf32", "matmul",
        {buf(f, {50, 48}), buf(f, {48, 33}), buf(f, {33}), buf(f, {50, 33})},
        buf(f, {50, 33})));
    r.config.set("epilogue",
                 ConfigValue::ofString(
                     "t0 = add(i0, i1) : f32; t1 = add(t0, i2) : f32"));
    expectMma({"PAIR_STORE = false"});
  }
  // Split-K: few output tiles, a long K (clusters of blocks share K).
  tf32(add("matmul_tf32_split_k", "matmul",
           {buf(f, {64, 4096}), buf(f, {4096, 64})}, buf(f, {64, 64})));
  expectMma({"SPLIT = 8", "__cluster_dims__(8, 1, 1)"});
  // The staged output (16-byte rows of 4 floats), 128 x 128 tiles.
  {
    LaunchSpec &s =
        *tf32(add("matmul_tf32_stage_out_128", "matmul",
                  {buf(f, {200, 96}), buf(f, {96, 136})}, buf(f, {200, 136})));
    setInts(s, {{"tile_m", 128},
                {"tile_n", 128},
                {"tile_k", 32},
                {"warps_n", 4},
                {"stages", 3}});
    s.config.set("stage_out", ConfigValue::ofBool(true));
    expectMma({"OUT_VEC = true", "BM = 128, BN = 128, BK = 32"});
    // Only the staged rows store 16 bytes (4 floats) at once.
    cases.back().expectPtx.push_back("st.global.v4.f32");
  }
  // SIMT with tf32 rounds its loads; plain f32 keeps exact f32 (no cvt).
  {
    LaunchSpec &s =
        *tf32(add("matmul_tf32_simt", "matmul",
                  {buf(f, {37, 72}), buf(f, {72, 20})}, buf(f, {37, 20})));
    s.config.set("path", ConfigValue::ofString("simt"));
    expect({"kiln::mm::simt<P>", "round_tf32(v)"});
    cases.back().expectPtx = {cvt};
    cases.back().rejectPtx = {"mma.sync"};
    add("matmul_f32_exact", "matmul", {buf(f, {37, 72}), buf(f, {72, 20})},
        buf(f, {37, 20}));
    expect({"kiln::mm::simt<P>", "TF32 = false"});
    cases.back().rejectPtx = {cvt, "mma.sync"};
  }
  // What configureLaunch refuses: tf32 on other dtypes, f32 on mma without
  // tf32, tf32 on wgmma, a non-bool tf32.
  auto reject = [&](const std::string &name, DType t, const char *path,
                    bool withTf32, const std::string &why) {
    LaunchSpec s;
    s.name = name;
    s.kind = "matmul";
    s.inputs = {buf(t, {64, 64}), buf(t, {64, 64})};
    s.outputs = {buf(t, {64, 64})};
    if (path)
      s.config.set("path", ConfigValue::ofString(path));
    if (withTf32)
      s.config.set("tf32", ConfigValue::ofBool(true));
    rejects.push_back({s, why});
  };
  reject("tf32_f16", DType::F16, nullptr, true,
         "tf32 needs f32 operands, not f16");
  reject("tf32_f64_simt", DType::F64, "simt", true, "tf32 needs f32 operands");
  reject("mma_f32_exact", f, "mma", false,
         "the mma path needs f16 or bf16 operands, or f32 ones with tf32");
  // tf32 wgmma reads both operands K-major: B [K, N] is refused.
  reject("wgmma_tf32", f, "wgmma", true,
         "tf32 on the wgmma path takes single products with K-major operands");
  LaunchSpec s;
  s.name = "tf32_not_bool";
  s.kind = "matmul";
  s.inputs = {buf(f, {8, 8}), buf(f, {8, 8})};
  s.outputs = {buf(f, {8, 8})};
  s.config.set("tf32", ConfigValue::ofString("yes"));
  rejects.push_back({s, "tf32 must be true or false"});
}

/// TargetOptions: --matmul-path picks wgmma only on sm_90 and only where it
/// applies, and "auto" keeps the mma path.
int checkTargetChoices() {
  int failures = 0;
  auto pathFor = [&](const char *want, const char *arch, int64_t k,
                     DType t = DType::F16, bool tf32 = false,
                     bool transB = false) {
    LaunchSpec s;
    s.name = std::string("choice_") + want + "_" + arch;
    s.kind = "matmul";
    s.inputs = {buf(t, {256, k}), buf(t, {k, 256})};
    s.outputs = {buf(t, {256, 256})};
    if (tf32)
      s.config.set("tf32", ConfigValue::ofBool(true));
    if (transB) {
      s.config.set("trans_b", ConfigValue::ofBool(true));
      s.inputs[1] = buf(t, {256, k});
    }
    TargetOptions target;
    target.arch = arch;
    target.matmulPath = want;
    std::string error;
    if (!configureLaunch(s, error, target))
      return "error: " + error;
    return s.config.getString("path");
  };
  // A path must match exactly ("wgmma" contains "mma"); an error message
  // must contain `want`.
  auto check = [&](const std::string &got, const std::string &want,
                   const char *what) {
    bool error = got.compare(0, 6, "error:") == 0 ||
                 got.find("launch @") != std::string::npos;
    if (error ? got.find(want) == std::string::npos : got != want) {
      std::printf("FAIL %s: got \"%s\", expected \"%s\"\n", what, got.c_str(),
                  want.c_str());
      ++failures;
    }
  };
  check(pathFor("auto", "sm_90", 64), "wgmma",
        "auto takes the TMA wgmma kernel for single products of 64+ rows");
  check(pathFor("wgmma", "sm_90", 64), "wgmma", "--matmul-path=wgmma");
  check(pathFor("wgmma", "sm_90", 100), "mma", "wgmma with unaligned rows");
  check(pathFor("wgmma", "sm_90", 64, DType::F32), "simt", "wgmma on f32");
  check(pathFor("simt", "sm_90", 64), "simt", "--matmul-path=simt");
  // f32: exact SIMT unless tf32 was asked for; tf32 takes mma.sync where
  // B is N-major (wgmma's tf32 has no transposes) and keeps an explicit
  // simt.
  check(pathFor("auto", "sm_90", 64, DType::F32), "simt", "auto on plain f32");
  check(pathFor("mma", "sm_90", 64, DType::F32), "simt", "mma on plain f32");
  check(pathFor("auto", "sm_90", 64, DType::F32, true), "mma", "auto on tf32");
  check(pathFor("auto", "sm_80", 64, DType::F32, true), "mma",
        "auto on tf32, sm_80");
  check(pathFor("wgmma", "sm_90", 64, DType::F32, true), "mma",
        "wgmma on tf32");
  check(pathFor("simt", "sm_90", 64, DType::F32, true), "simt",
        "--matmul-path=simt on tf32");
  check(pathFor("auto", "sm_90", 64, DType::F32, true, true), "wgmma",
        "auto on tf32 with a K-major B");
  check(pathFor("auto", "sm_90", 100, DType::F32, true, true), "wgmma",
        "auto on tf32 with a K-major B, 400-byte rows");
  check(pathFor("auto", "sm_90", 102, DType::F32, true, true), "mma",
        "auto on tf32 with a K-major B, unaligned rows");
  check(pathFor("auto", "sm_80", 64, DType::F32, true, true), "mma",
        "auto on tf32 with a K-major B, sm_80");
  // A small tf32 product (4 tiles of 128 x 128) with a long K keeps
  // mma.sync with split-K.
  check(pathFor("auto", "sm_90", 2048, DType::F32, true, true), "mma",
        "auto on a small tf32 product with K = 2048");
  check(pathFor("wgmma", "sm_80", 64),
        "error: launch @choice_wgmma_sm_80 "
        "(matmul): the wgmma matmul path needs an sm_90 target (Hopper), not "
        "sm_80",
        "wgmma on sm_80");
  check(pathFor("tensor", "sm_90", 64), "unknown matmul path", "bad path");
  // An explicit path=wgmma is checked against the target too.
  LaunchSpec s;
  s.name = "explicit_wgmma_sm_80";
  s.kind = "matmul";
  s.inputs = {buf(DType::F16, {64, 64}), buf(DType::F16, {64, 64})};
  s.outputs = {buf(DType::F16, {64, 64})};
  s.config.set("path", ConfigValue::ofString("wgmma"));
  TargetOptions sm80;
  sm80.arch = "sm_80";
  std::string error;
  check(configureLaunch(s, error, sm80) ? "accepted" : error,
        "needs an sm_90 target", "explicit wgmma on sm_80");
  return failures;
}

} // namespace

int main(int argc, char **argv) {
  bool verbose = argc > 1 && std::strcmp(argv[1], "-v") == 0;
  bool allowMissing =
      argc > 1 && std::strcmp(argv[1], "--allow-missing-nvrtc") == 0;
  std::string error;
  if (!kiln::nvrtc::loadNvrtc(error)) {
    std::printf("SKIPPED: %s\n", error.c_str());
    return allowMissing ? 0 : 77;
  }
  buildCases();
  std::vector<kiln::nvrtc::KernelRequest> requests;
  std::map<std::string,
           std::pair<std::vector<std::string>, std::vector<std::string>>>
      ptxChecks;
  int failures = 0;
  for (Case &c : cases) {
    if (!configureLaunch(c.spec, error)) {
      std::printf("FAIL configure %s: %s\n", c.spec.name.c_str(),
                  error.c_str());
      ++failures;
      continue;
    }
    if (c.expectVec >= 0 && c.spec.config.getInt("vec") != c.expectVec) {
      std::printf("FAIL %s: vec %lld, expected %lld\n", c.spec.name.c_str(),
                  (long long)c.spec.config.getInt("vec"),
                  (long long)c.expectVec);
      ++failures;
    }
    if ((c.expectBlock && c.spec.block[0] != c.expectBlock) ||
        (c.expectGrid && c.spec.grid[0] != c.expectGrid)) {
      std::printf("FAIL %s: block %lld grid %lld, expected %lld and %lld\n",
                  c.spec.name.c_str(), (long long)c.spec.block[0],
                  (long long)c.spec.grid[0], (long long)c.expectBlock,
                  (long long)c.expectGrid);
      ++failures;
    }
    kiln::codegen::cuda::KernelSource src;
    if (!kiln::codegen::cuda::emitKernelSource(c.spec, src, error)) {
      std::printf("FAIL emit %s: %s\n", c.spec.name.c_str(), error.c_str());
      ++failures;
      continue;
    }
    for (const std::string &text : c.expectSource)
      if (src.source.find(text) == std::string::npos) {
        std::printf("FAIL %s: the source lacks \"%s\"\n", c.spec.name.c_str(),
                    text.c_str());
        ++failures;
      }
    // -v NAME prints that kernel's source; -v PREFIX* every match's, each
    // after a line naming it.
    if (verbose && argc > 2) {
      std::string want = argv[2];
      bool prefix = !want.empty() && want.back() == '*';
      if (prefix)
        want.pop_back();
      if (prefix ? c.spec.name.compare(0, want.size(), want) == 0
                 : c.spec.name == want)
        std::printf("%s%s\n",
                    prefix ? ("// ===== case " + c.spec.name + " grid " +
                              std::to_string(c.spec.grid[0]) + " block " +
                              std::to_string(c.spec.block[0]) + "\n")
                                 .c_str()
                           : "",
                    src.source.c_str());
    }
    if (src.archSpecific != (c.spec.config.getString("path") == "wgmma" ||
                             c.spec.config.getString("variant") == "wgmma")) {
      std::printf("FAIL %s: archSpecific %d on path %s\n", c.spec.name.c_str(),
                  int(src.archSpecific),
                  c.spec.config.getString("path").c_str());
      ++failures;
    }
    requests.push_back({c.spec.name, src.entry, src.source,
                        src.archSpecific ? "sm_90a" : ""});
    if (!c.expectPtx.empty() || !c.rejectPtx.empty())
      ptxChecks[c.spec.name] = {c.expectPtx, c.rejectPtx};
  }
  failures += checkTargetChoices();
  for (auto &[spec, why] : rejects) {
    if (configureLaunch(spec, error) || error.find(why) == std::string::npos) {
      std::printf("FAIL %s: expected a rejection naming \"%s\", got \"%s\"\n",
                  spec.name.c_str(), why.c_str(), error.c_str());
      ++failures;
    }
  }
  std::vector<kiln::nvrtc::CompiledKernel> compiled;
  kiln::nvrtc::CompileOptions options;
  if (!kiln::nvrtc::compileKernels(requests, options, compiled, error)) {
    std::printf("FAIL compile:\n%s\n", error.c_str());
    return 1;
  }
  // --dump-ptx=DIR (any argument position): the PTX of every wgmma kernel,
  // as DIR/<case>.ptx, for `ptxas -v -arch=sm_90a`.
  std::string dumpDir;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--dump-ptx=", 11) == 0)
      dumpDir = argv[i] + 11;
  for (const kiln::nvrtc::CompiledKernel &k : compiled) {
    bool ok = !k.cubin.empty() &&
              k.ptx.find(".entry " + k.entry) != std::string::npos;
    if (k.entry == "kiln_matmul_wgmma") {
      // The instruction is there, and the PTX targets the arch-specific
      // variant (NVRTC refuses wgmma for plain sm_90).
      if (k.ptx.find("wgmma.mma_async.sync.aligned") == std::string::npos ||
          k.ptx.find(".target sm_90a") == std::string::npos) {
        std::printf("FAIL %s: the PTX lacks wgmma.mma_async or .target "
                    "sm_90a\n",
                    k.name.c_str());
        ++failures;
      }
      if (!dumpDir.empty()) {
        std::string path = dumpDir + "/" + k.name + ".ptx";
        if (FILE *f = std::fopen(path.c_str(), "w")) {
          std::fwrite(k.ptx.data(), 1, k.ptx.size(), f);
          std::fclose(f);
        }
      }
    }
    auto pc = ptxChecks.find(k.name);
    if (pc != ptxChecks.end()) {
      for (const std::string &text : pc->second.first)
        if (k.ptx.find(text) == std::string::npos) {
          std::printf("FAIL %s: the PTX lacks \"%s\"\n", k.name.c_str(),
                      text.c_str());
          ++failures;
        }
      for (const std::string &text : pc->second.second)
        if (k.ptx.find(text) != std::string::npos) {
          std::printf("FAIL %s: the PTX has \"%s\"\n", k.name.c_str(),
                      text.c_str());
          ++failures;
        }
    }
    if (!ok) {
      std::printf("FAIL %s: no cubin or entry %s missing from the PTX\n",
                  k.name.c_str(), k.entry.c_str());
      ++failures;
    } else if (verbose) {
      std::printf("ok %s (%s): cubin %zu bytes\n", k.name.c_str(),
                  k.entry.c_str(), k.cubin.size());
    }
  }
  // A second compile of the same kernels must come from the cache.
  uint64_t before = kiln::nvrtc::compileCount();
  if (!kiln::nvrtc::compileKernels(requests, options, compiled, error) ||
      kiln::nvrtc::compileCount() != before) {
    std::printf("FAIL: recompiling identical kernels ran NVRTC again\n");
    ++failures;
  }
  // A broken kernel reports its name and NVRTC's log.
  std::vector<kiln::nvrtc::KernelRequest> bad = {
      {"broken_launch", "kiln_broken",
       "extern \"C\" __global__ void kiln_broken() { undeclared(); }"}};
  if (kiln::nvrtc::compileKernels(bad, options, compiled, error) ||
      error.find("broken_launch") == std::string::npos ||
      error.find("undeclared") == std::string::npos) {
    std::printf(
        "FAIL: a compile error did not name the kernel and the log: %s\n",
        error.c_str());
    ++failures;
  }
  // A kernel whose wgmma pipeline ptxas makes synchronous (here: an
  // accumulator read before wgmma.wait_group, so ptxas injects a wait,
  // C7517) is refused with ptxas's line, not shipped slow.
  std::vector<kiln::nvrtc::KernelRequest> stalled = {
      {"stalled_wgmma", "kiln_stalled",
       R"(extern "C" __global__ void kiln_stalled(float *out,
           unsigned long long da, unsigned long long db) {
         float d[8];
         for (int i = 0; i < 8; ++i) d[i] = 0.f;
         asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
         asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
           "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
           "{%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1, 0, 0;\n}\n"
           : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]),
             "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
           : "l"(da), "l"(db), "r"(1));
         asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
         d[0] += 1.0f;
         asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
         for (int i = 0; i < 8; ++i) out[threadIdx.x * 8 + i] = d[i];
       })",
       "sm_90a"}};
  if (kiln::nvrtc::compileKernels(stalled, options, compiled, error) ||
      error.find("stalled_wgmma") == std::string::npos ||
      error.find("wgmma pipeline") == std::string::npos ||
      error.find("C7517") == std::string::npos) {
    std::printf("FAIL: a kernel with a serialized wgmma pipeline was not "
                "refused with ptxas's line: %s\n",
                error.c_str());
    ++failures;
  }
  if (kiln::nvrtc::wgmmaStallDiagnostic(
          "ptxas info : (C7514) Potential Performance Loss: wgmma.mma_async "
          "instructions are serialized\nptxas info : Used 90 registers") !=
          "ptxas info : (C7514) Potential Performance Loss: wgmma.mma_async "
          "instructions are serialized" ||
      !kiln::nvrtc::wgmmaStallDiagnostic(
           "ptxas info : (C7020) something else\n(C751")
           .empty()) {
    std::printf("FAIL: wgmmaStallDiagnostic picked the wrong line\n");
    ++failures;
  }
  // The crash note: nothing outside a compile, the kernel's name inside one
  // (nested scopes restore the outer name).
  {
    auto note = [](const char *tool) {
      int fds[2];
      if (pipe(fds) != 0)
        return std::string("(no pipe)");
      const bool wrote = kiln::nvrtc::writeCrashNote(fds[1], tool);
      close(fds[1]);
      std::string text;
      char buf[512];
      for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<size_t>(n));
      close(fds[0]);
      return wrote ? text : std::string();
    };
    std::string outside = note("kilnc"), inner, outer;
    {
      kiln::nvrtc::CompilingKernel a("MatMul_0");
      {
        kiln::nvrtc::CompilingKernel b("Softmax_3");
        inner = note("kilnc");
      }
      outer = note("kilnc");
    }
    if (!outside.empty() || note("kilnc") != "" ||
        inner.rfind("kilnc: error: NVRTC crashed while compiling kernel "
                    "'Softmax_3' (a Kiln bug",
                    0) != 0 ||
        inner.back() != '\n' ||
        outer.find("kernel 'MatMul_0'") == std::string::npos) {
      std::printf("FAIL: crash note outside %s, inner %s, outer %s\n",
                  outside.c_str(), inner.c_str(), outer.c_str());
      ++failures;
    }
  }
  std::printf("%zu kernels, %d failures (NVRTC %s, %s)\n", requests.size(),
              failures, kiln::nvrtc::nvrtcVersion().c_str(),
              options.arch.c_str());
  return failures ? 1 : 0;
}
