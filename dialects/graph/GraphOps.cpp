//===- GraphOps.cpp - Kiln graph dialect verifiers and folders ------------===//
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/FusionMaps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool kiln::graph::isFloatType(Type t) { return isa<FloatType>(t); }
bool kiln::graph::isIntegerType(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && i.getWidth() > 1;
}
bool kiln::graph::isBoolType(Type t) { return t.isInteger(1); }

FailureOr<SmallVector<int64_t>>
kiln::graph::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return failure();
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t kiln::graph::windowOutputSize(int64_t in, int64_t kernel,
                                      int64_t stride, int64_t padBegin,
                                      int64_t padEnd, int64_t dilation,
                                      bool ceilMode) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t avail = in + padBegin + padEnd - span;
  if (avail < 0)
    return 0;
  int64_t out = ceilMode ? (avail + stride - 1) / stride + 1 : avail / stride + 1;
  // With ceil mode the last window must start inside the input or left pad.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

FailureOr<int64_t> kiln::graph::checkedNumElements(ArrayRef<int64_t> shape) {
  constexpr int64_t kMax = int64_t(1) << 48;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && n > kMax / d))
      return failure();
    n *= d;
  }
  return n;
}

ElementsAttr kiln::graph::makeWeightAttr(DenseElementsAttr value, StringRef name,
                                         int64_t inlineLimit) {
  auto type = cast<ShapedType>(value.getType());
  if (value.isSplat() || type.getElementType().isInteger(1) ||
      type.getNumElements() <= inlineLimit)
    return value;
  unsigned bytes = std::max(1u, type.getElementTypeBitWidth() / 8);
  auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(value.getRawData(), bytes);
  // Resource keys print bare: keep them to identifier characters.
  std::string key;
  for (char c : name)
    key += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  if (key.empty() || !llvm::isAlpha(key[0]))
    key = "w_" + key;
  return DenseResourceElementsAttr::get(type, key, std::move(blob));
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleave(shape, os, ",");
  os << "]";
  return s;
}

static LogicalResult requireStatic(Operation *op) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return op->emitOpError() << "requires statically shaped tensors, got " << t;
    for (int64_t d : rt.getShape())
      if (d < 0)
        return op->emitOpError() << "has a negative dimension in " << t;
    if (failed(checkedNumElements(rt.getShape())))
      return op->emitOpError() << "has a tensor of more than 2^48 elements: " << t;
  }
  return success();
}

static LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected) {
  auto shape = tensorType(op->getResult(0)).getShape();
  if (shape != expected)
    return op->emitOpError() << "result shape " << shapeString(shape)
                             << " does not match the expected shape "
                             << shapeString(expected);
  return success();
}

static LogicalResult verifyResultElementType(Operation *op, Type expected) {
  Type got = tensorType(op->getResult(0)).getElementType();
  if (got != expected)
    return op->emitOpError() << "result element type " << got
                             << " does not match the expected " << expected;
  return success();
}

static LogicalResult verifyBroadcastResult(Operation *op,
                                           ArrayRef<Value> operands) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto b = broadcastShapes(shape, tensorType(v).getShape());
    if (failed(b))
      return op->emitOpError() << "operand shapes do not broadcast: "
                               << shapeString(shape) << " and "
                               << shapeString(tensorType(v).getShape());
    shape = *b;
  }
  return verifyResultShape(op, shape);
}

