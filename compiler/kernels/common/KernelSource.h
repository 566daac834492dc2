//===- CudaEmitter.h - CUDA C++ for one kernel launch -----------*- C++ -*-===//
//
// Turns a LaunchSpec into a self-contained CUDA C++ translation unit: the
// kernel library templates (embedded from the .cuh files of compiler/kernels at
// build time) followed by a generated `extern "C" __global__` entry whose
// shapes, strides and constants are compile-time literals. The entry takes
// one pointer per buffer, inputs first, in the launch's operand order.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_CUDA_CUDAEMITTER_H
#define KILN_COMPILER_CODEGEN_CUDA_CUDAEMITTER_H

#include "autotune/TensorMap.h"
#include "compiler/kernels/common/KernelSpec.h"

#include <string>

namespace kiln::codegen::cuda {

struct KernelSource {
  /// The __global__ function's (extern "C") name.
  std::string entry;
  std::string source;
  /// True when the module defines `kiln_error` (a u32 __device__ global set
  /// to nonzero when a gather index was out of range and was clamped).
  bool hasErrorFlag = false;
  /// True when the kernel uses instructions of the arch-specific target
  /// (wgmma: sm_90a rather than sm_90); its cubin runs only on that
  /// architecture's GPUs.
  bool archSpecific = false;
  /// True when the entry begins with kiln::grid_dependency_sync(), so the
  /// kernel may be launched before its predecessor finishes (programmatic
  /// dependent launch; the engine's Kernel.programmatic_launch).
  bool gridDependencySync = false;
  /// Tensor map (TMA descriptor) parameters that follow the buffer pointers,
  /// in order; `buffer` is an operand index (inputs first, then outputs).
  std::vector<autotune::TensorMapArg> tensorMaps;
};

/// Emits the kernel of `spec`, whose config and geometry configureLaunch has
/// completed. Fails with a message naming the launch when the kind, the
/// config or the buffers are not supported.
bool emitKernelSource(const LaunchSpec &spec, KernelSource &out,
                      std::string &error);

} // namespace kiln::codegen::cuda

#endif // KILN_COMPILER_CODEGEN_CUDA_CUDAEMITTER_H
