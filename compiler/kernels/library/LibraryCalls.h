//===- LibraryCalls.h - Matmul launches as cuBLASLt calls -------*- C++ -*-===//
//
// Which matmul launches cuBLASLt can run exactly, and the call that does:
// the operands swapped into cuBLASLt's column-major terms, the epilogue
// program mapped onto cuBLASLt's epilogues. A launch whose config says
// `path = cublaslt` is emitted as that call instead of a kernel
// (engine::LibraryCallSpec, kiln/engine_writer.h). The mapping is all or nothing: a program with a
// step cuBLASLt does not have (the erf GELU above all: cuBLASLt's GELU is
// the tanh approximation) keeps the launch on Kiln's kernels.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_LIBRARYCALLS_H
#define KILN_COMPILER_CODEGEN_LIBRARYCALLS_H

#include "autotune/TuningCache.h"
#include "kiln/engine_writer.h"
#include "compiler/kernels/common/KernelSpec.h"

#include <string>

namespace kiln::codegen {

/// The workspace every cuBLASLt call may use (what cuBLAS itself gives
/// Hopper GPUs); a context allocates it once.
constexpr uint64_t kCublasLtWorkspaceBytes = uint64_t(32) << 20;

/// The cuBLASLt call computing matmul launch `spec` (operands: indices into
/// its inputs, then its output; algo and libraryVersion from the config's
/// `algo` and `lt_version`); false with
/// `why` when cuBLASLt cannot compute exactly this launch.
bool cublasLtCall(const LaunchSpec &spec, engine::LibraryCallSpec &call,
                  std::string &why);

/// Whether a tuning cache's `config` is a cuBLASLt choice made with another
/// library than `cublasLtVersion` (this machine's cublasLtGetVersion, empty
/// when cuBLASLt does not load here), with `why` saying so. Only for
/// compiles that measure: they measure such a launch again rather than
/// replay an answer of another library (or one this machine lacks).
bool cublasLtEntryStale(const autotune::TuningConfig &config,
                        const std::string &cublasLtVersion, std::string &why);

} // namespace kiln::codegen

#endif // KILN_COMPILER_CODEGEN_LIBRARYCALLS_H