/// Normalizes a possibly negative axis, or returns failure if out of range.
static LogicalResult checkAxis(Operation *op, int64_t axis, int64_t rank,
                               StringRef what = "axis") {
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << what << " " << axis
                             << " is out of range for rank " << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Shared verifiers
//===----------------------------------------------------------------------===//

namespace kiln::graph::detail {

static LogicalResult verifySameTypeUnary(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  if (op->getOperand(0).getType() != op->getResult(0).getType())
    return op->emitOpError() << "result type " << op->getResult(0).getType()
                             << " must equal the operand type "
                             << op->getOperand(0).getType();
  return success();
}

LogicalResult verifyFloatUnary(Operation *op) {
  if (failed(verifySameTypeUnary(op)))
    return failure();
  if (!isFloatType(tensorType(op->getOperand(0)).getElementType()))
    return op->emitOpError() << "requires a floating-point operand, got "
                             << op->getOperand(0).getType();
  return success();
}

LogicalResult verifyNumericUnary(Operation *op) {
  if (failed(verifySameTypeUnary(op)))
    return failure();
  if (isBoolType(tensorType(op->getOperand(0)).getElementType()))
    return op->emitOpError() << "requires a numeric operand, got "
                             << op->getOperand(0).getType();
  return success();
}

LogicalResult verifyBoolUnary(Operation *op) {
  if (failed(verifySameTypeUnary(op)))
    return failure();
  if (!isBoolType(tensorType(op->getOperand(0)).getElementType()))
    return op->emitOpError() << "requires an i1 operand, got "
                             << op->getOperand(0).getType();
  return success();
}

LogicalResult verifyIsNaN(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  if (!isFloatType(tensorType(op->getOperand(0)).getElementType()))
    return op->emitOpError() << "requires a floating-point operand, got "
                             << op->getOperand(0).getType();
  if (failed(verifyResultShape(op, tensorType(op->getOperand(0)).getShape())))
    return failure();
  return verifyResultElementType(op, IntegerType::get(op->getContext(), 1));
}

LogicalResult verifyCast(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  return verifyResultShape(op, tensorType(op->getOperand(0)).getShape());
}

LogicalResult verifyArithBinary(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  Type l = tensorType(op->getOperand(0)).getElementType();
  Type r = tensorType(op->getOperand(1)).getElementType();
  if (l != r)
    return op->emitOpError() << "operand element types differ: " << l
                             << " and " << r;
  if (isBoolType(l))
    return op->emitOpError() << "requires numeric operands, got " << l;
  if (failed(verifyResultElementType(op, l)))
    return failure();
  return verifyBroadcastResult(op, {op->getOperand(0), op->getOperand(1)});
}

LogicalResult verifyPow(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  Type l = tensorType(op->getOperand(0)).getElementType();
  Type r = tensorType(op->getOperand(1)).getElementType();
  if (isBoolType(l) || isBoolType(r))
    return op->emitOpError() << "requires numeric operands";
  if (failed(verifyResultElementType(op, l)))
    return failure();
  return verifyBroadcastResult(op, {op->getOperand(0), op->getOperand(1)});
}

LogicalResult verifyCompare(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  Type l = tensorType(op->getOperand(0)).getElementType();
  Type r = tensorType(op->getOperand(1)).getElementType();
  if (l != r)
    return op->emitOpError() << "operand element types differ: " << l
                             << " and " << r;
  if (failed(verifyResultElementType(op, IntegerType::get(op->getContext(), 1))))
    return failure();
  return verifyBroadcastResult(op, {op->getOperand(0), op->getOperand(1)});
}

LogicalResult verifyLogic(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  for (Value v : op->getOperands())
    if (!isBoolType(tensorType(v).getElementType()))
      return op->emitOpError() << "requires i1 operands, got " << v.getType();
  if (failed(verifyResultElementType(op, IntegerType::get(op->getContext(), 1))))
    return failure();
  return verifyBroadcastResult(op, {op->getOperand(0), op->getOperand(1)});
}

LogicalResult verifyReduce(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  auto in = tensorType(op->getOperand(0));
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  bool keepdims = true;
  if (auto kd = op->getAttrOfType<BoolAttr>("keepdims"))
    keepdims = kd.getValue();
  StringRef name = op->getName().getStringRef();
  bool boolOk = name == "graph.reduce_max" || name == "graph.reduce_min";
  if (isBoolType(in.getElementType()) && !boolOk)
    return op->emitOpError() << "requires a numeric operand";
  int64_t rank = in.getRank();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (failed(checkAxis(op, axes[i], rank)))
      return failure();
    if (i > 0 && axes[i] <= axes[i - 1])
      return op->emitOpError() << "axes must be sorted and unique";
  }
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = axes.empty() || llvm::is_contained(axes, d);
    if (!reduced)
      expected.push_back(in.getDimSize(d));
    else if (keepdims)
      expected.push_back(1);
  }
  if (failed(verifyResultElementType(op, in.getElementType())))
    return failure();
  return verifyResultShape(op, expected);
}

LogicalResult verifySoftmaxLike(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  auto in = tensorType(op->getOperand(0));
  if (!isFloatType(in.getElementType()))
    return op->emitOpError() << "requires a floating-point operand";
  return checkAxis(op, op->getAttrOfType<IntegerAttr>("axis").getInt(),
                   in.getRank());
}

