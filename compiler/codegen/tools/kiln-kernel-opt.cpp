//===- kiln-kernel-opt.cpp - kiln-opt with the kernel dialect and lowering ===//
#include "compiler/codegen/CompiledModel.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphDialect.h"
#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<kiln::graph::GraphDialect, mlir::func::FuncDialect>();
  kiln::registerKernelDialect(registry);
  mlir::registerTransformsPasses();
  kiln::registerKilnPasses();
  kiln::registerKilnPipelines();
  kiln::registerCodegenPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Kiln optimizer driver (with kernel lowering)\n", registry));
}
