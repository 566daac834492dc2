//===- OnnxOps.cpp - ONNX op handlers (default domain) --------------------===//
//
// One handler per ONNX op type; each checks the opset where the op's
// signature changed (attributes that became inputs), computes static result
// types and builds graph-dialect ops through NodeContext::create.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/onnx/ImporterInternal.h"
#include "compiler/frontend/onnx/OnnxModel.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace kiln;
using namespace kiln::onnx_frontend;
namespace g = kiln::graph;

namespace {

using Shape = SmallVector<int64_t>;

Value i64Constant(NodeContext &n, ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, n.b.getI64Type());
  return n.create<g::ConstantOp>(type, DenseElementsAttr::get(type, values));
}

LogicalResult requireInputs(NodeContext &n, size_t min, size_t max) {
  size_t count = 0;
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i))
      count = i + 1;
  for (size_t i = 0; i < std::min(min, n.numInputs()); ++i)
    if (!n.hasInput(i))
      return n.error("required input " + Twine(i) + " is missing");
  if (n.numInputs() < min || count > max)
    return n.error("expects " + Twine(min) + (min == max ? "" : " to " + Twine(max)) +
                   " inputs, got " + Twine(n.numInputs()));
  return success();
}

FailureOr<Type> elementType(NodeContext &n, int64_t onnxType) {
  auto t = elementTypeFromOnnx((int32_t)onnxType, n.b.getContext());
  if (failed(t)) {
    n.error("unsupported element type " + onnxTypeName((int32_t)onnxType));
    return failure();
  }
  return *t;
}

/// The element of a one-element constant as a double.
double scalarValue(const eval::Tensor &t) {
  return t.isFloat() ? t.floats()[0] : (double)t.ints()[0];
}

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<>());
}