LogicalResult verifyPool(Operation *op) {
  if (failed(requireStatic(op)))
    return failure();
  auto in = tensorType(op->getOperand(0));
  bool isMax = op->getName().getStringRef() == "graph.max_pool";
  if (isMax ? isBoolType(in.getElementType()) : !isFloatType(in.getElementType()))
    return op->emitOpError() << (isMax ? "requires a numeric operand"
                                       : "requires a floating-point operand");
  if (in.getRank() < 3)
    return op->emitOpError() << "requires an input of rank >= 3 (N, C, spatial...)";
  size_t n = in.getRank() - 2;
  auto k = op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape").asArrayRef();
  auto s = op->getAttrOfType<DenseI64ArrayAttr>("strides").asArrayRef();
  auto p = op->getAttrOfType<DenseI64ArrayAttr>("pads").asArrayRef();
  auto d = op->getAttrOfType<DenseI64ArrayAttr>("dilations").asArrayRef();
  if (k.size() != n || s.size() != n || d.size() != n || p.size() != 2 * n)
    return op->emitOpError() << "expects kernel_shape, strides and dilations of "
                             << n << " entries and pads of " << 2 * n;
  bool ceil = false;
  if (auto c = op->getAttrOfType<BoolAttr>("ceil_mode"))
    ceil = c.getValue();
  SmallVector<int64_t> expected{in.getDimSize(0), in.getDimSize(1)};
  for (size_t i = 0; i < n; ++i) {
    if (k[i] <= 0 || s[i] <= 0 || d[i] <= 0 || p[i] < 0 || p[i + n] < 0)
      return op->emitOpError() << "has a non-positive kernel, stride or "
                                  "dilation, or a negative pad";
    if (p[i] >= k[i] * d[i] || p[i + n] >= k[i] * d[i])
      return op->emitOpError() << "pads must be smaller than the window";
    expected.push_back(windowOutputSize(in.getDimSize(i + 2), k[i], s[i], p[i],
                                        p[i + n], d[i], ceil));
  }
  if (failed(verifyResultElementType(op, in.getElementType())))
    return failure();
  return verifyResultShape(op, expected);
}

} // namespace kiln::graph::detail

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError() << "value type " << getValue().getType()
                         << " differs from the result type " << getType();
  return requireStatic(*this);
}

LogicalResult WhereOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (!isBoolType(getCondition().getType().getElementType()))
    return emitOpError() << "requires an i1 condition";
  Type x = getX().getType().getElementType();
  if (x != getY().getType().getElementType())
    return emitOpError() << "requires x and y of one element type";
  if (failed(verifyResultElementType(*this, x)))
    return failure();
  return verifyBroadcastResult(*this, {getCondition(), getX(), getY()});
}

LogicalResult LayerNormOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType();
  if (!isFloatType(in.getElementType()))
    return emitOpError() << "requires a floating-point input";
  int64_t axis = getAxis();
  if (failed(checkAxis(*this, axis, in.getRank())))
    return failure();
  ArrayRef<int64_t> normShape = in.getShape().drop_front(axis);
  for (Value v : {getScale(), getBias()}) {
    if (!v)
      continue;
    auto t = tensorType(v);
    auto b = broadcastShapes(normShape, t.getShape());
    if (t.getRank() > (int64_t)normShape.size() || failed(b) ||
        ArrayRef<int64_t>(*b) != normShape)
      return emitOpError() << "scale/bias shape " << shapeString(t.getShape())
                           << " does not broadcast to the normalized shape "
                           << shapeString(normShape);
  }
  if (getType() != in)
    return emitOpError() << "result type must equal the input type";
  if (getRms() && getBias())
    return emitOpError() << "with rms takes no bias";
  return success();
}

/// The shape of `t` with its axes permuted by `perm` (out[i] = in[perm[i]]),
/// or failure when `perm` is not a permutation keeping the last axis last.
static FailureOr<SmallVector<int64_t>> attentionCanonical(ArrayRef<int64_t> t,
                                                          ArrayRef<int64_t> perm) {
  if (perm.size() != t.size() || t.empty() || perm.back() != (int64_t)t.size() - 1)
    return failure();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)t.size() || seen[p])
      return failure();
    seen[p] = true;
    out.push_back(t[p]);
  }
  return out;
}

