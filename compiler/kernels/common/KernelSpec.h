//===- KernelSpec.h - A kernel launch as plain data (no MLIR) ---*- C++ -*-===//
//
// The description of one kernel.launch that the CUDA emitters, the launch
// heuristics and (later) autotuning work on: its kind, its config, the
// dtype/shape/alignment of every buffer, and the launch geometry. It holds no
// MLIR types so those libraries build and test without MLIR; the lowering
// converts kernel.launch ops to and from it (compiler/lowering/SpecBridge.h).
//
// Each kind's config keys are documented in its folder's header
// (compiler/kernels/<folder>/<Name>.h); the tuning keys and their types in
// common/TuningKeys.h.
//
// Every kind but reduce-"row", softmax-"row", layer_norm, matmul and attention
// uses a grid-stride loop, so any grid is correct for it; the others need the
// grid configureLaunch computes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_KERNELSPEC_H
#define KILN_COMPILER_CODEGEN_KERNELSPEC_H

#include "compiler/kernels/common/TuningKeys.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
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

  /// Tuning keys by their typed constants (TuningKeys.h): names read as
  /// strings, switches as bools, the numbers as int64_t.
  template <KeyType T> using ValueOf =
      std::conditional_t<T == KeyType::Name, std::string,
                         std::conditional_t<T == KeyType::Switch, bool, int64_t>>;
  template <KeyType T> bool has(const Key<T> &k) const { return has(k.name()); }
  template <KeyType T> void erase(const Key<T> &k) { erase(k.name()); }
  template <KeyType T>
  ValueOf<T> get(const Key<T> &k, ValueOf<T> dflt = ValueOf<T>()) const {
    if constexpr (T == KeyType::Name)
      return getString(k.name(), dflt);
    else if constexpr (T == KeyType::Switch)
      return getBool(k.name(), dflt);
    else
      return getInt(k.name(), dflt);
  }
  template <KeyType T> void set(const Key<T> &k, ValueOf<T> v) {
    set(k.name(), of<T>(std::move(v)));
  }
  template <KeyType T> void setDefault(const Key<T> &k, ValueOf<T> v) {
    setDefault(k.name(), of<T>(std::move(v)));
  }

  const std::map<std::string, ConfigValue> &all() const { return entries; }

private:
  template <KeyType T> static ConfigValue of(ValueOf<T> v) {
    if constexpr (T == KeyType::Name)
      return ConfigValue::ofString(std::move(v));
    else if constexpr (T == KeyType::Switch)
      return ConfigValue::ofBool(v);
    else
      return ConfigValue::ofInt(v);
  }

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