FailureOr<Shape> broadcast(NodeContext &n, ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  auto s = g::broadcastShapes(a, b);
  if (failed(s)) {
    n.error("input shapes do not broadcast");
    return failure();
  }
  return Shape(*s);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy, bool BoolResult = false>
LogicalResult binary(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  // Opsets before 7 broadcast only with broadcast=1 and may align at `axis`.
  if (n.attrInt("broadcast", 0) != 0 && n.hasAttr("axis"))
    return n.error("legacy broadcast with an explicit axis is not supported");
  auto shape = broadcast(n, n.inputShape(0), n.inputShape(1));
  if (failed(shape))
    return failure();
  Type et = BoolResult ? n.b.getI1Type() : n.inputElementType(0);
  return n.setOutputs(
      {n.create<OpTy>(n.tensorType(*shape, et), n.input(0), n.input(1))});
}

/// Max/Min are variadic in ONNX: fold them left to right.
template <typename OpTy>
LogicalResult variadic(NodeContext &n) {
  if (n.numInputs() < 1)
    return n.error("expects at least one input");
  Value acc = n.input(0);
  for (size_t i = 1; i < n.numInputs() && acc; ++i) {
    auto shape = broadcast(n, cast<RankedTensorType>(acc.getType()).getShape(),
                           n.inputShape(i));
    if (failed(shape))
      return failure();
    acc = n.create<OpTy>(n.tensorType(*shape, n.inputElementType(0)), acc, n.input(i));
  }
  return n.setOutputs({acc});
}

template <typename OpTy>
LogicalResult unary(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  return n.setOutputs({n.create<OpTy>(n.inputType(0), n.input(0))});
}

LogicalResult identity(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  return n.setOutputs({n.input(0)});
}

LogicalResult isNaN(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  return n.setOutputs({n.create<g::IsNaNOp>(
      n.tensorType(n.inputShape(0), n.b.getI1Type()), n.input(0))});
}

LogicalResult gelu(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  std::string approx = n.attrString("approximate", "none");
  if (approx != "none" && approx != "tanh")
    return n.error("unknown approximate '" + approx + "'");
  return n.setOutputs({n.create<g::GeluOp>(n.inputType(0), n.input(0),
                                           n.b.getStringAttr(approx))});
}

LogicalResult leakyRelu(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  return n.setOutputs({n.create<g::LeakyReluOp>(
      n.inputType(0), n.input(0), n.b.getF32FloatAttr(n.attrFloat("alpha", 0.01f)))});
}

/// Constant bounds become graph.clip attributes; bounds computed at run time
/// become graph.max / graph.min.
LogicalResult clip(NodeContext &n) {
  if (failed(requireInputs(n, 1, 3)))
    return failure();
  FloatAttr lo, hi;
  Value x = n.input(0);
  if (n.opset < 11) {
    if (n.hasAttr("min"))
      lo = n.b.getF64FloatAttr(n.attrFloat("min", 0));
    if (n.hasAttr("max"))
      hi = n.b.getF64FloatAttr(n.attrFloat("max", 0));
  } else {
    for (size_t i = 1; i < 3; ++i) {
      if (!n.hasInput(i))
        continue;
      if (n.inputType(i).getNumElements() != 1)
        return n.error("clip bounds must be scalars");
      if (!n.input(i).getDefiningOp<g::ConstantOp>()) {
        Value bound = n.create<g::ReshapeOp>(n.tensorType({}, n.inputElementType(i)), n.input(i));
        x = i == 1 ? n.create<g::MaxOp>(n.inputType(0), x, bound)
                   : n.create<g::MinOp>(n.inputType(0), x, bound);
        continue;
      }
      auto t = n.constantInput(i, i == 1 ? "min" : "max");
      if (failed(t))
        return failure();
      (i == 1 ? lo : hi) = n.b.getF64FloatAttr(scalarValue(*t));
    }
  }
  if (!lo && !hi)
    return n.setOutputs({x});
  return n.setOutputs({n.create<g::ClipOp>(n.inputType(0), x, lo, hi)});
}

LogicalResult castOp(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto to = elementType(n, n.attrInt("to", 0));
  if (failed(to))
    return failure();
  return n.setOutputs(
      {n.create<g::CastOp>(n.tensorType(n.inputShape(0), *to), n.input(0))});
}

LogicalResult where(NodeContext &n) {
  if (failed(requireInputs(n, 3, 3)))
    return failure();
  auto s1 = broadcast(n, n.inputShape(0), n.inputShape(1));
  if (failed(s1))
    return failure();
  auto s2 = broadcast(n, *s1, n.inputShape(2));
  if (failed(s2))
    return failure();
  return n.setOutputs({n.create<g::WhereOp>(n.tensorType(*s2, n.inputElementType(1)),
                                            n.input(0), n.input(1), n.input(2))});
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

/// Reduce ops: `axes` moved from attribute to input at opset 13 (ReduceSum)
/// and 18 (the others).
template <typename OpTy>
LogicalResult reduce(NodeContext &n, int64_t axesInputSince) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  int64_t rank = n.inputType(0).getRank();
  SmallVector<int64_t> axes;
  if (n.opset >= axesInputSince) {
    if (n.hasInput(1)) {
      auto a = n.constantInts(1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
  } else if (auto a = n.attrInts("axes")) {
    axes = *a;
  }
  if (axes.empty() && n.attrInt("noop_with_empty_axes", 0))
    return n.setOutputs({n.input(0)});
  for (int64_t &a : axes) {
    auto norm = n.normalizeAxis(a, rank);
    if (failed(norm))
      return failure();
    a = *norm;
  }
  llvm::sort(axes);
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return n.error("axes contain a duplicate");
  bool keep = n.attrInt("keepdims", 1) != 0;
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    bool reduced = axes.empty() || llvm::is_contained(axes, d);
    if (!reduced)
      shape.push_back(n.inputShape(0)[d]);
    else if (keep)
      shape.push_back(1);
  }
  return n.setOutputs({n.create<OpTy>(n.tensorType(shape, n.inputElementType(0)),
                                      n.input(0), n.b.getDenseI64ArrayAttr(axes),
                                      n.b.getBoolAttr(keep))});
}

/// Softmax/LogSoftmax: before opset 13 the input is coerced to 2-D at `axis`
/// (default 1) and normalized over the whole trailing block.
template <typename OpTy>
LogicalResult softmaxLike(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto type = n.inputType(0);
  int64_t rank = type.getRank();
  if (rank == 0)
    return n.error("requires an input of rank >= 1");
  auto axis = n.normalizeAxis(n.attrInt("axis", n.opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  if (n.opset >= 13 || *axis == rank - 1)
    return n.setOutputs({n.create<OpTy>(type, n.input(0), n.b.getI64IntegerAttr(*axis))});
  auto shape = type.getShape();
  auto flat = n.tensorType({product(shape.take_front(*axis)), product(shape.drop_front(*axis))},
                           type.getElementType());
  Value x = n.create<g::ReshapeOp>(flat, n.input(0));
  Value y = n.create<OpTy>(flat, x, n.b.getI64IntegerAttr(1));
  return n.setOutputs({n.create<g::ReshapeOp>(type, y)});
}

LogicalResult layerNorm(NodeContext &n) {
  if (failed(requireInputs(n, 2, 3)))
    return failure();
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.attrInt("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  float eps = n.attrFloat("epsilon", 1e-5f);
  Value y = n.create<g::LayerNormOp>(type, n.input(0), n.input(1), n.input(2),
                                     n.b.getI64IntegerAttr(*axis), n.b.getF32FloatAttr(eps));
  if (!n.outputUsed(1) && !n.outputUsed(2))
    return n.setOutputs({y});
  // Mean and InvStdDev (shape [d0..d(axis-1), 1, ...]) written out in
  // graph ops, computed in f32 as the spec's default stash_type says.
  if (n.attrInt("stash_type", 1) != 1)
    return n.error("only stash_type=1 (float32) is supported");
  Type f32 = n.b.getF32Type();
  Shape axes, statShape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    statShape.push_back(d < *axis ? type.getDimSize(d) : 1);
    if (d >= *axis)
      axes.push_back(d);
  }
  Value x = n.input(0);
  if (type.getElementType() != f32)
    x = n.create<g::CastOp>(n.tensorType(type.getShape(), f32), x);
  auto statType = n.tensorType(statShape, f32);
  auto fullType = n.tensorType(type.getShape(), f32);
  auto axesAttr = n.b.getDenseI64ArrayAttr(axes);
  Value mean = n.create<g::ReduceMeanOp>(statType, x, axesAttr, n.b.getBoolAttr(true));
  Value centered = n.create<g::SubOp>(fullType, x, mean);
  Value sq = n.create<g::MulOp>(fullType, centered, centered);
  Value var = n.create<g::ReduceMeanOp>(statType, sq, axesAttr, n.b.getBoolAttr(true));
  auto scalar = n.tensorType({}, f32);
  Value epsValue = n.create<g::ConstantOp>(scalar, DenseElementsAttr::get(scalar, eps));
  Value inv = n.create<g::ReciprocalOp>(
      statType, n.create<g::SqrtOp>(statType, n.create<g::AddOp>(statType, var, epsValue)));
  return n.setOutputs({y, mean, inv});
}

LogicalResult batchNorm(NodeContext &n) {
  if (failed(requireInputs(n, 5, 5)))
    return failure();
  if (n.attrInt("training_mode", 0) != 0)
    return n.error("training_mode=1 is not supported (inference only)");
  for (int i = 1; i < n.numOutputs(); ++i)
    if (n.outputUsed(i))
      return n.error("the running mean/variance outputs are not supported");
  return n.setOutputs({n.create<g::BatchNormOp>(
      n.inputType(0), n.input(0), n.input(1), n.input(2), n.input(3), n.input(4),
      n.b.getF32FloatAttr(n.attrFloat("epsilon", 1e-5f)))});
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult matmul(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  Shape a(n.inputShape(0)), b(n.inputShape(1));
  if (a.empty() || b.empty())
    return n.error("operands must have rank >= 1");
  bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec)
    a.insert(a.begin(), 1);
  if (bVec)
    b.push_back(1);
  if (a.back() != b[b.size() - 2])
    return n.error("contraction sizes differ: " + Twine(a.back()) + " and " +
                   Twine(b[b.size() - 2]));
  auto batch = broadcast(n, ArrayRef<int64_t>(a).drop_back(2), ArrayRef<int64_t>(b).drop_back(2));
  if (failed(batch))
    return failure();
  Shape out = *batch;
  if (!aVec)
    out.push_back(a[a.size() - 2]);
  if (!bVec)
    out.push_back(b.back());
  return n.setOutputs({n.create<g::MatMulOp>(n.tensorType(out, n.inputElementType(0)),
                                             n.input(0), n.input(1))});
}

LogicalResult gemm(NodeContext &n) {
  if (failed(requireInputs(n, 2, 3)))
    return failure();
  if (n.inputType(0).getRank() != 2 || n.inputType(1).getRank() != 2)
    return n.error("A and B must be 2-D");
  bool ta = n.attrInt("transA", 0), tb = n.attrInt("transB", 0);
  int64_t m = n.inputShape(0)[ta ? 1 : 0], nn = n.inputShape(1)[tb ? 0 : 1];
  return n.setOutputs({n.create<g::GemmOp>(
      n.tensorType({m, nn}, n.inputElementType(0)), n.input(0), n.input(1), n.input(2),
      n.b.getF32FloatAttr(n.attrFloat("alpha", 1.0f)),
      n.b.getF32FloatAttr(n.attrFloat("beta", 1.0f)), n.b.getBoolAttr(ta),
      n.b.getBoolAttr(tb))});
}

/// Resolves auto_pad into explicit begin/end pads.
FailureOr<Shape> windowPads(NodeContext &n, ArrayRef<int64_t> spatial,
                            ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                            ArrayRef<int64_t> dilations) {
  size_t k = spatial.size();
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  Shape pads(2 * k, 0);
  if (autoPad == "NOTSET") {
    if (auto p = n.attrInts("pads")) {
      if (p->size() != 2 * k)
        return n.error("pads must have " + Twine(2 * k) + " entries");
      pads = *p;
    }
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < k; ++i) {
      int64_t out = (spatial[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(
          (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - spatial[i], 0);
      int64_t small = total / 2, big = total - small;
      pads[i] = autoPad == "SAME_UPPER" ? small : big;
      pads[i + k] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad != "VALID") {
    return n.error("unknown auto_pad '" + autoPad + "'");
  }
  return pads;
}

Shape intsOr(NodeContext &n, StringRef name, size_t count, int64_t dflt) {
  if (auto v = n.attrInts(name))
    return *v;
  return Shape(count, dflt);
}

/// Window attributes must be positive before any output size is computed.
LogicalResult checkWindow(NodeContext &n, ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> dilations, size_t k) {
  if (kernel.size() != k || strides.size() != k || dilations.size() != k)
    return n.error("kernel_shape, strides and dilations must have " + Twine(k) + " entries");
  for (size_t i = 0; i < k; ++i)
    if (kernel[i] <= 0 || strides[i] <= 0 || dilations[i] <= 0)
      return n.error("kernel sizes, strides and dilations must be positive");
  return success();
}

LogicalResult checkOutputExtents(NodeContext &n, ArrayRef<int64_t> out) {
  for (int64_t d : out.drop_front(2))
    if (d <= 0)
      return n.error("the window is larger than the padded input (output extent " + Twine(d) + ")");
  return success();
}

LogicalResult conv(NodeContext &n) {
  if (failed(requireInputs(n, 2, 3)))
    return failure();
  auto x = n.inputType(0), w = n.inputType(1);
  if (x.getRank() < 3 || w.getRank() != x.getRank())
    return n.error("input and weight must have one rank >= 3");
  size_t k = x.getRank() - 2;
  Shape kernel(w.getShape().drop_front(2));
  if (auto ks = n.attrInts("kernel_shape"); ks && *ks != kernel)
    return n.error("kernel_shape does not match the weight's shape");
  Shape strides = intsOr(n, "strides", k, 1), dil = intsOr(n, "dilations", k, 1);
  if (failed(checkWindow(n, kernel, strides, dil, k)))
    return failure();
  auto pads = windowPads(n, x.getShape().drop_front(2), kernel, strides, dil);
  if (failed(pads))
    return failure();
  Shape out{x.getDimSize(0), w.getDimSize(0)};
  for (size_t i = 0; i < k; ++i)
    out.push_back(g::windowOutputSize(x.getDimSize(i + 2), kernel[i], strides[i],
                                      (*pads)[i], (*pads)[i + k], dil[i], false));
  if (failed(checkOutputExtents(n, out)))
    return failure();
  return n.setOutputs({n.create<g::ConvOp>(
      n.tensorType(out, x.getElementType()), n.input(0), n.input(1), n.input(2),
      n.b.getDenseI64ArrayAttr(strides), n.b.getDenseI64ArrayAttr(*pads),
      n.b.getDenseI64ArrayAttr(dil), n.b.getI64IntegerAttr(n.attrInt("group", 1)))});
}

template <typename OpTy>
LogicalResult pool(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  if (n.outputUsed(1))
    return n.error("the Indices output is not supported");
  if (n.attrInt("storage_order", 0) != 0)
    return n.error("storage_order=1 is not supported");
  auto x = n.inputType(0);
  if (x.getRank() < 3)
    return n.error("input must have rank >= 3");
  size_t k = x.getRank() - 2;
  auto kernel = n.attrInts("kernel_shape");
  if (!kernel || kernel->size() != k)
    return n.error("kernel_shape must have " + Twine(k) + " entries");
  Shape strides = intsOr(n, "strides", k, 1), dil = intsOr(n, "dilations", k, 1);
  if (failed(checkWindow(n, *kernel, strides, dil, k)))
    return failure();
  auto pads = windowPads(n, x.getShape().drop_front(2), *kernel, strides, dil);
  if (failed(pads))
    return failure();
  bool ceil = n.attrInt("ceil_mode", 0) != 0;
  Shape out{x.getDimSize(0), x.getDimSize(1)};
  for (size_t i = 0; i < k; ++i)
    out.push_back(g::windowOutputSize(x.getDimSize(i + 2), (*kernel)[i], strides[i],
                                      (*pads)[i], (*pads)[i + k], dil[i], ceil));
  if (failed(checkOutputExtents(n, out)))
    return failure();
  return n.setOutputs({n.create<OpTy>(
      n.tensorType(out, x.getElementType()), n.input(0), n.b.getDenseI64ArrayAttr(*kernel),
      n.b.getDenseI64ArrayAttr(strides), n.b.getDenseI64ArrayAttr(*pads),
      n.b.getDenseI64ArrayAttr(dil), n.b.getBoolAttr(ceil),
      n.b.getBoolAttr(n.attrInt("count_include_pad", 0) != 0))});
}

template <typename OpTy>
LogicalResult globalPool(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto x = n.inputType(0);
  if (x.getRank() < 3)
    return n.error("input must have rank >= 3");
  Shape axes, out{x.getDimSize(0), x.getDimSize(1)};
  for (int64_t d = 2; d < x.getRank(); ++d) {
    axes.push_back(d);
    out.push_back(1);
  }
  return n.setOutputs({n.create<OpTy>(n.tensorType(out, x.getElementType()), n.input(0),
                                      n.b.getDenseI64ArrayAttr(axes), n.b.getBoolAttr(true))});
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

LogicalResult gather(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  auto data = n.inputType(0);
  if (data.getRank() == 0)
    return n.error("data must have rank >= 1");
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), data.getRank());
  if (failed(axis))
    return failure();
  Shape out(data.getShape().take_front(*axis));
  llvm::append_range(out, n.inputShape(1));
  llvm::append_range(out, data.getShape().drop_front(*axis + 1));
  return n.setOutputs({n.create<g::GatherOp>(n.tensorType(out, data.getElementType()),
                                             n.input(0), n.input(1),
                                             n.b.getI64IntegerAttr(*axis))});
}

LogicalResult gatherElements(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), n.inputType(0).getRank());
  if (failed(axis))
    return failure();
  return n.setOutputs({n.create<g::GatherElementsOp>(
      n.tensorType(n.inputShape(1), n.inputElementType(0)), n.input(0), n.input(1),
      n.b.getI64IntegerAttr(*axis))});
}

LogicalResult gatherND(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  auto data = n.inputType(0), idx = n.inputType(1);
  int64_t b = n.attrInt("batch_dims", 0);
  if (idx.getRank() < 1 || idx.getShape().back() + b > data.getRank())
    return n.error("index tuples do not fit the data's rank");
  Shape out(idx.getShape().drop_back());
  llvm::append_range(out, data.getShape().drop_front(b + idx.getShape().back()));
  return n.setOutputs({n.create<g::GatherNDOp>(n.tensorType(out, data.getElementType()),
                                               n.input(0), n.input(1),
                                               n.b.getI64IntegerAttr(b))});
}

Value reshapeTo(NodeContext &n, Value v, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  return n.create<g::ReshapeOp>(n.tensorType(shape, t.getElementType()), v);
}

LogicalResult reshape(NodeContext &n) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  Shape target;
  if (n.opset < 5) {
    target = n.attrInts("shape").value_or(Shape{});
  } else {
    auto s = n.constantInts(1, "shape");
    if (failed(s))
      return failure();
    target = *s;
  }
  auto in = n.inputShape(0);
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  int64_t inferred = -1, known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == 0 && !allowZero) {
      if (i >= in.size())
        return n.error("shape entry 0 at index " + Twine(i) + " has no input dimension to copy");
      target[i] = in[i];
    }
    if (target[i] == -1) {
      if (inferred >= 0)
        return n.error("shape has more than one -1");
      inferred = i;
      continue;
    }
    if (target[i] < 0)
      return n.error("shape entry " + Twine(target[i]) + " is invalid");
    known *= target[i];
  }
  int64_t total = product(in);
  if (inferred >= 0) {
    if (known == 0 || total % known)
      return n.error("cannot infer the -1 dimension: " + Twine(total) +
                     " elements do not divide by " + Twine(known));
    target[inferred] = total / known;
  } else if (known != total) {
    return n.error("cannot reshape " + Twine(total) + " elements into " + Twine(known));
  }
  return n.setOutputs({reshapeTo(n, n.input(0), target)});
}

LogicalResult flatten(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto in = n.inputShape(0);
  int64_t rank = in.size();
  int64_t axis = n.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return n.error("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  if (axis < 0)
    axis += rank;
  return n.setOutputs(
      {reshapeTo(n, n.input(0), {product(in.take_front(axis)), product(in.drop_front(axis))})});
}

FailureOr<Shape> axesArg(NodeContext &n, int64_t inputSince, bool required) {
  if (n.opset >= inputSince) {
    if (!n.hasInput(1)) {
      if (required)
        return n.error("missing input 'axes'");
      return Shape{};
    }
    return n.constantInts(1, "axes");
  }
  auto a = n.attrInts("axes");
  if (!a && required)
    return n.error("missing attribute 'axes'");
  return a.value_or(Shape{});
}

LogicalResult squeeze(NodeContext &n) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  auto axes = axesArg(n, 13, false);
  if (failed(axes))
    return failure();
  auto in = n.inputShape(0);
  SmallVector<bool> drop(in.size(), false);
  if (axes->empty()) {
    for (size_t i = 0; i < in.size(); ++i)
      drop[i] = in[i] == 1;
  }
  for (int64_t a : *axes) {
    auto d = n.normalizeAxis(a, in.size());
    if (failed(d))
      return failure();
    if (in[*d] != 1)
      return n.error("cannot squeeze axis " + Twine(a) + " of size " + Twine(in[*d]));
    if (drop[*d])
      return n.error("axes contain a duplicate");
    drop[*d] = true;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i])
      out.push_back(in[i]);
  return n.setOutputs({reshapeTo(n, n.input(0), out)});
}