LogicalResult AttentionOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  Type et = getQ().getType().getElementType();
  if (!isFloatType(et))
    return emitOpError() << "requires floating-point operands";
  for (Value v : {getK(), getV(), getBias()})
    if (v && tensorType(v).getElementType() != et)
      return emitOpError() << "operands must share one element type";
  int64_t rank = getQ().getType().getRank();
  if (rank != 3 && rank != 4)
    return emitOpError() << "takes operands of rank 3 or 4";
  SmallVector<SmallVector<int64_t>> canon;
  const char *names[] = {"q_perm", "k_perm", "v_perm"};
  Value ops[] = {getQ(), getK(), getV()};
  ArrayRef<int64_t> perms[] = {getQPerm(), getKPerm(), getVPerm()};
  std::optional<ArrayRef<int64_t>> heads[] = {getQHeads(), getKHeads(),
                                              getVHeads()};
  for (int i = 0; i < 3; ++i) {
    auto c = attentionCanonical(tensorType(ops[i]).getShape(), perms[i]);
    if (failed(c) || (int64_t)c->size() != rank)
      return emitOpError() << names[i]
                           << " must permute the operand's axes keeping the "
                              "last one last";
    if (heads[i]) {
      ArrayRef<int64_t> h = *heads[i];
      if (rank != 4 || h.size() != 2 || h[0] < 0 || h[1] < 1 ||
          h[0] + h[1] > (*c)[1])
        return emitOpError() << "a heads range [offset, count] needs rank 4 "
                                "and must lie within the operand's heads";
      (*c)[1] = h[1];
    }
    canon.push_back(*c);
  }
  ArrayRef<int64_t> q = canon[0], k = canon[1], v = canon[2];
  ArrayRef<int64_t> batch = q.drop_back(2);
  // Grouped-query attention: K and V carry 1/G of Q's heads (axis 1).
  SmallVector<int64_t> kvBatch(batch);
  IntegerAttr groupAttr = getQPerKvAttr();
  if (IntegerAttr g = groupAttr) {
    const int64_t group = g.getInt();
    if (rank != 4 || group < 1)
      return emitOpError() << "q_per_kv (query heads per KV head) needs rank 4 "
                              "and must be at least 1, got "
                           << group;
    if (batch[1] % group != 0)
      return emitOpError() << "q_per_kv = " << group << " does not divide q's "
                           << batch[1] << " heads";
    kvBatch[1] = batch[1] / group;
  }
  if (k.drop_back(2) != ArrayRef<int64_t>(kvBatch) ||
      v.drop_back(2) != ArrayRef<int64_t>(kvBatch)) {
    InFlightDiagnostic d = emitOpError();
    if (groupAttr)
      d << "with q_per_kv = " << groupAttr.getInt()
        << ", k and v must have q's batch axes with 1/" << groupAttr.getInt()
        << " of its heads, got ";
    else
      d << "q, k and v must have equal batch axes, got ";
    return d << shapeString(q) << ", " << shapeString(k) << ", "
             << shapeString(v);
  }
  if (k.back() != q.back())
    return emitOpError() << "q and k must have one head dimension";
  if (v[rank - 2] != k[rank - 2])
    return emitOpError() << "k and v must have one sequence length";
  SmallVector<int64_t> scores(batch), out(batch);
  scores.append({q[rank - 2], k[rank - 2]});
  out.append({q[rank - 2], v.back()});
  if (Value b = getBias()) {
    auto bs = broadcastShapes(scores, tensorType(b).getShape());
    if (tensorType(b).getRank() > rank || failed(bs) ||
        ArrayRef<int64_t>(*bs) != ArrayRef<int64_t>(scores))
      return emitOpError() << "bias shape "
                           << shapeString(tensorType(b).getShape())
                           << " does not broadcast to the scores' shape "
                           << shapeString(scores);
  }
  // The result is the canonical output permuted by out_perm.
  SmallVector<int64_t> expected;
  ArrayRef<int64_t> op = getOutPerm();
  if ((int64_t)op.size() != rank || op.back() != rank - 1)
    return emitOpError()
           << "out_perm must permute the output's axes keeping the last one last";
  SmallVector<bool> seen(rank, false);
  for (int64_t p : op) {
    if (p < 0 || p >= rank || seen[p])
      return emitOpError() << "out_perm is not a permutation";
    seen[p] = true;
    expected.push_back(out[p]);
  }
  if (failed(verifyResultElementType(*this, et)))
    return failure();
  if (getScaleDivides() && !getScale())
    return emitOpError() << "scale_divides needs a scale";
  // Only Sq == Sk, where the top-left and bottom-right conventions agree.
  if (getCausal() && q[rank - 2] != k[rank - 2])
    return emitOpError() << "causal needs as many queries as keys, got "
                         << q[rank - 2] << " and " << k[rank - 2];
  if (FloatAttr fill = getCausalFillAttr()) {
    const double f = fill.getValueAsDouble();
    if (!getCausal())
      return emitOpError() << "causal_fill needs causal";
    // The kernel tells fully masked rows apart by their maximum score, in
    // f32 and base 2: F log2(e) must be finite there (-2e38 bounds it), and
    // F a value of the element type.
    const auto &sem = cast<FloatType>(et).getFloatSemantics();
    const double lowest =
        std::max(-2e38, llvm::APFloat::getLargest(sem, true).convertToDouble());
    if (!std::isfinite(f) || f > -1e4 || f < lowest)
      return emitOpError() << "causal_fill must be in [" << lowest
                           << ", -1e4], got " << f;
  }
  return verifyResultShape(*this, expected);
}

