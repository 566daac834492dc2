//===- Lowering.h - Graph to kernel dialect, as a library -------*- C++ -*-===//
#ifndef KILN_COMPILER_LOWERING_LOWERING_H
#define KILN_COMPILER_LOWERING_LOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <string>

namespace kiln {

struct LoweringOptions {
  /// Run kiln-plan-memory after lowering (arena offsets and size).
  bool planMemory = true;
  /// Arena alignment of every activation buffer, in bytes.
  int64_t alignment = 256;
  /// The target the launch heuristics choose for (kiln-lower-to-kernel's
  /// arch and matmul-path options).
  std::string arch = "sm_90";
  /// "auto", "mma", "wgmma" (sm_90) or "simt".
  std::string matmulPath = "auto";
};

/// Adds kiln-lower-to-kernel (and kiln-plan-memory) to `pm`.
void buildKernelPipeline(mlir::OpPassManager &pm,
                         const LoweringOptions &options);

/// Lowers every graph function of `module` to the kernel dialect in place
/// and plans its memory (what `kilnc --emit=kernel` prints). Diagnostics go
/// to the context's handler, at the failing op's location.
mlir::LogicalResult lowerToKernel(mlir::ModuleOp module,
                                  const LoweringOptions &options);

} // namespace kiln

#endif // KILN_COMPILER_LOWERING_LOWERING_H
