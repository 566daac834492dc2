//===- GraphOps.h - Kiln graph dialect ops ----------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_GRAPH_GRAPHOPS_H
#define KILN_DIALECTS_GRAPH_GRAPHOPS_H

#include "dialects/graph/GraphDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <string>
#include <vector>

namespace kiln::graph {

/// Element-type classes used by verifiers and the frontend.
bool isFloatType(mlir::Type t);
bool isIntegerType(mlir::Type t); // integers other than i1
bool isBoolType(mlir::Type t);

/// The numpy broadcast of two shapes, or failure if they do not broadcast.
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

/// Output extent of a convolution or pooling window along one axis.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                         int64_t padBegin, int64_t padEnd, int64_t dilation,
                         bool ceilMode);

/// `value` as a constant attribute that keeps weights out of printed IR:
/// splats, i1 tensors and tensors of at most `inlineLimit` elements stay
/// dense<...>; larger ones become a dense_resource blob named `name`.
mlir::ElementsAttr makeWeightAttr(mlir::DenseElementsAttr value, llvm::StringRef name,
                                  int64_t inlineLimit = 16);

/// Number of elements of a static shape, or failure when a dimension is
/// negative or the count exceeds 2^48 (the largest tensor Kiln accepts).
mlir::FailureOr<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);

/// The ONNX node names a location holds (the frontend's NameLocs, through
/// fused and call-site locations), in order, without repeats: the nodes an
/// op, a fusion region or a kernel covers.
std::vector<std::string> onnxNodeNames(mlir::Location loc);

/// Ops an elementwise fusion region may hold: elementwise math, compares,
/// logic, casts, where and expand (an index map of its input).
bool isElementwiseFusible(mlir::Operation *op);

namespace detail {
llvm::LogicalResult verifyFloatUnary(mlir::Operation *op);
llvm::LogicalResult verifyNumericUnary(mlir::Operation *op);
llvm::LogicalResult verifyBoolUnary(mlir::Operation *op);
llvm::LogicalResult verifyIsNaN(mlir::Operation *op);
llvm::LogicalResult verifyCast(mlir::Operation *op);
llvm::LogicalResult verifyArithBinary(mlir::Operation *op);
llvm::LogicalResult verifyPow(mlir::Operation *op);
llvm::LogicalResult verifyCompare(mlir::Operation *op);
llvm::LogicalResult verifyLogic(mlir::Operation *op);
llvm::LogicalResult verifyReduce(mlir::Operation *op);
llvm::LogicalResult verifySoftmaxLike(mlir::Operation *op);
llvm::LogicalResult verifyPool(mlir::Operation *op);
} // namespace detail
} // namespace kiln::graph

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.h.inc"

#endif
