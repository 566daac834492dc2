// KilnEngineWriter: builds engine files (format v1) from plain C++
// descriptions.
//
// This is how the compiler writes engines; it depends on nothing but the
// engine schema, so it lives beside the reader and is tested with it. The
// description types mirror runtime/schema/engine.fbs field for field (see the
// schema for what each field means); nothing here exposes FlatBuffers.
//
//   kiln::engine::EngineWriter w(manifest);
//   uint32_t cubin = w.addCubin(std::move(cubinBytes));  // section index
//   uint32_t weights = w.addWeights(std::move(weightBytes));
//   plan.images.push_back({int32_t(cubin), -1, "fused"});
//   w.addPlan(std::move(plan));
//   std::string error;
//   if (!w.writeFile("model.engine", error)) ...
//
// Before anything is written the writer runs the runtime's own verifier over
// the manifest and plans, so the compiler cannot produce an engine the runtime
// would reject for its contents.
#ifndef KILN_ENGINE_WRITER_H
#define KILN_ENGINE_WRITER_H

#include "kiln/engine_format.h"
#include "kiln/kiln.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::engine {

struct TensorSpec {
  std::string name;
  kiln_dtype dtype = KILN_DTYPE_F32;
  std::vector<int64_t> shape;
};

struct ProvenanceSpec {
  std::string modelSha256; ///< 64 lowercase hex digits, or empty
  std::string compileFlags;
  std::string tuningCacheHash;
};

struct ManifestSpec {
  std::string compilerVersion;      ///< at most 31 bytes (header field)
  std::string targetArch = "sm_90"; ///< at most 15 bytes (header field)
  uint32_t tensorParallelRanks = 1;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  ProvenanceSpec provenance;
};

enum class BufferKind : uint8_t {
  Arena = 0,
  Weights = 1,
  Input = 2,
  Output = 3,
  Workspace = 4 ///< the context's zeroed kernel workspace (format 3)
};

struct BufferSpec {
  BufferKind kind = BufferKind::Arena;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t section = 0; ///< weights: section index from addWeights
  uint32_t ioIndex = 0; ///< inputs/outputs: index into the manifest's list
  std::string name;

  static BufferSpec arena(uint64_t offset, uint64_t size,
                          std::string name = {});
  static BufferSpec weights(uint32_t section, uint64_t offset, uint64_t size,
                            std::string name = {});
  static BufferSpec input(uint32_t index, uint64_t size, std::string name = {});
  static BufferSpec output(uint32_t index, uint64_t size,
                           std::string name = {});
  static BufferSpec workspace(uint64_t offset, uint64_t size,
                              std::string name = {});
};

struct ImageSpec {
  int32_t cubinSection = -1; ///< from addCubin, or -1
  int32_t ptxSection = -1;   ///< from addPtx, or -1
  std::string name;
  /// Compiled for this architecture rather than the engine's ("sm_90a");
  /// empty: the engine's.
  std::string arch;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

enum class ArgKind : uint8_t { BufferRef = 0, Scalar = 1, TensorMap = 2 };
enum class ScalarType : uint8_t {
  None = 0,
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  F16,
  BF16,
  F32,
  F64
};

/// One kernel parameter: a buffer's device address plus a byte offset, or an
/// immediate whose bits sit in the low bytes of `value`.
struct ArgSpec {
  ArgKind kind = ArgKind::BufferRef;
  ScalarType scalarType = ScalarType::None;
  uint32_t buffer = 0;
  uint64_t value = 0;

