//===- Lowering.cpp - Graph to kernel dialect, as a library ---------------===//
#include "compiler/lowering/Lowering.h"
#include "compiler/lowering/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace kiln {

void buildKernelPipeline(mlir::OpPassManager &pm,
                         const LoweringOptions &options) {
  LowerToKernelPassOptions lower;
  lower.arch = options.arch;
  lower.matmulPath = options.matmulPath;
  pm.addPass(createLowerToKernelPass(lower));
  if (options.planMemory) {
    PlanMemoryPassOptions plan;
    plan.alignment = options.alignment;
    pm.addPass(createPlanMemoryPass(plan));
  }
}

mlir::LogicalResult lowerToKernel(mlir::ModuleOp module,
                                  const LoweringOptions &options) {
  mlir::PassManager pm(module.getContext());
  buildKernelPipeline(pm, options);
  return pm.run(module);
}

} // namespace kiln
