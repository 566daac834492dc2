//===- kiln-opt.cpp - mlir-opt with Kiln's dialects and passes ------------===//
#include "compiler/lowering/Passes.h"
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
  registry.insert<kiln::graph::GraphDialect, kiln::kernel::KernelDialect, mlir::func::FuncDialect>();
  mlir::registerTransformsPasses();
  kiln::registerKilnPasses();
  kiln::registerLoweringPasses();
  kiln::registerKilnPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Kiln optimizer driver\n", registry));
}
