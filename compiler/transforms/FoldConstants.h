//===- FoldConstants.h - Folding one graph op into constants ----*- C++ -*-===//
#ifndef KILN_COMPILER_TRANSFORMS_FOLDCONSTANTS_H
#define KILN_COMPILER_TRANSFORMS_FOLDCONSTANTS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

#include <cstdint>

namespace kiln {

/// Folds `op` if it is a graph op the evaluator implements, every operand
/// comes from a graph.constant and every result has at most `maxElements`
/// elements: evaluates it, creates one graph.constant per result (at `op`'s
/// position and location, through `builder`, whose insertion point is
/// restored), replaces the results' uses and erases `op`. The operand
/// constants are left in place, even when they become dead.
///
/// Returns true if `op` was folded, false if it is not foldable (nothing
/// changed), and failure if the evaluator rejected it (a diagnostic was
/// emitted at `op`; nothing changed).
mlir::FailureOr<bool> foldConstantOp(mlir::Operation *op,
                                     mlir::OpBuilder &builder,
                                     int64_t maxElements);

} // namespace kiln

#endif // KILN_COMPILER_TRANSFORMS_FOLDCONSTANTS_H