  static ArgSpec bufferRef(uint32_t buffer, uint64_t byteOffset = 0);
  static ArgSpec i32(int32_t v);
  static ArgSpec u32(uint32_t v);
  static ArgSpec i64(int64_t v);
  static ArgSpec u64(uint64_t v);
  static ArgSpec f32(float v);
  static ArgSpec f64(double v);
  /// Raw bits of a scalar of any type (f16/bf16 bits, i8, ...).
  static ArgSpec bits(ScalarType type, uint64_t bits);
  /// The kernel's `index`-th tensor map (KernelSpec::tensorMaps).
  static ArgSpec tensorMap(uint32_t index);
};

/// A TMA descriptor over buffer `buffer` + `offset` that the runtime encodes
/// (fb::TensorMap: dims innermost first, byte strides of dims[1..], box,
/// swizzle span in bytes).
struct TensorMapSpec {
  uint32_t buffer = 0;
  uint64_t offset = 0;
  kiln_dtype dtype = KILN_DTYPE_F16;
  std::vector<uint64_t> dims, strides;
  std::vector<uint32_t> box;
  uint32_t swizzle = 0;
};

/// cuBLASLt epilogues Kiln uses (fb::MatmulEpilogue): a bias is a vector of
/// D's m rows; GeluTanh is GELU's tanh approximation (cuBLASLt's GELU), never
/// a stand-in for the erf GELU.
enum class MatmulEpilogue : uint8_t {
  None = 0,
  Bias = 1,
  Relu = 2,
  ReluBias = 3,
  GeluTanh = 4,
  GeluTanhBias = 5,
};

/// "none", "bias", "relu", "relu_bias", "gelu_tanh", "gelu_tanh_bias".
inline const char *matmulEpilogueName(MatmulEpilogue e) {
  switch (e) {
  case MatmulEpilogue::None:
    return "none";
  case MatmulEpilogue::Bias:
    return "bias";
  case MatmulEpilogue::Relu:
    return "relu";
  case MatmulEpilogue::ReluBias:
    return "relu_bias";
  case MatmulEpilogue::GeluTanh:
    return "gelu_tanh";
  case MatmulEpilogue::GeluTanhBias:
    return "gelu_tanh_bias";
  }
  return "unknown";
}

/// Whether the epilogue reads a bias vector.
inline bool matmulEpilogueHasBias(MatmulEpilogue e) {
  return e == MatmulEpilogue::Bias || e == MatmulEpilogue::ReluBias ||
         e == MatmulEpilogue::GeluTanhBias;
}

/// A library call in place of a kernel launch (fb::LibraryCall): a cuBLASLt
/// matmul in its own column-major terms, D = epilogue(alpha * op(A) op(B) +
/// beta * C), `batch` times. The one plain form of the call: the codegen
/// derives it (codegen::cublasLtCall swaps Kiln's row-major operands), the
/// autotuner's workers and the runtime run it (rt::cublaslt::Matmul), the
/// writer stores it.
struct LibraryCallSpec {
  kiln_dtype dtype = KILN_DTYPE_F16; ///< of A, B, C and D: F16, BF16, F32
  bool tf32 = false;                 ///< F32 only: CUBLAS_COMPUTE_32F_FAST_TF32
  uint64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  uint64_t lda = 0, ldb = 0, ldc = 0; ///< D shares C's layout
  uint64_t batch = 1;
  /// Elements between batches; 0 repeats one matrix for every batch.
  uint64_t strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1, beta = 0;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  /// Operands: indices into the kernel's args (in the autotuner, into the
  /// launch's buffers: inputs, then the output); -1 for none. C is read only
  /// when beta != 0.
  int32_t a = -1, b = -1, c = -1, d = -1, bias = -1;
  /// Which of cublasLtMatmulAlgoGetHeuristic's answers to run (0: its first).
  uint32_t algo = 0;
  uint64_t workspaceBytes = 0;
  /// Least byte alignment (a power of two up to 256) of every operand's
  /// address and batch offset: what cuBLASLt's heuristic may assume.
  uint32_t alignment = 256;
  /// cublasLtGetVersion() of the library that measured it; 0: unknown.
  uint64_t libraryVersion = 0;
};

struct KernelSpec {
  std::string name; ///< for messages
  uint32_t image = 0;
  std::string entry; ///< extern "C" symbol
  Dim3 grid, block;
  uint32_t dynamicSharedBytes = 0;
  std::vector<ArgSpec> args;
  std::string nodes;  ///< ONNX nodes covered, ", " separated (profiles)
  uint64_t bytes = 0; ///< operand bytes (profiles)
  uint64_t flops = 0; ///< arithmetic operations, 0 if not counted
  /// The kernel begins with griddepcontrol.wait: the runtime may launch it
  /// before its predecessor finishes (programmatic dependent launch).
  bool programmaticLaunch = false;
  /// Descriptors of the TensorMap arguments (ArgSpec::tensorMap's index).
  std::vector<TensorMapSpec> tensorMaps;
  /// Set: the step calls the library (image and entry are not used).
  bool hasLibrary = false;
  LibraryCallSpec library;
};

struct PlanSpec {
  uint32_t rank = 0;
  uint64_t arenaSize = 0;
  bool isStatic = true;
  /// Bytes of the zeroed kernel workspace per context (Workspace buffers).
  uint64_t workspaceSize = 0;
  std::vector<BufferSpec> buffers;
  std::vector<ImageSpec> images;
  std::vector<KernelSpec> kernels;
  std::vector<uint32_t> launchOrder;
};

class EngineWriter {
public:
  explicit EngineWriter(ManifestSpec manifest);

  /// Each add* returns the new section's index in the section table, which
  /// ImageSpec, BufferSpec and the manifest use to refer to it.
  uint32_t addCubin(std::vector<uint8_t> bytes);
  /// Stored with a terminating NUL (the text must hold none).
  uint32_t addPtx(const std::string &text);
  /// Stored 256-byte aligned.
  uint32_t addWeights(std::vector<uint8_t> bytes);
  /// Opaque bytes under a name (a tuning log, kernel sources, ...).
  uint32_t addExtra(const std::string &name, std::vector<uint8_t> bytes);
  /// One plan per tensor-parallel rank.
  void addPlan(PlanSpec plan);

  /// Checks the contents with the runtime's verifier before writing (default
  /// on). Off only for tests that need a deliberately inconsistent engine.
  void setVerifyContents(bool verify) { verifyContents_ = verify; }

  /// Builds the whole engine image in memory.
  bool finish(std::vector<uint8_t> &out, std::string &error) const;
  /// Streams the engine to `path` (through a temporary file renamed into
  /// place), so weights are never copied into one more buffer.
  bool writeFile(const std::string &path, std::string &error) const;

private:
  struct Blob {
    uint32_t kind;
    uint64_t alignment;
    std::vector<uint8_t> bytes;
  };
  struct Layout;
  bool layout(Layout &out, std::string &error) const;

  ManifestSpec manifest_;
  std::vector<std::pair<std::string, uint32_t>> extras_;
  std::vector<PlanSpec> plans_;
  std::vector<Blob> blobs_; ///< added sections, in section-index order
  bool verifyContents_ = true;
};

} // namespace kiln::engine

#endif // KILN_ENGINE_WRITER_H
