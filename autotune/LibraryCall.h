//===- LibraryCall.h - A vendor-library step as plain data ------*- C++ -*-===//
//
// A launch that calls a library instead of a generated kernel: for now a
// cuBLASLt matmul (libcublasLt.so.13, opened at run time). The codegen
// derives it from a matmul launch whose config says `path = cublaslt`, the
// autotuner's workers run it as one more candidate, the engine stores it
// per kernel (fb::LibraryCall) and the runtime executes it. The same chain
// as TensorMapArg: plain data, no CUDA, no MLIR.
//
// The call is in cuBLASLt's own (column-major) terms. Kiln's row-major
// D[M,N] = A[M,K] B[K,N] is the column-major D^T = B^T A^T, so cuBLASLt's
// A is Kiln's B and its m is Kiln's N; the codegen does that swap
// (codegen::cublasLtCall), and the runtime passes the fields through.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_LIBRARYCALL_H
#define KILN_AUTOTUNE_LIBRARYCALL_H

#include <cstdint>
#include <string>

namespace kiln::autotune {

/// The epilogues Kiln maps onto cuBLASLt's (cublasLtEpilogue_t): a bias is a
/// vector of D's m rows (Kiln's N columns); GeluTanh is the tanh
/// approximation, never a stand-in for the erf GELU.
enum class MatmulEpilogue : uint8_t {
  None = 0,
  Bias = 1,
  Relu = 2,
  ReluBias = 3,
  GeluTanh = 4,
  GeluTanhBias = 5,
};

/// "none", "bias", "relu", "relu_bias", "gelu_tanh", "gelu_tanh_bias".
inline const char *epilogueName(MatmulEpilogue e) {
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
inline bool epilogueHasBias(MatmulEpilogue e) {
  return e == MatmulEpilogue::Bias || e == MatmulEpilogue::ReluBias ||
         e == MatmulEpilogue::GeluTanhBias;
}

/// D = epilogue(alpha * op(A) op(B) + beta * C), `batch` times, column-major.
struct MatmulCall {
  std::string dtype; ///< of A, B, C and D: "f16", "bf16" or "f32"
  bool tf32 = false; ///< f32 only: inputs rounded to tf32 (FAST_TF32)
  uint64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  uint64_t lda = 0, ldb = 0, ldc = 0; ///< D shares C's layout
  uint64_t batch = 1;
  /// Elements between batches; 0 repeats one matrix for every batch.
  uint64_t strideA = 0, strideB = 0, strideC = 0;
  float alpha = 1, beta = 0;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  /// Operands: indices into the launch's arguments (inputs first, then the
  /// output); -1 for none. C is read only when beta != 0.
  int32_t a = -1, b = -1, c = -1, d = -1, bias = -1;
  /// Which of cublasLtMatmulAlgoGetHeuristic's answers to run (0 is its
  /// first choice): what the autotuner measured.
  uint32_t algo = 0;
  uint64_t workspaceBytes = 0;
  /// The least byte alignment (a power of two up to 256) of every operand's
  /// address and batch offset: what cuBLASLt's heuristic may assume.
  uint32_t alignment = 256;
};

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_LIBRARYCALL_H
