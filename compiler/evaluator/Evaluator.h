//===- Evaluator.h - CPU reference evaluator for graph ops ------*- C++ -*-===//
//
// Evaluates graph dialect ops on host tensors with ONNX semantics. One
// evaluator serves constant folding (the fold pass and the ONNX importer),
// numeric checks of rewrites (evaluate a function before and after a pass on
// random inputs) and reference outputs when no GPU is present.
//
// Floats are computed in double and rounded to the result's precision once
// per op; integers wrap to their width. Errors (unsupported ops or element
// types, operands that do not match the op's types, out-of-range indices) are
// reported as diagnostics at the op's location, never as crashes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_EVALUATOR_EVALUATOR_H
#define KILN_COMPILER_EVALUATOR_EVALUATOR_H

#include "compiler/evaluator/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace kiln::eval {

/// True if `op` is a graph dialect op that evaluateOp implements. Whether a
/// given instance evaluates still depends on its element types and values.
bool canEvaluate(mlir::Operation *op);

/// Evaluates one op on `operands` (one tensor per operand, in order, matching
/// the operand types) and returns one tensor per result. The op is verified
/// first. On failure a diagnostic has been emitted at the op.
mlir::FailureOr<llvm::SmallVector<Tensor>>
evaluateOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);

/// Evaluates a single-block function of graph ops ending in func.return on
/// `inputs` (matching the argument types), returning the returned values.
/// Intermediate tensors are freed after their last use.
mlir::FailureOr<std::vector<Tensor>>
evaluateFunction(mlir::func::FuncOp fn, llvm::ArrayRef<Tensor> inputs);

} // namespace kiln::eval

#endif // KILN_COMPILER_EVALUATOR_EVALUATOR_H
