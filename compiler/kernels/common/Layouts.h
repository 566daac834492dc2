//===- Layouts.h - Index layouts of reductions and contractions -*- C++ -*-===//
//
// The shapes and strides a reduction, softmax, layer norm or matmul kernel
// iterates with, derived once from the launch's buffers and config so the
// launch heuristics and the emitters agree on them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_CUDA_LAYOUTS_H
#define KILN_COMPILER_CODEGEN_CUDA_LAYOUTS_H

#include "compiler/kernels/common/KernelSpec.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

/// A reduction as kept axes x reduced axes of the input (unit axes dropped,
/// neighbouring axes of the same class merged), in input element strides.
/// Outputs enumerate the kept axes row-major; the reduced linear index
/// enumerates the reduced axes row-major.
struct ReduceLayout {
  std::vector<int64_t> keptShape, keptStrides;
  std::vector<int64_t> redShape, redStrides;
  int64_t outCount = 1, redCount = 1;
  /// The input's innermost (non-unit) axis is reduced: rows are contiguous.
  bool innerReduced = false;
};
ReduceLayout reduceLayout(const std::vector<int64_t> &inShape,
                          const std::vector<int64_t> &axes);

/// Softmax along one axis: [outer, len, inner].
struct SoftmaxLayout {
  int64_t outer = 1, len = 1, inner = 1;
};
SoftmaxLayout softmaxLayout(const std::vector<int64_t> &shape, int64_t axis);

/// A (batched) matmul: out[b, m, n] = sum_k A[b, m, k] B[b, k, n] with A and
/// B possibly transposed and broadcast over the batch axes.
struct MatmulLayout {
  int64_t m = 0, n = 0, k = 0;
  bool transA = false, transB = false;
  /// The output's batch axes, and each operand's element stride along them
  /// (0 where it broadcasts).
  std::vector<int64_t> batchShape, aBatchStrides, bBatchStrides;
  int64_t batch = 1;
  /// C's element strides along m and n (0 where it broadcasts), if present.
  bool hasC = false;
  int64_t cStrideM = 0, cStrideN = 0;
  /// With an `epilogue` program: inputs 2.. are its operands, each with
  /// element strides along m and n (0 where it broadcasts).
  std::vector<std::pair<int64_t, int64_t>> epilogueStrides;
  /// The product as its transpose (swapOperands): C^T = B^T A^T, so m runs
  /// along the output's columns and A is input 1.
  bool swapped = false;
};
/// Fails with `error` when the buffers do not form a matmul.
bool matmulLayout(const LaunchSpec &spec, MatmulLayout &layout,
                  std::string &error);
/// Makes `layout` describe C^T = B^T A^T (the wgmma TMA kernel's swap_ab):
/// m and n, the operands' transposes and every m/n stride trade places.
void swapOperands(MatmulLayout &layout);
/// Whether 16-byte global loads of A (`aVec`) and B (`bVec`) are legal: the
/// operand's contiguous extent, and every batch stride, a multiple of 16
/// bytes (8 f16, 4 f32 elements: every row starts aligned), and a 16-byte
/// aligned base.
void matmulVectorLoads(const LaunchSpec &spec, const MatmulLayout &layout,
                       bool &aVec, bool &bVec);

/// Attention (kind "attention", inputs q, k, v[, bias]): each operand's
/// element strides along the canonical axes [batch..., seq, head] (from its
/// buffer shape and `*_perm`), the bias's along [batch..., Sq, Sk] (0 where
/// it broadcasts), the output's along [batch..., Sq, Dv]. Batch axes are
/// padded to two (a leading axis of size 1 for rank 3). With `q_per_kv`
/// (grouped-query attention) k and v have b1 / group heads: query head h
/// reads KV head h / group.
struct AttentionLayout {
  int64_t b0 = 1, b1 = 1, sq = 0, sk = 0, d = 0, dv = 0, group = 1;
  /// {b0, b1, seq, head} strides.
  std::array<int64_t, 4> q{}, k{}, v{}, out{}, bias{};
  /// Element offsets of q, k and v's first canonical element (a `*_heads`
  /// range starting past head 0).
  std::array<int64_t, 3> offsets{};
  bool hasBias = false;
};
/// Fails with `error` when the buffers and perms do not form an attention
/// with contiguous head dimensions.
bool attentionLayout(const LaunchSpec &spec, AttentionLayout &layout,
                     std::string &error);

} // namespace kiln::codegen::cuda

#endif // KILN_COMPILER_CODEGEN_CUDA_LAYOUTS_H