LogicalResult unsqueeze(NodeContext &n) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  auto axes = axesArg(n, 13, true);
  if (failed(axes))
    return failure();
  auto in = n.inputShape(0);
  int64_t rank = in.size() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t a : *axes) {
    auto d = n.normalizeAxis(a, rank);
    if (failed(d))
      return failure();
    if (inserted[*d])
      return n.error("axes contain a duplicate");
    inserted[*d] = true;
  }
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    out.push_back(inserted[i] ? 1 : in[next++]);
  return n.setOutputs({reshapeTo(n, n.input(0), out)});
}

LogicalResult transpose(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto in = n.inputShape(0);
  Shape perm;
  if (auto p = n.attrInts("perm"))
    perm = *p;
  else
    for (int64_t i = in.size() - 1; i >= 0; --i)
      perm.push_back(i);
  if (perm.size() != in.size())
    return n.error("perm has " + Twine(perm.size()) + " entries for rank " + Twine(in.size()));
  Shape out;
  for (int64_t &p : perm) {
    auto d = n.normalizeAxis(p, in.size());
    if (failed(d))
      return failure();
    p = *d;
    out.push_back(in[p]);
  }
  return n.setOutputs({n.create<g::TransposeOp>(n.tensorType(out, n.inputElementType(0)),
                                                n.input(0), n.b.getDenseI64ArrayAttr(perm))});
}