LogicalResult BatchNormOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType();
  if (!isFloatType(in.getElementType()) || in.getRank() < 2)
    return emitOpError() << "requires a floating-point input of rank >= 2";
  for (Value v : {getScale(), getBias(), getMean(), getVariance()})
    if (tensorType(v).getShape() != ArrayRef<int64_t>{in.getDimSize(1)})
      return emitOpError() << "expects per-channel operands of shape ["
                           << in.getDimSize(1) << "], got " << v.getType();
  if (getType() != in)
    return emitOpError() << "result type must equal the input type";
  return success();
}

/// `tf32` rounds f32 operands; other element types have no tf32 form.
static LogicalResult verifyTF32(Operation *op, bool tf32, Type element) {
  if (tf32 && !element.isF32())
    return op->emitOpError() << "tf32 requires f32 operands, not " << element;
  return success();
}

LogicalResult MatMulOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto a = getLhs().getType(), b = getRhs().getType();
  if (a.getElementType() != b.getElementType() ||
      isBoolType(a.getElementType()))
    return emitOpError() << "requires numeric operands of one element type";
  if (a.getRank() < 1 || b.getRank() < 1)
    return emitOpError() << "requires operands of rank >= 1";
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  bool aVec = as.size() == 1, bVec = bs.size() == 1;
  if (aVec)
    as.insert(as.begin(), 1);
  if (bVec)
    bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back();
  int64_t k2 = bs[bs.size() - 2], n = bs.back();
  if (k != k2)
    return emitOpError() << "contraction sizes differ: " << k << " and " << k2;
  auto batch = broadcastShapes(ArrayRef<int64_t>(as).drop_back(2),
                               ArrayRef<int64_t>(bs).drop_back(2));
  if (failed(batch))
    return emitOpError() << "batch dimensions do not broadcast";
  SmallVector<int64_t> expected = *batch;
  if (!aVec)
    expected.push_back(m);
  if (!bVec)
    expected.push_back(n);
  if (failed(verifyTF32(*this, getTf32(), a.getElementType())))
    return failure();
  if (failed(verifyResultElementType(*this, a.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult GemmOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto a = getA().getType(), b = getB().getType();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError() << "requires 2-D A and B";
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "requires A and B of one element type";
  int64_t m = getTransA() ? a.getDimSize(1) : a.getDimSize(0);
  int64_t k = getTransA() ? a.getDimSize(0) : a.getDimSize(1);
  int64_t k2 = getTransB() ? b.getDimSize(1) : b.getDimSize(0);
  int64_t n = getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (k != k2)
    return emitOpError() << "contraction sizes differ: " << k << " and " << k2;
  if (getC()) {
    auto c = tensorType(getC());
    auto bc = broadcastShapes({m, n}, c.getShape());
    if (c.getRank() > 2 || failed(bc) || ArrayRef<int64_t>(*bc) != ArrayRef<int64_t>{m, n})
      return emitOpError() << "C of shape " << shapeString(c.getShape())
                           << " does not broadcast to [" << m << "," << n << "]";
  }
  if (failed(verifyTF32(*this, getTf32(), a.getElementType())))
    return failure();
  if (failed(verifyResultElementType(*this, a.getElementType())))
    return failure();
  return verifyResultShape(*this, {m, n});
}

LogicalResult ConvOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto x = getInput().getType(), w = getWeight().getType();
  if (!isFloatType(x.getElementType()) || x.getElementType() != w.getElementType())
    return emitOpError() << "requires floating-point input and weight of one type";
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return emitOpError() << "requires input and weight of one rank >= 3";
  size_t n = x.getRank() - 2;
  auto s = getStrides(), p = getPads(), d = getDilations();
  if (s.size() != n || d.size() != n || p.size() != 2 * n)
    return emitOpError() << "expects strides and dilations of " << n
                         << " entries and pads of " << 2 * n;
  int64_t g = getGroup();
  if (g <= 0 || x.getDimSize(1) % g != 0 || w.getDimSize(0) % g != 0 ||
      w.getDimSize(1) * g != x.getDimSize(1))
    return emitOpError() << "channel counts do not match group " << g
                         << ": input has " << x.getDimSize(1)
                         << " channels, weight " << w.getDimSize(1) << "x"
                         << w.getDimSize(0);
  if (getBias() && tensorType(getBias()).getShape() !=
                       ArrayRef<int64_t>{w.getDimSize(0)})
    return emitOpError() << "bias must have shape [" << w.getDimSize(0) << "]";
  SmallVector<int64_t> expected{x.getDimSize(0), w.getDimSize(0)};
  for (size_t i = 0; i < n; ++i) {
    if (s[i] <= 0 || d[i] <= 0 || p[i] < 0 || p[i + n] < 0)
      return emitOpError() << "has a non-positive stride or dilation, or a negative pad";
    expected.push_back(windowOutputSize(x.getDimSize(i + 2), w.getDimSize(i + 2),
                                        s[i], p[i], p[i + n], d[i], false));
  }
  if (failed(verifyResultElementType(*this, x.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult GatherOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto data = getData().getType(), idx = getIndices().getType();
  if (!isIntegerType(idx.getElementType()))
    return emitOpError() << "requires integer indices, got " << idx;
  int64_t axis = getAxis();
  if (failed(checkAxis(*this, axis, data.getRank())))
    return failure();
  SmallVector<int64_t> expected(data.getShape().take_front(axis));
  llvm::append_range(expected, idx.getShape());
  llvm::append_range(expected, data.getShape().drop_front(axis + 1));
  if (failed(verifyResultElementType(*this, data.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult GatherElementsOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto data = getData().getType(), idx = getIndices().getType();
  if (!isIntegerType(idx.getElementType()))
    return emitOpError() << "requires integer indices, got " << idx;
  if (data.getRank() != idx.getRank())
    return emitOpError() << "requires data and indices of one rank";
  if (failed(checkAxis(*this, getAxis(), data.getRank())))
    return failure();
  if (failed(verifyResultElementType(*this, data.getElementType())))
    return failure();
  return verifyResultShape(*this, idx.getShape());
}

LogicalResult GatherNDOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto data = getData().getType(), idx = getIndices().getType();
  if (!isIntegerType(idx.getElementType()))
    return emitOpError() << "requires integer indices, got " << idx;
  int64_t b = getBatchDims();
  if (idx.getRank() < 1 || data.getRank() < 1)
    return emitOpError() << "requires data and indices of rank >= 1";
  int64_t k = idx.getShape().back();
  if (b < 0 || b >= std::min(data.getRank(), idx.getRank()))
    return emitOpError() << "batch_dims " << b << " must be below both ranks";
  if (k < 1 || b + k > data.getRank())
    return emitOpError() << "index tuples of length " << k
                         << " do not fit data of rank " << data.getRank()
                         << " after " << b << " batch dims";
  if (data.getShape().take_front(b) != idx.getShape().take_front(b))
    return emitOpError() << "batch dimensions of data and indices differ";
  SmallVector<int64_t> expected(idx.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(b + k));
  if (failed(verifyResultElementType(*this, data.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult ReshapeOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "must not change the element type";
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "element counts differ: " << in.getNumElements()
                         << " and " << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType();
  auto perm = getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return emitOpError() << "perm has " << perm.size()
                         << " entries for an operand of rank " << in.getRank();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError() << "perm is not a permutation";
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult ExpandOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType(), out = getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "must not change the element type";
  auto b = broadcastShapes(in.getShape(), out.getShape());
  if (failed(b) || ArrayRef<int64_t>(*b) != out.getShape())
    return emitOpError() << "cannot broadcast " << shapeString(in.getShape())
                         << " to " << shapeString(out.getShape());
  return success();
}

LogicalResult ConcatOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (getInputs().empty())
    return emitOpError() << "requires at least one input";
  auto first = tensorType(getInputs()[0]);
  if (failed(checkAxis(*this, getAxis(), first.getRank())))
    return failure();
  SmallVector<int64_t> expected(first.getShape());
  expected[getAxis()] = 0;
  for (Value v : getInputs()) {
    auto t = tensorType(v);
    if (t.getElementType() != first.getElementType() ||
        t.getRank() != first.getRank())
      return emitOpError() << "inputs differ in element type or rank";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != getAxis() && t.getDimSize(d) != first.getDimSize(d))
        return emitOpError() << "inputs differ on non-concatenated axis " << d;
    expected[getAxis()] += t.getDimSize(getAxis());
  }
  if (failed(verifyResultElementType(*this, first.getElementType())))
    return failure();
  return verifyResultShape(*this, expected);
}

LogicalResult SliceOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  auto in = getInput().getType(), out = getType();
  auto starts = getStarts(), steps = getSteps();
  if (in.getElementType() != out.getElementType() ||
      in.getRank() != out.getRank())
    return emitOpError() << "must keep the element type and rank";
  if ((int64_t)starts.size() != in.getRank() ||
      (int64_t)steps.size() != in.getRank())
    return emitOpError() << "requires a start and a step for every axis";
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t n = out.getDimSize(d), dim = in.getDimSize(d);
    if (steps[d] == 0)
      return emitOpError() << "step on axis " << d << " is zero";
    if (n == 0)
      continue;
    __int128 last = (__int128)starts[d] + (__int128)(n - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= dim || last < 0 || last >= dim)
      return emitOpError() << "axis " << d << " reads outside [0, " << dim
                           << "): start " << starts[d] << ", step " << steps[d]
                           << ", count " << n;
  }
  return success();
}

LogicalResult TriluOp::verify() {
  if (failed(requireStatic(*this)))
    return failure();
  if (getInput().getType().getRank() < 2)
    return emitOpError() << "requires rank >= 2";
  return success();
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

static void collectNodeNames(Location loc, std::vector<std::string> &names) {
  if (auto n = dyn_cast<NameLoc>(loc)) {
    std::string s = n.getName().str();
    if (llvm::find(names, s) == names.end())
      names.push_back(std::move(s));
  } else if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      collectNodeNames(l, names);
  } else if (auto c = dyn_cast<CallSiteLoc>(loc)) {
    collectNodeNames(c.getCallee(), names);
  }
}

std::vector<std::string> kiln::graph::onnxNodeNames(Location loc) {
  std::vector<std::string> names;
  collectNodeNames(loc, names);
  return names;
}

bool kiln::graph::isElementwiseFusible(Operation *op) {
  return isa<SqrtOp, ReciprocalOp, ExpOp, LogOp, ErfOp, TanhOp, SigmoidOp,
             SinOp, CosOp, FloorOp, CeilOp, NegOp, AbsOp, ReluOp, GeluOp,
             LeakyReluOp, ClipOp, NotOp, IsNaNOp, CastOp, AddOp, SubOp, MulOp,
             DivOp, MaxOp, MinOp, PowOp, EqualOp, LessOp, LessOrEqualOp,
             GreaterOp, GreaterOrEqualOp, AndOp, OrOp, XorOp, WhereOp,
             ExpandOp>(op);
}

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " inputs but its body takes "
                         << body.getNumArguments() << " arguments";
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    if (arg.getType() != getInputs()[i].getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i << " has "
                           << getInputs()[i].getType();
  YieldOp yield = getYield();
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().getTypes()
                         << " but its results are " << getResultTypes();
  if (getKind() != "elementwise" && getKind() != "matmul")
    return emitOpError() << "has unknown kind '" << getKind() << "'";
  if (getNumResults() < 1 || (getKind() == "matmul" && getNumResults() != 1))
    return emitOpError() << "of kind '" << getKind() << "' must have "
                         << (getKind() == "matmul" ? "one result"
                                                   : "at least one result");
  // Several results (multi-output elementwise regions) share one index
  // space: one shape.
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(getResult(0).getType()).getShape();
  for (Type t : getResultTypes())
    if (cast<RankedTensorType>(t).getShape() != shape)
      return emitOpError() << "results must all have one shape, got " << t
                           << " besides " << getResult(0).getType();
  unsigned matmuls = 0;
  bool indexMaps = getKind() == "elementwise" &&
                   llvm::any_of(body.without_terminator(),
                                [](Operation &op) { return isIndexMapOp(&op); });
  for (Operation &op : body.without_terminator()) {
    if (auto mm = dyn_cast<MatMulOp>(op); mm && getKind() == "matmul") {
      if (matmuls++)
        return op.emitOpError() << "is a second matmul in a matmul region";
      if (!isa<BlockArgument>(mm.getLhs()) || !isa<BlockArgument>(mm.getRhs()))
        return op.emitOpError()
               << "in a matmul region must take region inputs";
      if (mm.getType() != getResult(0).getType() ||
          mm.getRhs().getType().getRank() != 2 ||
          mm.getLhs().getType().getRank() < 2 ||
          !isFloatType(mm.getType().getElementType()))
        return op.emitOpError()
               << "in a matmul region must be a float product of a matrix "
                  "or batch of rows and one 2-D matrix, of the region's "
                  "result type";
      continue;
    }
    if (indexMaps && isIndexMapOp(&op))
      continue;
    if (!isElementwiseFusible(&op))
      return op.emitOpError() << "cannot be in an elementwise fusion region";
    for (Value v : op.getResults()) {
      if (indexMaps)
        break; // the region's maps below check every value
      ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
      FailureOr<SmallVector<int64_t>> b = broadcastShapes(s, shape);
      if (failed(b) || ArrayRef<int64_t>(*b) != shape)
        return op.emitOpError()
               << "result shape does not broadcast to the region's result "
                  "shape";
    }
  }
  if (getKind() == "matmul" && matmuls == 0)
    return emitOpError() << "of kind 'matmul' holds no graph.matmul";
  // With reshapes or transposes, values are not all indexed by the result's
  // coordinates: each needs one strided map from the iteration space.
  if (indexMaps) {
    SmallVector<Operation *> members;
    for (Operation &op : body.without_terminator())
      members.push_back(&op);
    if (!computeRegionMaps(members, SmallVector<Value>(yield.getValues())))
      return emitOpError() << "has a value with no single index map through "
                              "its reshapes and transposes";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Folders and canonicalizations
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Reshaping a splat or a dense constant only changes its type.
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

namespace {
/// reshape(reshape(x)) -> reshape(x): only the final shape matters.
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<ReshapeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), producer.getInput());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2]).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getInput().getDefiningOp<TransposeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(producer.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(),
                                             producer.getInput(), perm);
    return success();
  }
};

/// A transpose that only moves size-1 axes keeps the row-major order of the
/// data, so it is a reshape (which later stages implement without a copy).
struct TransposeOfUnitAxesToReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto shape = op.getInput().getType().getShape();
    SmallVector<int64_t> nonUnit;
    for (int64_t p : op.getPerm())
      if (shape[p] != 1)
        nonUnit.push_back(p);
    if (!llvm::is_sorted(nonUnit))
      return rewriter.notifyMatchFailure(op, "moves a non-unit axis");
    if (llvm::is_sorted(op.getPerm()))
      return rewriter.notifyMatchFailure(op, "identity permutation is folded");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (llvm::is_sorted(getPerm()))
    return getInput();
  return {};
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, TransposeOfUnitAxesToReshape>(context);
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (dense.isSplat())
      return DenseElementsAttr::get(getType(), dense.getSplatValue<Attribute>());
  return {};
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  return {};
}

#define GET_OP_CLASSES
#include "dialects/graph/GraphOps.cpp.inc"
