//===- MatchUtils.h - Small matchers shared by the raising passes -*- C++ -*-===//
#ifndef KILN_COMPILER_TRANSFORMS_MATCHUTILS_H
#define KILN_COMPILER_TRANSFORMS_MATCHUTILS_H

#include "dialects/graph/GraphOps.h"

#include <optional>

namespace kiln::match {

/// `v`'s ranked tensor type.
inline mlir::RankedTensorType tensorOf(mlir::Value v) {
  return mlir::cast<mlir::RankedTensorType>(v.getType());
}

/// The value of a splat float constant, if `v` is one.
inline std::optional<double> splatValue(mlir::Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c)
    return std::nullopt;
  auto dense = mlir::dyn_cast<mlir::DenseElementsAttr>(c.getValue());
  if (!dense || !dense.isSplat() ||
      !mlir::isa<mlir::FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<llvm::APFloat>().convertToDouble();
}

/// `op`'s operands as (a, b) with `pred(b)` true, trying both orders.
template <class Pred>
bool splitOperands(mlir::Operation *op, mlir::Value &a, mlir::Value &b,
                   Pred pred) {
  if (op->getNumOperands() != 2)
    return false;
  for (int i = 0; i < 2; ++i) {
    mlir::Value x = op->getOperand(i), y = op->getOperand(1 - i);
    if (pred(y)) {
      a = x;
      b = y;
      return true;
    }
  }
  return false;
}

} // namespace kiln::match

#endif // KILN_COMPILER_TRANSFORMS_MATCHUTILS_H
