//===- ImporterInternal.h - Per-node context for ONNX op handlers -*- C++ -*-===//
#ifndef KILN_COMPILER_FRONTEND_ONNX_IMPORTERINTERNAL_H
#define KILN_COMPILER_FRONTEND_ONNX_IMPORTERINTERNAL_H

#include "compiler/evaluator/Tensor.h"
#include "dialects/graph/GraphOps.h"
#include "onnx.pb.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace kiln::onnx_frontend {

class Importer;

/// What NodeContext::error returns: converts to failure(), a failed
/// FailureOr<T> and a null Value, so handlers can `return n.error(...)`.
struct ErrorResult {
  operator mlir::LogicalResult() const { return mlir::failure(); }
  template <typename T> operator mlir::FailureOr<T>() const { return mlir::failure(); }
  operator mlir::Value() const { return nullptr; }
};

/// What an op handler sees of one ONNX node: its inputs as values (and as
/// constants when they are), its attributes, the opset, and a builder whose
/// ops are verified and, when all operands are constant, folded at once.
class NodeContext {
public:
  NodeContext(Importer &importer, const onnx::NodeProto &node, int64_t opset,
              mlir::OpBuilder &builder, mlir::Location loc,
              llvm::SmallVector<mlir::Value> inputs);

  const onnx::NodeProto &node;
  const int64_t opset;
  mlir::OpBuilder &b;
  const mlir::Location loc;

  size_t numInputs() const { return inputs.size(); }
  bool hasInput(size_t i) const { return i < inputs.size() && inputs[i]; }
  mlir::Value input(size_t i) const { return hasInput(i) ? inputs[i] : nullptr; }
  mlir::RankedTensorType inputType(size_t i) const;
  llvm::ArrayRef<int64_t> inputShape(size_t i) const { return inputType(i).getShape(); }
  mlir::Type inputElementType(size_t i) const { return inputType(i).getElementType(); }
  /// The value of input `i` when it is a constant; otherwise an error saying
  /// that `what` must be constant.
  mlir::FailureOr<eval::Tensor> constantInput(size_t i, llvm::StringRef what);
  /// Constant input as int64 values (shapes, axes, pads).
  mlir::FailureOr<llvm::SmallVector<int64_t>> constantInts(size_t i, llvm::StringRef what);

  size_t numOutputs() const { return node.output_size(); }
  bool outputUsed(size_t i) const;

  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  bool hasAttr(llvm::StringRef name) const { return attr(name) != nullptr; }
  int64_t attrInt(llvm::StringRef name, int64_t dflt) const;
  float attrFloat(llvm::StringRef name, float dflt) const;
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt) const;
  std::optional<llvm::SmallVector<int64_t>> attrInts(llvm::StringRef name) const;
  mlir::FailureOr<eval::Tensor> attrTensor(llvm::StringRef name);

  /// Reports an error for this node and makes every later create() a no-op.
  ErrorResult error(const llvm::Twine &message);
  bool hasFailed() const { return errorSeen; }

  /// Normalizes a possibly negative axis against `rank`, or reports an error.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

  /// Builds, verifies and (if all operands are constant and small) folds an
  /// op with one result. Returns null once the node has failed.
  template <typename OpTy, typename... Args>
  mlir::Value create(Args &&...args) {
    if (errorSeen)
      return nullptr;
    auto op = OpTy::create(b, loc, std::forward<Args>(args)...);
    return finishOp(op.getOperation());
  }
  /// A graph.constant from an evaluator tensor of the given type.
  mlir::Value constant(const eval::Tensor &value);

  mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape, mlir::Type et) {
    return mlir::RankedTensorType::get(shape, et);
  }

  /// Sets the node's outputs in order (unused trailing outputs may be absent).
  mlir::LogicalResult setOutputs(llvm::ArrayRef<mlir::Value> values);
  llvm::ArrayRef<mlir::Value> outputs() const { return results; }

private:
  mlir::Value finishOp(mlir::Operation *op);

  Importer &importer;
  llvm::SmallVector<mlir::Value> inputs;
  llvm::SmallVector<mlir::Value> results;
  bool errorSeen = false;
};

using OpHandler = mlir::LogicalResult (*)(NodeContext &);

/// Handlers of the default ONNX domain by op type (OnnxOps.cpp).
const llvm::StringMap<OpHandler> &onnxOpHandlers();

} // namespace kiln::onnx_frontend

#endif