LogicalResult expand(NodeContext &n) {
  if (failed(requireInputs(n, 2, 2)))
    return failure();
  auto s = n.constantInts(1, "shape");
  if (failed(s))
    return failure();
  auto out = broadcast(n, n.inputShape(0), *s);
  if (failed(out))
    return failure();
  return n.setOutputs(
      {n.create<g::ExpandOp>(n.tensorType(*out, n.inputElementType(0)), n.input(0))});
}

LogicalResult concat(NodeContext &n) {
  if (n.numInputs() < 1)
    return n.error("expects at least one input");
  SmallVector<Value> ins;
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i))
      ins.push_back(n.input(i));
  auto first = cast<RankedTensorType>(ins[0].getType());
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), first.getRank());
  if (failed(axis))
    return failure();
  Shape out(first.getShape());
  out[*axis] = 0;
  for (Value v : ins) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != first.getRank())
      return n.error("inputs have different ranks");
    out[*axis] += t.getDimSize(*axis);
  }
  return n.setOutputs({n.create<g::ConcatOp>(n.tensorType(out, first.getElementType()),
                                             ins, n.b.getI64IntegerAttr(*axis))});
}

/// Builds graph.slice from ONNX's (start, end, step) per listed axis with its
/// clamping rules; unlisted axes are taken whole.
Value sliceAxes(NodeContext &n, Value input, ArrayRef<int64_t> starts,
                ArrayRef<int64_t> ends, ArrayRef<int64_t> axes, ArrayRef<int64_t> steps) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  Shape st(rank, 0), sp(rank, 1), out(type.getShape());
  SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = n.normalizeAxis(axes[i], rank);
    if (failed(axis))
      return nullptr;
    if (seen[*axis])
      return n.error("axes contain a duplicate");
    seen[*axis] = true;
    int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0)
      return n.error("slice step is zero");
    int64_t s = starts[i], e = ends[i];
    if (s < 0)
      s = s < -dim ? 0 : s + dim;
    if (e < 0)
      e = e < -dim ? -1 : e + dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    // s and e are clamped to [-1, dim], so only the step can overflow.
    uint64_t mag = step > 0 ? (uint64_t)step : (uint64_t)(-(step + 1)) + 1;
    int64_t dist = step > 0 ? e - s : s - e;
    int64_t count = dist > 0 ? (int64_t)(((uint64_t)dist - 1) / mag + 1) : 0;
    out[*axis] = count;
    st[*axis] = count ? s : 0;
    sp[*axis] = step;
  }
  return n.create<g::SliceOp>(n.tensorType(out, type.getElementType()), input,
                              n.b.getDenseI64ArrayAttr(st), n.b.getDenseI64ArrayAttr(sp));
}

