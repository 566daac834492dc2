//===- EmitReduction.cpp - Reductions, softmax and layer norm -------------===//
//
// Instantiates the templates of kernels/reduce.cuh with a generated traits
// struct P that bakes in the launch's shapes and the reduction's algebra.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/rows/Rows.h"
#include "compiler/kernels/common/EmitterSupport.h"
#include "compiler/kernels/common/Layouts.h"

#include <limits>

namespace kiln::codegen::cuda {

namespace {

std::string T(DType t) { return cudaTypeName(t); }

/// C function names of the compute type of a float dtype.
std::string fn(const char *name, DType t) {
  return t == DType::F64 ? std::string(name) : std::string(name) + "f";
}

/// `__device__ static __forceinline__ <ret> <name>(kiln::i64 <arg>) { ... }`
/// returning the offset of coordinate `arg` unravelled over `shape` with
/// `strides`.
void emitOffsetFn(std::ostringstream &os, IndexType it, const std::string &name,
                  const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &strides) {
  os << "  __device__ static __forceinline__ " << it.name() << " " << name
     << "(kiln::i64 i_) {\n";
  if (shape.empty()) {
    os << "    return 0;\n  }\n";
    return;
  }
  emitUnravel(os, "    ", it, "static_cast<" + std::string(it.name()) + ">(i_)",
              shape, "c");
  StridedAccess a;
  a.strides = strides;
  os << "    return " << offsetExpr(it, a, "c") << ";\n  }\n";
}

/// Elements per 16-byte access of a contiguous row of `len` elements of
/// `bytes` each, reading `in` and writing `out` (1 when not possible).
int64_t rowVector(int64_t len, int64_t bytes, int64_t inAlign,
                  int64_t outAlign) {
  int64_t v = 16 / bytes;
  while (v > 1 && (len % v != 0 || inAlign % (v * bytes) != 0 ||
                   outAlign % (v * bytes) != 0))
    v /= 2;
  return v;
}

/// The row team of a softmax-"row" or layer_norm launch: `team` threads per
/// row (config block_size; a power of two up to 32, several rows to a block,
/// or the whole block) and `items`, the vectors of `vec` elements each
/// thread holds in registers for a row of `len` elements (reduce.cuh reads
/// the row once): 0 when that would be more than 32 vectors or too many
/// registers for the block size (the row is then streamed once per pass).
bool rowTeam(const LaunchSpec &s, int64_t len, int64_t vec, DType t,
             int64_t &team, int64_t &items, std::string &error) {
  const int64_t block = s.block[0];
  team = s.config.get(keys::block_size, block);
  if (team < 1 || block % team != 0 ||
      (team <= 32 ? (team & (team - 1)) != 0 : team != block))
    return emitError(s, error,
                     "block_size must be the block or a power of two up to 32 "
                     "that divides it");
  // Compute values a thread may hold: half the registers a thread of a
  // 512-thread block has (launch bounds), a quarter at 1024 threads.
  const int64_t heldBytes = block > 512 ? 64 : 256;
  constexpr int64_t kMaxItems = 32;
  const int64_t cbytes = t == DType::F64 ? 8 : 4;
  items = (len / vec + team - 1) / team;
  if (items > kMaxItems || items * vec * cbytes > heldBytes)
    items = 0;
  return true;
}

std::string blockEntry(const LaunchSpec &s, const std::string &entry) {
  return "extern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(s.block[0]) + ") " + entry + "(" + kernelParams(s) +
         ")";
}

} // namespace

bool emitReduce(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const DType in = s.inputs[0].dtype, o = s.outputs[0].dtype;
  const std::string op = s.config.getString("op");
  if (op != "sum" && op != "mean" && op != "max" && op != "min" && op != "prod")
    return emitError(s, error, "unknown reduce op '" + op + "'");
  if (in != o)
    return emitError(s, error, "reduce must keep the element type");
  if (in == DType::Bool && op != "max" && op != "min")
    return emitError(s, error, "only max and min reduce i1");
  ReduceLayout l = reduceLayout(s.inputs[0].shape, s.config.getInts("axes"));
  if (l.outCount != s.outputs[0].numElements())
    return emitError(s, error, "output size does not match the reduction");
  const std::string variant = s.config.get(keys::variant, "col");
  IndexType it = indexTypeFor(s);

  std::string acc, load, init, combine, finish;
  const std::string R = intLiteral(l.redCount);
  if (isFloat(in)) {
    acc = computeTypeName(in);
    load = "return kiln::to_compute(v);";
    const double inf = std::numeric_limits<double>::infinity();
    double id = op == "prod"  ? 1.0
                : op == "max" ? -inf
                : op == "min" ? inf
                              : 0.0;
    init = "return " + computeLiteral(id, in) + ";";
    if (op == "sum" || op == "mean")
      combine = "return a + b;";
    else if (op == "prod")
      combine = "return a * b;";
    else if (op == "max")
      combine = "return (b > a || b != b) ? b : a;";
    else
      combine = "return (b < a || b != b) ? b : a;";
    finish = op == "mean" ? "return kiln::from_compute<" + T(o) +
                                ">(a / static_cast<" + acc + ">(" + R + "));"
                          : "return kiln::from_compute<" + T(o) + ">(a);";
  } else if (in == DType::Bool) {
    acc = "int";
    load = "return v ? 1 : 0;";
    init = op == "max" ? "return 0;" : "return 1;";
    combine = op == "max" ? "return a > b ? a : b;" : "return a < b ? a : b;";
    finish = "return a != 0;";
  } else {
    bool uns = isUnsignedInt(in);
    if (op == "max" || op == "min") {
      acc = uns ? "kiln::u64" : "kiln::i64";
      load = "return static_cast<" + acc + ">(v);";
      init = "return static_cast<" + acc + ">(kiln::int_traits<" + T(in) +
             ">::" + (op == "max" ? "lowest" : "highest") + "());";
      combine = op == "max" ? "return a > b ? a : b;" : "return a < b ? a : b;";
      finish = "return static_cast<" + T(o) + ">(a);";
    } else {
      // Sums and products wrap modulo 2^64, like the evaluator's int64 math.
      acc = "kiln::u64";
      load = uns ? "return static_cast<kiln::u64>(v);"
                 : "return static_cast<kiln::u64>(static_cast<kiln::i64>(v));";
      init = op == "prod" ? "return 1ull;" : "return 0ull;";
      combine = op == "prod" ? "return a * b;" : "return a + b;";
      if (op != "mean")
        finish = "return static_cast<" + T(o) + ">(a);";
      else if (l.redCount == 0)
        finish = "return " + T(o) + "(0);";
      else if (uns)
        finish = "return static_cast<" + T(o) + ">(a / " +
                 std::to_string(l.redCount) + "ull);";
      else
        finish = "return static_cast<" + T(o) +
                 ">(static_cast<kiln::i64>(a) / " + R + ");";
    }
  }

  std::ostringstream os;
  os << kernelPrologue(s, {"reduce.cuh"});
  os << "struct P {\n";
  os << "  typedef " << T(in) << " In;\n  typedef " << T(o)
     << " Out;\n  typedef " << acc << " Acc;\n";
  os << "  static constexpr kiln::i64 OUT = " << intLiteral(l.outCount)
     << ", R = " << R << ";\n";
  os << "  static constexpr int BLOCK = " << s.block[0] << ";\n";
  // Vector loads need one contiguous reduced axis, innermost.
  int64_t vec = 1;
  if (variant == "row" && l.redShape.size() == 1 && l.redStrides[0] == 1)
    vec = rowVector(l.redCount, dtypeBytes(in), s.inputs[0].alignment, 16);
  os << "  static constexpr int VEC = " << vec << ";\n";
  emitOffsetFn(os, it, "base", l.keptShape, l.keptStrides);
  emitOffsetFn(os, it, "roff", l.redShape, l.redStrides);
  os << "  __device__ static __forceinline__ Acc init() { " << init << " }\n";
  os << "  __device__ static __forceinline__ Acc combine(Acc a, Acc b) { "
     << combine << " }\n";
  os << "  __device__ static __forceinline__ Acc load(In v) { " << load
     << " }\n";
  os << "  __device__ static __forceinline__ Out finish(Acc a) { " << finish
     << " }\n";
  os << "};\n\n";
  out.entry = "kiln_reduce_" + op;
  os << blockEntry(s, out.entry) << " {\n";
  os << "  kiln::red::" << (variant == "row" ? "row" : "col")
     << "<P>(in0, out0);\n}\n";
  out.source = os.str();
  return true;
}

bool emitSoftmax(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &x = s.inputs[0];
  if (x.dtype != s.outputs[0].dtype || x.shape != s.outputs[0].shape)
    return emitError(s, error, "softmax output must match the input");
  SoftmaxLayout l = softmaxLayout(x.shape, s.config.getInt("axis"));
  const std::string variant = s.config.get(keys::variant, "col");
  std::ostringstream os;
  os << kernelPrologue(s, {"reduce.cuh"});
  os << "struct P {\n";
  os << "  typedef " << T(x.dtype) << " In;\n  typedef "
     << computeTypeName(x.dtype) << " C;\n";
  os << "  static constexpr kiln::i64 OUTER = " << intLiteral(l.outer)
     << ", LEN = " << intLiteral(l.len) << ", INNER = " << intLiteral(l.inner)
     << ";\n";
  os << "  static constexpr int BLOCK = " << s.block[0] << ";\n";
  os << "  static constexpr bool LOG = "
     << (s.config.getBool("log") ? "true" : "false") << ";\n";
  const int64_t vec = l.inner == 1
                          ? rowVector(l.len, dtypeBytes(x.dtype), x.alignment,
                                      s.outputs[0].alignment)
                          : 1;
  os << "  static constexpr int VEC = " << vec << ";\n";
  if (variant == "row") {
    int64_t team = 0, items = 0;
    if (!rowTeam(s, l.len, vec, x.dtype, team, items, error))
      return false;
    os << "  static constexpr int TEAM = " << team << ", ITEMS = " << items
       << ";\n";
  }
  os << "};\n\n";
  out.entry = s.config.getBool("log") ? "kiln_log_softmax" : "kiln_softmax";
  os << blockEntry(s, out.entry) << " {\n";
  os << "  kiln::red::softmax_" << (variant == "row" ? "row" : "col")
     << "<P>(in0, out0);\n}\n";
  out.source = os.str();
  return true;
}

bool emitLayerNorm(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &x = s.inputs[0];
  if (x.dtype != s.outputs[0].dtype || x.shape != s.outputs[0].shape)
    return emitError(s, error, "layer_norm output must match the input");
  const int64_t axis = s.config.getInt("axis");
  std::vector<int64_t> normShape(x.shape.begin() + axis, x.shape.end());
  const int64_t norm = product(normShape);
  const int64_t rows = norm == 0 ? 0 : x.numElements() / norm;
  const bool hasBias = s.inputs.size() == 3;
  for (size_t k = 1; k < s.inputs.size(); ++k)
    if (!isFloat(s.inputs[k].dtype) ||
        s.inputs[k].rank() > static_cast<int64_t>(normShape.size()))
      return emitError(s, error,
                       "scale and bias must be floats that broadcast to the "
                       "normalized shape");
  // Scale and bias read through their broadcast strides over the row.
  LaunchSpec view;
  view.outputs.push_back(BufferSpec{x.dtype, normShape, 16});
  for (size_t k = 1; k < s.inputs.size(); ++k)
    view.inputs.push_back(s.inputs[k]);
  IndexSpace space = collapse(broadcastSpace(view));
  IndexType it = indexTypeFor(s);
  const std::string C = computeTypeName(x.dtype);
  const DType st = s.inputs[1].dtype, bt = hasBias ? s.inputs[2].dtype : st;

  std::ostringstream os;
  os << kernelPrologue(s, {"reduce.cuh"});
  os << "struct P {\n";
  os << "  typedef " << T(x.dtype) << " In;\n  typedef " << T(st)
     << " S;\n  typedef " << T(bt) << " B;\n  typedef " << C << " C;\n";
  os << "  static constexpr kiln::i64 ROWS = " << intLiteral(rows)
     << ", N = " << intLiteral(norm) << ";\n";
  os << "  static constexpr int BLOCK = " << s.block[0] << ";\n";
  os << "  static constexpr bool HAS_BIAS = " << (hasBias ? "true" : "false")
     << ";\n";
  const bool rms = s.config.getBool("rms");
  if (rms && hasBias)
    return emitError(s, error, "an rms layer_norm takes no bias");
  os << "  static constexpr bool RMS = " << (rms ? "true" : "false") << ";\n";
  const int64_t vec =
      rowVector(norm, dtypeBytes(x.dtype), x.alignment, s.outputs[0].alignment);
  int64_t team = 0, items = 0;
  if (!rowTeam(s, norm, vec, x.dtype, team, items, error))
    return false;
  os << "  static constexpr int VEC = " << vec << ", TEAM = " << team
     << ", ITEMS = " << items << ";\n";
  // Scale and bias as vectors when they run along the row (their collapsed
  // access is the row itself) from VEC-aligned addresses.
  for (size_t k = 0; k < 2; ++k) {
    bool v = false;
    if (k < view.inputs.size()) {
      const StridedAccess &a = space.accesses[k];
      v = vec > 1 && space.shape.size() == 1 && a.base == 0 &&
          a.strides[0] == 1 &&
          view.inputs[k].alignment % (vec * dtypeBytes(view.inputs[k].dtype)) ==
              0;
    }
    os << "  static constexpr bool " << (k == 0 ? "SVEC" : "BVEC") << " = "
       << (v ? "true" : "false") << ";\n";
  }
  os << "  __device__ static __forceinline__ C eps() { return "
     << computeLiteral(s.config.getFloat("epsilon"), x.dtype) << "; }\n";
  os << "  __device__ static __forceinline__ C ld_scale(S v) { return "
        "static_cast<C>(kiln::to_compute(v)); }\n";
  os << "  __device__ static __forceinline__ C ld_bias(B v) { return "
        "static_cast<C>(kiln::to_compute(v)); }\n";
  for (size_t k = 0; k < 2; ++k) {
    os << "  __device__ static __forceinline__ " << it.name() << " "
       << (k == 0 ? "sidx" : "bidx") << "(kiln::i64 i_) {\n";
    if (k < view.inputs.size()) {
      emitUnravel(os, "    ", it,
                  "static_cast<" + std::string(it.name()) + ">(i_)",
                  space.shape, "c");
      os << "    return " << offsetExpr(it, space.accesses[k], "c") << ";\n";
    } else {
      os << "    return 0;\n";
    }
    os << "  }\n";
  }
  os << "};\n\n";
  out.entry = "kiln_layer_norm";
  os << blockEntry(s, out.entry) << " {\n";
  os << "  kiln::red::layer_norm<P>(in0, in1, "
     << (hasBias ? "in2" : "static_cast<const P::B *>(nullptr)")
     << ", out0);\n}\n";
  out.source = os.str();
  return true;
}

bool emitBatchNorm(const LaunchSpec &s, KernelSource &out, std::string &error) {
  const BufferSpec &x = s.inputs[0];
  if (!isFloat(x.dtype))
    return emitError(s, error, "batch_norm needs a float input");
  const int64_t channels = x.shape[1];
  int64_t inner = 1;
  for (int64_t d = 2; d < x.rank(); ++d)
    inner *= x.shape[d];
  const std::string C = computeTypeName(x.dtype);
  IndexType it = indexTypeFor(s);
  std::ostringstream os;
  os << kernelPrologue(s, {});
  out.entry = "kiln_batch_norm";
  os << "extern \"C\" __global__ void __launch_bounds__(" << s.block[0] << ") "
     << out.entry << "(" << kernelParams(s) << ") {\n";
  os << "  kiln::for_each_index(" << intLiteral(x.numElements())
     << ", [&](kiln::i64 g) {\n";
  os << "    const " << it.name() << " o = static_cast<" << it.name()
     << ">(g);\n";
  os << "    const " << it.name() << " ch = (o / " << it.lit(inner) << ") % "
     << it.lit(channels) << ";\n";
  os << "    const " << C << " scale = static_cast<" << C
     << ">(kiln::as_double(in1[ch]));\n";
  os << "    const " << C << " bias = static_cast<" << C
     << ">(kiln::as_double(in2[ch]));\n";
  os << "    const " << C << " mean = static_cast<" << C
     << ">(kiln::as_double(in3[ch]));\n";
  os << "    const " << C << " var = static_cast<" << C
     << ">(kiln::as_double(in4[ch]));\n";
  os << "    const " << C << " inv = " << computeLiteral(1.0, x.dtype) << " / "
     << fn("sqrt", x.dtype) << "(var + "
     << computeLiteral(s.config.getFloat("epsilon"), x.dtype) << ");\n";
  os << "    out0[o] = kiln::from_compute<" << T(x.dtype)
     << ">((kiln::to_compute(in0[o]) - mean) * inv * scale + bias);\n";
  os << "  });\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda
