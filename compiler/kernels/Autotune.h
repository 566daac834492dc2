//===- Autotune.h - Measuring a launch's tuning candidates ------*- C++ -*-===//
//
// The glue between launch specs and autotune's measuring: a launch's pruned
// candidates are emitted and NVRTC-compiled in parallel, handed to
// autotune::measureOnGpu as "compiled kernel + geometry + buffers", and the
// winner becomes a tuning cache entry. Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_AUTOTUNE_H
#define KILN_COMPILER_CODEGEN_AUTOTUNE_H

#include "autotune/Measure.h"
#include "compiler/kernels/Tuning.h"

namespace kiln::codegen {

/// The buffers a measurement allocates for `spec`, with the integer ranges
/// its inputs must stay in (gather indices within the gathered axis). False
/// with `why` when the inputs of the kind cannot be generated safely.
bool measureBuffers(const LaunchSpec &spec,
                    std::vector<autotune::BufferDesc> &inputs,
                    std::vector<autotune::BufferDesc> &outputs,
                    std::string &why);

struct LaunchTuneResult {
  /// Set when a winner was measured: the cache entry to insert.
  std::optional<autotune::TuningEntry> entry;
  /// Why the launch keeps the heuristic (entry empty).
  std::string skipped;
  size_t candidates = 0; ///< compiled and handed to the GPU
  size_t passed = 0;     ///< ran and matched the reference
  /// Wall seconds spent emitting and NVRTC-compiling the candidates, and in
  /// the GPU workers (reference, checks, timing, re-timing).
  double compileSeconds = 0, gpuSeconds = 0;
  /// Candidates dropped on the way (emit, compile, fault, mismatch).
  std::vector<std::string> notes;
};

/// Indices into space.kept of the first candidate of each family
/// (autotune::configFamily), the reference (0) first.
std::vector<size_t> firstOfEachFamily(const autotune::PrunedSpace &space);

/// Measures the candidates of `configured` (a launch configureLaunch
/// accepted; its tuning keys are the reference) at `level` on the GPU.
/// Failures of single candidates are notes; only a broken toolchain (NVRTC
/// missing) is an error.
bool tuneLaunch(const LaunchSpec &configured, autotune::SearchLevel level,
                const TargetOptions &target,
                const autotune::Toolchain &toolchain, double timeoutSeconds,
                LaunchTuneResult &result, std::string &error);

} // namespace kiln::codegen

#endif // KILN_COMPILER_CODEGEN_AUTOTUNE_H