LogicalResult slice(NodeContext &n) {
  Shape starts, ends, axes, steps;
  if (n.opset < 10) {
    if (failed(requireInputs(n, 1, 1)))
      return failure();
    starts = n.attrInts("starts").value_or(Shape{});
    ends = n.attrInts("ends").value_or(Shape{});
    axes = n.attrInts("axes").value_or(Shape{});
  } else {
    if (failed(requireInputs(n, 3, 5)))
      return failure();
    auto s = n.constantInts(1, "starts"), e = n.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (n.hasInput(3)) {
      auto a = n.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.hasInput(4)) {
      auto p = n.constantInts(4, "steps");
      if (failed(p))
        return failure();
      steps = *p;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return n.error("starts, ends, axes and steps must have one length");
  return n.setOutputs({sliceAxes(n, n.input(0), starts, ends, axes, steps)});
}

LogicalResult split(NodeContext &n) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  auto type = n.inputType(0);
  auto axis = n.normalizeAxis(n.attrInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = type.getDimSize(*axis);
  Shape sizes;
  if (n.opset >= 13 && n.hasInput(1)) {
    auto s = n.constantInts(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (n.opset < 13 && n.hasAttr("split")) {
    sizes = *n.attrInts("split");
  } else {
    int64_t parts = n.opset >= 18 && n.hasAttr("num_outputs") ? n.attrInt("num_outputs", 1)
                                                              : (int64_t)n.numOutputs();
    if (parts <= 0)
      return n.error("number of outputs must be positive");
    int64_t chunk = (dim + parts - 1) / parts;
    if (n.opset < 18 && dim % parts)
      return n.error("axis of size " + Twine(dim) + " does not split evenly into " + Twine(parts));
    for (int64_t i = 0; i < parts; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  if ((int64_t)sizes.size() != (int64_t)n.numOutputs())
    return n.error("split has " + Twine(sizes.size()) + " parts but the node has " +
                   Twine(n.numOutputs()) + " outputs");
  int64_t offset = 0;
  SmallVector<Value> outs;
  for (int64_t s : sizes) {
    if (s < 0)
      return n.error("split sizes must be non-negative");
    outs.push_back(sliceAxes(n, n.input(0), {offset}, {offset + s}, {*axis}, {1}));
    offset += s;
  }
  if (offset != dim)
    return n.error("split sizes add up to " + Twine(offset) + ", not the axis size " + Twine(dim));
  return n.setOutputs(outs);
}

LogicalResult trilu(NodeContext &n) {
  if (failed(requireInputs(n, 1, 2)))
    return failure();
  int64_t k = 0;
  if (n.hasInput(1)) {
    auto t = n.constantInts(1, "k");
    if (failed(t))
      return failure();
    if (t->size() != 1)
      return n.error("k must be a scalar");
    k = (*t)[0];
  }
  return n.setOutputs({n.create<g::TriluOp>(n.inputType(0), n.input(0),
                                            n.b.getI64IntegerAttr(k),
                                            n.b.getBoolAttr(n.attrInt("upper", 1) != 0))});
}

//===----------------------------------------------------------------------===//
// Shapes and constants (static shapes make these constants)
//===----------------------------------------------------------------------===//

LogicalResult shapeOp(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto in = n.inputShape(0);
  int64_t rank = in.size();
  int64_t start = n.attrInt("start", 0), end = n.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  Shape dims(in.begin() + start, in.begin() + std::max(start, end));
  return n.setOutputs({i64Constant(n, {(int64_t)dims.size()}, dims)});
}

LogicalResult sizeOp(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  return n.setOutputs({i64Constant(n, {}, {product(n.inputShape(0))})});
}

LogicalResult constantOfShape(NodeContext &n) {
  if (failed(requireInputs(n, 1, 1)))
    return failure();
  auto shape = n.constantInts(0, "input");
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return n.error("negative dimension " + Twine(d));
  Attribute value;
  RankedTensorType type;
  if (n.hasAttr("value")) {
    auto t = n.attrTensor("value");
    if (failed(t))
      return failure();
    if (t->numElements() != 1)
      return n.error("value must hold one element");
    Type et = eval::dtypeToMlir(t->dtype(), n.b.getContext());
    type = n.tensorType(*shape, et);
    auto attr = dyn_cast_if_present<DenseElementsAttr>(
        eval::tensorToAttr(*t, RankedTensorType::get(t->shape(), et)));
    if (!attr)
      return n.error("cannot read the value attribute");
    value = *attr.getValues<Attribute>().begin();
  } else {
    type = n.tensorType(*shape, n.b.getF32Type());
    value = n.b.getF32FloatAttr(0.0f);
  }
  return n.setOutputs({n.create<g::ConstantOp>(type, DenseElementsAttr::get(type, value))});
}

LogicalResult range(NodeContext &n) {
  if (failed(requireInputs(n, 3, 3)))
    return failure();
  auto s = n.constantInput(0, "start"), l = n.constantInput(1, "limit"),
       d = n.constantInput(2, "delta");
  if (failed(s) || failed(l) || failed(d))
    return failure();
  Type et = n.inputElementType(0);
  double start = scalarValue(*s), limit = scalarValue(*l), delta = scalarValue(*d);
  if (delta == 0)
    return n.error("delta is zero");
  int64_t count = std::max<int64_t>(0, (int64_t)std::ceil((limit - start) / delta));
  if (count > (int64_t(1) << 32))
    return n.error("range of " + Twine(count) + " elements is too large");
  auto type = n.tensorType({count}, et);
  DenseElementsAttr attr;
  if (isa<FloatType>(et)) {
    SmallVector<APFloat> vals;
    for (int64_t i = 0; i < count; ++i) {
      APFloat v(start + i * delta);
      bool lost;
      v.convert(cast<FloatType>(et).getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      vals.push_back(v);
    }
    attr = DenseElementsAttr::get(type, vals);
  } else {
    SmallVector<APInt> vals;
    int64_t st = (int64_t)s->ints()[0], dl = (int64_t)d->ints()[0];
    for (int64_t i = 0; i < count; ++i)
      vals.push_back(APInt(et.getIntOrFloatBitWidth(), st + i * dl, /*isSigned=*/true));
    attr = DenseElementsAttr::get(type, vals);
  }
  return n.setOutputs({n.create<g::ConstantOp>(type, attr)});
}

LogicalResult constantOp(NodeContext &n) {
  if (n.hasAttr("value")) {
    auto t = n.attrTensor("value");
    if (failed(t))
      return failure();
    return n.setOutputs({n.constant(*t)});
  }
  if (n.hasAttr("value_float")) {
    auto type = n.tensorType({}, n.b.getF32Type());
    return n.setOutputs({n.create<g::ConstantOp>(
        type, DenseElementsAttr::get(type, n.attrFloat("value_float", 0)))});
  }
  if (auto *a = n.attr("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    auto type = n.tensorType({(int64_t)v.size()}, n.b.getF32Type());
    return n.setOutputs({n.create<g::ConstantOp>(type, DenseElementsAttr::get(type, ArrayRef<float>(v)))});
  }
  if (n.hasAttr("value_int"))
    return n.setOutputs({i64Constant(n, {}, {n.attrInt("value_int", 0)})});
  if (auto v = n.attrInts("value_ints"))
    return n.setOutputs({i64Constant(n, {(int64_t)v->size()}, *v)});
  return n.error("only tensor, float(s) and int(s) constants are supported");
}

} // namespace

const llvm::StringMap<OpHandler> &kiln::onnx_frontend::onnxOpHandlers() {
  static const llvm::StringMap<OpHandler> handlers = {
      {"Add", binary<g::AddOp>},
      {"Sub", binary<g::SubOp>},
      {"Mul", binary<g::MulOp>},
      {"Div", binary<g::DivOp>},
      {"Pow", binary<g::PowOp>},
      {"Max", variadic<g::MaxOp>},
      {"Min", variadic<g::MinOp>},
      {"Equal", binary<g::EqualOp, true>},
      {"Less", binary<g::LessOp, true>},
      {"LessOrEqual", binary<g::LessOrEqualOp, true>},
      {"Greater", binary<g::GreaterOp, true>},
      {"GreaterOrEqual", binary<g::GreaterOrEqualOp, true>},
      {"And", binary<g::AndOp, true>},
      {"Or", binary<g::OrOp, true>},
      {"Xor", binary<g::XorOp, true>},
      {"Sqrt", unary<g::SqrtOp>},
      {"Reciprocal", unary<g::ReciprocalOp>},
      {"Neg", unary<g::NegOp>},
      {"Abs", unary<g::AbsOp>},
      {"Exp", unary<g::ExpOp>},
      {"Log", unary<g::LogOp>},
      {"Erf", unary<g::ErfOp>},
      {"Tanh", unary<g::TanhOp>},
      {"Sigmoid", unary<g::SigmoidOp>},
      {"Relu", unary<g::ReluOp>},
      {"Sin", unary<g::SinOp>},
      {"Cos", unary<g::CosOp>},
      {"Floor", unary<g::FloorOp>},
      {"Ceil", unary<g::CeilOp>},
      {"Not", unary<g::NotOp>},
      {"IsNaN", isNaN},
      {"Gelu", gelu},
      {"LeakyRelu", leakyRelu},
      {"Clip", clip},
      {"Cast", castOp},
      {"Where", where},
      {"Identity", identity},
      {"ReduceSum", [](NodeContext &n) { return reduce<g::ReduceSumOp>(n, 13); }},
      {"ReduceMean", [](NodeContext &n) { return reduce<g::ReduceMeanOp>(n, 18); }},
      {"ReduceMax", [](NodeContext &n) { return reduce<g::ReduceMaxOp>(n, 18); }},
      {"ReduceMin", [](NodeContext &n) { return reduce<g::ReduceMinOp>(n, 18); }},
      {"ReduceProd", [](NodeContext &n) { return reduce<g::ReduceProdOp>(n, 18); }},
      {"Softmax", softmaxLike<g::SoftmaxOp>},
      {"LogSoftmax", softmaxLike<g::LogSoftmaxOp>},
      {"LayerNormalization", layerNorm},
      {"BatchNormalization", batchNorm},
      {"MatMul", matmul},
      {"Gemm", gemm},
      {"Conv", conv},
      {"MaxPool", pool<g::MaxPoolOp>},
      {"AveragePool", pool<g::AveragePoolOp>},
      {"GlobalAveragePool", globalPool<g::ReduceMeanOp>},
      {"GlobalMaxPool", globalPool<g::ReduceMaxOp>},
      {"Gather", gather},
      {"GatherElements", gatherElements},
      {"GatherND", gatherND},
      {"Reshape", reshape},
      {"Flatten", flatten},
      {"Squeeze", squeeze},
      {"Unsqueeze", unsqueeze},
      {"Transpose", transpose},
      {"Expand", expand},
      {"Concat", concat},
      {"Slice", slice},
      {"Split", split},
      {"Trilu", trilu},
      {"Shape", shapeOp},
      {"Size", sizeOp},
      {"ConstantOfShape", constantOfShape},
      {"Range", range},
      {"Constant", constantOp},
  };
  return handlers;
}
