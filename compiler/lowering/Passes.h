//===- Passes.h - Kiln lowering and kernel passes ---------------*- C++ -*-===//
#ifndef KILN_COMPILER_LOWERING_PASSES_H
#define KILN_COMPILER_LOWERING_PASSES_H

#include "dialects/kernel/KernelDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

#define GEN_PASS_DECL
#include "compiler/lowering/Passes.h.inc"

/// Registers kiln-lower-to-kernel and kiln-plan-memory with the global pass
/// registry: registerLoweringPasses().
#define GEN_PASS_REGISTRATION
#include "compiler/lowering/Passes.h.inc"

} // namespace kiln

#endif // KILN_COMPILER_LOWERING_PASSES_H
