//===- EmitterSupport.h - Helpers shared by the CUDA emitters ---*- C++ -*-===//
#ifndef KILN_COMPILER_CODEGEN_CUDA_EMITTERSUPPORT_H
#define KILN_COMPILER_CODEGEN_CUDA_EMITTERSUPPORT_H

#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/kernels/common/KernelSource.h"
#include "compiler/kernels/common/IndexSpace.h"

#include <sstream>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

/// The text of an embedded kernel-library file ("common.cuh", ...); empty if
/// there is none of that name.
const std::string &librarySource(const std::string &file);

/// An exact C++ literal of `v` as a double, or as a float (`asFloat`; `v` is
/// then rounded to float first). Infinities and NaN become bit casts.
std::string floatLiteral(double v, bool asFloat);
/// A literal of `v` in the compute type of float dtype `t` (f32 for
/// f16/bf16/f32, f64 for f64).
std::string computeLiteral(double v, DType t);
/// The compute type of a float dtype: "float" or "double".
const char *computeTypeName(DType t);
/// An exact `long long` literal (INT64_MIN spelled as an expression).
std::string intLiteral(int64_t v);

/// The integer type of a kernel's index math: 32-bit when every offset the
/// kernel forms stays below 2^31 (cheaper division by constants), else 64-bit.
struct IndexType {
  bool wide = true;
  const char *name() const { return wide ? "kiln::i64" : "int"; }
  /// A literal of this type.
  std::string lit(int64_t v) const;
};
/// 32-bit unless some buffer of the launch has 2^31 elements or more.
IndexType indexTypeFor(const LaunchSpec &spec);

/// Emits `const <type> <prefix><d> = ...;` for every axis of `shape`: the
/// row-major coordinates of the linear index `linear`.
void emitUnravel(std::ostream &os, const std::string &indent, IndexType it,
                 const std::string &linear, const std::vector<int64_t> &shape,
                 const std::string &prefix);
/// `base + c0 * s0 + ...` over the coordinates `<prefix><d>` (zero strides
/// and a zero base left out; "0" if nothing remains).
std::string offsetExpr(IndexType it, const StridedAccess &a,
                       const std::string &prefix);

/// `const T *__restrict__ in0, ..., T *__restrict__ out0`: the kernel
/// parameters of a launch, inputs first.
std::string kernelParams(const LaunchSpec &spec);

/// The start of every kernel's source: the library files `files` (common.cuh
/// always first) and a comment naming the launch.
std::string kernelPrologue(const LaunchSpec &spec,
                           const std::vector<std::string> &files);

/// Fails an emitter with a message that names the launch.
/// A traits-struct member `name`(float (&d)[n / 2], u64 da, u64 db): one
/// wgmma.mma_async.sync.aligned m64n<n>k16 with f32 accumulators (d +=
/// A * B), A and B from shared-memory descriptors, `transA` / `transB` the
/// instruction's imm-trans-a / imm-trans-b (1: M-major A, N-major B). For
/// t = f32 it is m64n<n>k8 on tf32, which has no transposes (both operands
/// K-major; the caller checks).
std::string wgmmaFunction(const std::string &name, int64_t n, DType t,
                          bool transA, bool transB);
/// The same with A from registers: `name`(float (&d)[n / 2], const u32
/// (&a)[4], u64 db) (A always K-major, so only imm-trans-b).
std::string wgmmaRegAFunction(const std::string &name, int64_t n, DType t,
                              bool transB);

bool emitError(const LaunchSpec &spec, std::string &error,
               const std::string &msg);

/// The statements of a fused program (FusedStep, KernelSpec.h), one
/// `const T tj = ...;` per step, each after `indent`, over operand
/// expressions `x` of dtypes `xt` (program input k is x[k]). Shared by fused
/// elementwise kernels and matmul epilogues. Fails with `why` when a step's
/// op does not apply to its dtypes.
bool fusedProgramStatements(const std::vector<FusedStep> &steps,
                            const std::vector<std::string> &x,
                            const std::vector<DType> &xt,
                            const std::string &indent, std::string &code,
                            std::string &why);

} // namespace kiln::codegen::cuda

#endif // KILN_COMPILER_CODEGEN_CUDA_EMITTERSUPPORT_H
