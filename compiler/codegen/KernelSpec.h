//===- KernelSpec.h - A kernel launch as plain data (no MLIR) ---*- C++ -*-===//
//
// The description of one kernel.launch that the CUDA emitters, the launch
// heuristics and (later) autotuning work on: its kind, its config, the
// dtype/shape/alignment of every buffer, and the launch geometry. It holds no
// MLIR types so those libraries build and test without MLIR; the lowering
// converts kernel.launch ops to and from it (compiler/lowering/SpecBridge.h).
//
// Config keys per kind (op parameters; tuning keys are filled by
// configureLaunch when absent):
//
//   elementwise  op: "add" "sub" "mul" "div" "max" "min" "pow" "equal" "less"
//                "less_or_equal" "greater" "greater_or_equal" "and" "or" "xor"
//                (2 inputs), "where" (3), unary "sqrt" "reciprocal" "exp" "log"
//                "erf" "tanh" "sigmoid" "sin" "cos" "floor" "ceil" "neg" "abs"
//                "relu" "not" "is_nan" "gelu" (approximate: "none"|"tanh")
//                "leaky_relu" (alpha) "clip" (min?, max?) "cast" "copy" (1).
//                Inputs broadcast (numpy) to the output. Tuning: vec.
//   transpose    perm. Tuning: vec (1: the read side is strided).
//   slice        starts, steps (every axis). Tuning: vec.
//   trilu        k, upper. Tuning: vec.
//   concat       axis. Tuning: vec.
//   reduce       op: "sum" "mean" "max" "min" "prod"; axes (sorted, of the
//                input; empty: all). Tuning: variant ("row": a block per
//                output, "col": a thread per output), block_size.
//   softmax      axis, log (bool). Tuning: variant, block_size (row variant:
//                threads per row, a power of two up to 32, several rows
//                sharing a block, or a multiple of 32, the whole block).
//   layer_norm   axis, epsilon, rms (no mean, no bias: RMSNorm); inputs x,
//                scale[, bias]. Tuning: block_size (threads per row, as for
//                softmax).
//   batch_norm   epsilon; inputs x, scale, bias, mean, var.
//   matmul       trans_a, trans_b, alpha, beta, tf32 (f32 only, set by
//                --precision=tf32, never by tuning or --set: A and B rounded
//                to tf32, cvt.rna, on every path; sums in f32); inputs a,
//                b[, c]; a and b of rank >= 2 with broadcasting batch axes, c
//                broadcasting to the output. Tuning: path ("mma": f16/bf16
//                tensor cores, m16n8k16, or f32 with tf32, m16n8k8; "simt"),
//                tile_m, tile_n, tile_k, warps_m, warps_n, stages (mma: 2..8
//                cp.async pipeline stages; 3 for 64x64 tiles, else 2),
//                stage_out (mma: store the output tile through shared memory;
//                off by default, not yet checked on a GPU), split_k (mma: 1, 2,
//                4, 8 blocks of a cluster share each output tile's K range).
//                "wgmma" (sm_90, f16/bf16, 16-byte aligned rows): tile_m 64,
//                128, 256, tile_n a multiple of 8 up to 256, tile_k 64,
//                warpgroups (1, 2: 128 threads each, tile_m / warpgroups
//                rows of 64 or 128), stages (3..8, within 227 KiB), tma
//                (batch 1: a producer warpgroup loads the stages with TMA
//                for `warpgroups` consumer warpgroups, a persistent grid of
//                up to 132 blocks; default on for batch 1), group_m (TMA:
//                tile rows that sweep the columns together, default 8),
//                stream_k (TMA, cooperative, batch 1: the partial wave's k
//                tiles in even shares over 132 blocks, summed in the kernel
//                workspace, launchWorkspaceBytes; never a default yet),
//                swap_ab (TMA, batch 1, direct epilogue: the kernel computes
//                C^T = B^T A^T, tile_m along the output's columns, and
//                stores its tiles transposed).
//                "cublaslt" (never the heuristic's: measured or --set): a
//                cuBLASLt call instead of a kernel (LibraryCalls.h: only
//                where it computes exactly this launch), algo (0..7: which
//                answer of cuBLASLt's heuristic), lt_version (the measuring
//                library's cublasLtGetVersion, recorded in the engine).
//   attention    scale (the scores' factor), q_perm, k_perm, v_perm, out_perm,
//                nan_to_zero, q_heads/k_heads/v_heads ([offset, count] of
//                the canonical heads axis), q_per_kv (query heads per KV
//                head), causal, causal_fill (graph.attention's); inputs q, k,
//                v[, bias], f16/bf16, head dimensions multiples of 16 up to
//                128. Tuning: variant ("wgmma": attention_sm90.cuh, sm_90,
//                heads of 64 or 128, 64 x 64 blocks, the default there when
//                its blocks fill the GPU; else "mma"), block_m
//                (32, 64, 128: query rows per block), block_n (32, 64: keys per
//                step).
//   conv         strides, pads, dilations, group; inputs x, w[, bias].
//   pool         op: "max"|"average", kernel_shape, strides, pads, dilations,
//                count_include_pad.
//   gather       axis; inputs data, indices.
//   gather_elements axis; inputs data, indices.
//   fused_elementwise  program (FusedProgram's text: steps of elementwise
//                ops over the inputs and earlier steps, or `const{value=v}()`
//                literals (the model's one-element constants), the last one
//                stored);
//                every value indexed by the output's coordinates, inputs
//                broadcast (numpy) to the output; or, with `space` (extents
//                of an iteration space of the output's element count, the
//                outputs row-major over it) and `input_strides` (each
//                input's strides over it, concatenated), each input read at
//                sum(coord[k] * stride[k]): a region's reshapes and
//                transposes. Tuning: vec.
//
// Every kind but reduce-"row", softmax-"row", layer_norm, matmul and attention
// uses a grid-stride loop, so any grid is correct for it; the others need the
// grid configureLaunch computes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_KERNELSPEC_H
#define KILN_COMPILER_CODEGEN_KERNELSPEC_H

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::codegen {

/// Element types of kernel buffers. Bool is one byte per element.
enum class DType : uint8_t {
  F16,
  BF16,
  F32,
  F64,
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64
};

unsigned dtypeBytes(DType t);
bool isFloat(DType t);
bool isUnsignedInt(DType t);
/// Integers other than bool.
bool isInteger(DType t);
/// "f32", "bf16", "i1", "ui8", ...: MLIR spelling.
const char *dtypeName(DType t);
/// The CUDA type of Kiln's kernel library: "float", "kiln::f16", "bool", ...
const char *cudaTypeName(DType t);

/// One config value: an integer, float, bool, string or integer list.
struct ConfigValue {
  enum class Kind { Int, Float, Bool, String, Ints } kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;

  static ConfigValue ofInt(int64_t v);
  static ConfigValue ofFloat(double v);
  static ConfigValue ofBool(bool v);
  static ConfigValue ofString(std::string v);
  static ConfigValue ofInts(std::vector<int64_t> v);
};

/// A launch's config: ordered by key, so printing and hashing are stable.
class Config {
public:
  bool has(const std::string &key) const { return entries.count(key) != 0; }
  const ConfigValue *find(const std::string &key) const;
  void set(const std::string &key, ConfigValue v) {
    entries[key] = std::move(v);
  }
  void erase(const std::string &key) { entries.erase(key); }
  void setDefault(const std::string &key, ConfigValue v) {
    entries.emplace(key, std::move(v));
  }

  /// Typed reads with a default for missing keys. An Int reads as a Float
  /// and a Bool as an Int where asked.
  int64_t getInt(const std::string &key, int64_t dflt = 0) const;
  double getFloat(const std::string &key, double dflt = 0) const;
  bool getBool(const std::string &key, bool dflt = false) const;
  std::string getString(const std::string &key,
                        const std::string &dflt = "") const;
  std::vector<int64_t> getInts(const std::string &key) const;

  const std::map<std::string, ConfigValue> &all() const { return entries; }

private:
  std::map<std::string, ConfigValue> entries;
};

/// One buffer operand: dtype, row-major shape, and the alignment in bytes
/// its address is known to have (256 for arena buffers and weights, 16 for
/// bound inputs and outputs, less for an alias at an odd offset).
struct BufferSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  int64_t alignment = 16;

  int64_t numElements() const;
  int64_t bytes() const { return numElements() * dtypeBytes(dtype); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

struct LaunchSpec {
  std::string name; // for messages: the launch's symbol
  std::string kind;
  Config config;
  std::vector<BufferSpec> inputs, outputs;
  std::array<int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  int64_t smem = 0;
};

/// Whether `spec` has as many output buffers as its kind allows: one, or
/// several for a fused_elementwise launch whose config names each output's
/// step (`outputs`, a multi-output fusion region).
bool outputCountValid(const LaunchSpec &spec);

/// What the heuristics know of the target beyond the launch.
struct TargetOptions {
  /// The GPU architecture compiled for ("sm_90", "sm_80", ...).
  std::string arch = "sm_90";
  /// The matmul path for launches whose config has none: "auto" (the
  /// heuristic's choice), "mma", "wgmma" (sm_90 only; matmuls it cannot take,
  /// such as rows not 16-byte aligned, keep mma) or "simt". Paths a dtype
  /// cannot use fall back to simt.
  std::string matmulPath = "auto";
  /// cublasLtGetVersion() of the library the autotuner may measure
  /// ("130100"); empty: cuBLASLt is no candidate.
  std::string cublasLtVersion;
};

/// Whether `arch` has wgmma (sm_90, compiled as sm_90a).
bool archHasWgmma(const std::string &arch);
/// True for "sm_<N>[a|f]" with N >= smVersion (sm_90a and sm_100 for 90).
bool archAtLeast(const std::string &arch, int smVersion);

/// Fills the tuning keys missing from `spec.config` with heuristic choices
/// and sets grid, block and smem for them. Fails (with `error`) when the kind
/// is unknown or the config/buffers do not describe a valid launch.
bool configureLaunch(LaunchSpec &spec, std::string &error,
                     const TargetOptions &target = TargetOptions());

/// One step of a fused elementwise program: `op` (an elementwise op of the
/// `elementwise` kind, with its config keys in `attrs`) over `args`, each an
/// input (`input` true, index into the launch's inputs) or an earlier step,
/// computing a value of `dtype`.
struct FusedStep {
  struct Arg {
    bool input = true;
    int index = 0;
  };
  std::string op;
  Config attrs;
  std::vector<Arg> args;
  DType dtype = DType::F32;
};

/// The `program` text of a fused_elementwise launch, one step per `;`:
///   "t0 = add(i0, i1) : f16; t1 = gelu{approximate=tanh}(t0) : f16"
/// (attrs: strings bare, numbers as %.17g).
std::string printFusedProgram(const std::vector<FusedStep> &steps);
/// Parses printFusedProgram's text; steps may only use earlier steps and
/// inputs below `numInputs`.
bool parseFusedProgram(const std::string &text, size_t numInputs,
                       std::vector<FusedStep> &steps, std::string &error);
/// The DType of an MLIR element type name ("f16", "i1", ...).
bool dtypeFromName(const std::string &name, DType &out);

/// Arithmetic operations of a launch (2 per multiply-add) for profiles:
/// matmul and conv; 0 for the memory-bound kinds, which profiles judge by
/// bytes.
uint64_t estimateFlops(const LaunchSpec &spec);
/// Bytes of a launch's operands, each read or written once.
uint64_t operandBytes(const LaunchSpec &spec);

/// Bytes of the engine's workspace a launch uses (0 for most): a matmul on
/// the TMA kernel with stream_k takes 4096 bytes of u32 flags, one per
/// (block, consumer warpgroup), then a tile_m x tile_n f32 partial tile per
/// block (matmul_sm90.cuh's stream-K workspace). The runtime allocates the
/// largest once per context, zeroed, and passes it as the kernel's last
/// parameter; every kernel leaves the flags zero again.
uint64_t launchWorkspaceBytes(const LaunchSpec &spec);

/// Row-major strides in elements.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape);
/// Product of the dimensions (1 for rank 0).
int64_t product(const std::vector<int64_t> &dims);

/// The evaluator's castFloatToInt for an integer dtype (truncate, saturate,
/// NaN -> 0; Bool: v != 0).
int64_t castFloatToInt(DType t, double v);

} // namespace kiln::codegen

#endif // KILN_COMPILER_CODEGEN_KERNELSPEC_H
