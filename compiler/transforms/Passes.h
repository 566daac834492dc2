//===- Passes.h - Kiln graph passes -----------------------------*- C++ -*-===//
#ifndef KILN_COMPILER_TRANSFORMS_PASSES_H
#define KILN_COMPILER_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace kiln {

#define GEN_PASS_DECL
#include "compiler/transforms/Passes.h.inc"

/// Registers every Kiln graph pass with the global pass registry (for
/// kiln-opt and textual pipelines): registerKilnPasses().
#define GEN_PASS_REGISTRATION
#include "compiler/transforms/Passes.h.inc"

} // namespace kiln

#endif // KILN_COMPILER_TRANSFORMS_PASSES_H
