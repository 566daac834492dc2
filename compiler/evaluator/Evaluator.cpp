//===- Evaluator.cpp - CPU reference evaluator for graph ops --------------===//
#include "compiler/evaluator/Evaluator.h"
#include "compiler/evaluator/HalfBits.h"

#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

using namespace mlir;
namespace graph = kiln::graph;

namespace kiln::eval {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

//===----------------------------------------------------------------------===//
// Index helpers
//===----------------------------------------------------------------------===//

SmallVector<int64_t> stridesFor(ArrayRef<int64_t> shape) {
  std::vector<int64_t> s = stridesOf(shape);
  return SmallVector<int64_t>(s.begin(), s.end());
}

int64_t product(ArrayRef<int64_t> dims) { return numElementsOf(dims); }

/// The lowest and highest values of an integer dtype (castFloatToInt
/// saturates infinities; i1 is 0..1).
int64_t lowestIntOf(DType t) {
  return t == DType::I1 ? 0 : castFloatToInt(t, -kInf);
}
int64_t highestIntOf(DType t) { return castFloatToInt(t, kInf); }

/// Strides that read a tensor of shape `in` broadcast (numpy rules, aligned
/// at the right) to `out`: 0 on broadcast axes.
SmallVector<int64_t> broadcastStrides(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  SmallVector<int64_t> s(out.size(), 0), st = stridesFor(in);
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    s[lead + i] = in[i] == 1 ? 0 : st[i];
  return s;
}

/// Odometer over a row-major index space that keeps one linear offset per
/// stride set current, so strided, permuted and broadcast reads cost a few
/// adds per element instead of a division per axis.
class StridedIndex {
public:
  StridedIndex(ArrayRef<int64_t> shape,
               ArrayRef<SmallVector<int64_t>> strideSets)
      : dims(shape), idx(shape.size(), 0), offs(strideSets.size(), 0) {
    for (const SmallVector<int64_t> &s : strideSets) {
      assert(s.size() == shape.size() && "stride set of the wrong rank");
      strides.append(s.begin(), s.end());
    }
  }
  /// The current multi-index and per-set offsets.
  ArrayRef<int64_t> index() const { return idx; }
  const int64_t *offsets() const { return offs.data(); }
  int64_t operator[](unsigned set) const { return offs[set]; }

  /// Steps to the next index in row-major order (wraps to zero at the end).
  void next() {
    size_t rank = dims.size(), sets = offs.size();
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      for (size_t k = 0; k < sets; ++k)
        offs[k] += strides[k * rank + d];
      if (idx[d] < dims[d])
        return;
      for (size_t k = 0; k < sets; ++k)
        offs[k] -= strides[k * rank + d] * dims[d];
      idx[d] = 0;
    }
  }

private:
  SmallVector<int64_t> dims, idx, offs, strides;
};

/// Calls `fn(i, offsets)` for every linear index `i` of `outShape`, with
/// `offsets[k]` the element of `ins[k]` that broadcasts to it.
template <typename Fn>
void forEachBroadcast(ArrayRef<int64_t> outShape, ArrayRef<const Tensor *> ins,
                      Fn &&fn) {
  int64_t n = product(outShape);
  if (llvm::all_of(ins,
                   [&](const Tensor *t) { return t->shape() == outShape; })) {
    SmallVector<int64_t, 4> offs(ins.size());
    for (int64_t i = 0; i < n; ++i) {
      std::fill(offs.begin(), offs.end(), i);
      fn(i, offs.data());
    }
    return;
  }
  SmallVector<SmallVector<int64_t>> sets;
  for (const Tensor *t : ins)
    sets.push_back(broadcastStrides(t->shape(), outShape));
  StridedIndex it(outShape, sets);
  for (int64_t i = 0; i < n; ++i, it.next())
    fn(i, it.offsets());
}

/// A tensor of `src`'s dtype and `shape` whose element i is
/// `src[srcOffset(i)]`; `srcOffset` is called once per element, in order.
template <typename Fn>
Tensor remap(const Tensor &src, ArrayRef<int64_t> shape, Fn &&srcOffset) {
  Tensor out(src.dtype(), shape);
  int64_t n = out.numElements();
  if (src.isFloat()) {
    const double *s = src.floats().data();
    double *d = out.floats().data();
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[srcOffset(i)];
  } else {
    const int64_t *s = src.ints().data();
    int64_t *d = out.ints().data();
    for (int64_t i = 0; i < n; ++i)
      d[i] = s[srcOffset(i)];
  }
  return out;
}

/// `t` broadcast to `shape` (same dtype).
Tensor broadcastTo(const Tensor &t, ArrayRef<int64_t> shape) {
  if (t.shape() == shape)
    return t;
  SmallVector<SmallVector<int64_t>> sets{broadcastStrides(t.shape(), shape)};
  StridedIndex it(shape, sets);
  return remap(t, shape, [&](int64_t) {
    int64_t o = it[0];
    it.next();
    return o;
  });
}

void copyBlock(const Tensor &src, int64_t srcOff, Tensor &dst, int64_t dstOff,
               int64_t n) {
  if (src.isFloat())
    std::copy_n(src.floats().data() + srcOff, n, dst.floats().data() + dstOff);
  else
    std::copy_n(src.ints().data() + srcOff, n, dst.ints().data() + dstOff);
}

/// Element `j` of integer tensor `idx` as a position in [0, dim); negative
/// values count from the end.
FailureOr<int64_t> normalizeIndex(Operation *op, const Tensor &idx, int64_t j,
                                  int64_t dim, int64_t axis) {
  int64_t v = idx.ints()[j];
  if (idx.isUnsigned()) {
    if (static_cast<uint64_t>(v) < static_cast<uint64_t>(dim))
      return v;
    return op->emitError() << "index " << static_cast<uint64_t>(v)
                           << " (element " << j << " of the indices) is out of "
                           << "range for axis " << axis << " of size " << dim;
  }
  int64_t r = v < 0 ? v + dim : v;
  if (r >= 0 && r < dim)
    return r;
  return op->emitError() << "index " << v << " (element " << j
                         << " of the indices) is out of range for axis " << axis
                         << " of size " << dim;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

enum class Bin {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Eq,
  Lt,
  Le,
  Gt,
  Ge,
  And,
  Or,
  Xor
};

std::optional<Bin> binaryKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Bin>>(op)
      .Case([](graph::AddOp) { return Bin::Add; })
      .Case([](graph::SubOp) { return Bin::Sub; })
      .Case([](graph::MulOp) { return Bin::Mul; })
      .Case([](graph::DivOp) { return Bin::Div; })
      .Case([](graph::MaxOp) { return Bin::Max; })
      .Case([](graph::MinOp) { return Bin::Min; })
      .Case([](graph::PowOp) { return Bin::Pow; })
      .Case([](graph::EqualOp) { return Bin::Eq; })
      .Case([](graph::LessOp) { return Bin::Lt; })
      .Case([](graph::LessOrEqualOp) { return Bin::Le; })
      .Case([](graph::GreaterOp) { return Bin::Gt; })
      .Case([](graph::GreaterOrEqualOp) { return Bin::Ge; })
      .Case([](graph::AndOp) { return Bin::And; })
      .Case([](graph::OrOp) { return Bin::Or; })
      .Case([](graph::XorOp) { return Bin::Xor; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Max/Min propagate NaN, as numpy and the ONNX reference do; comparisons
/// with NaN are false.
double floatBinary(Bin k, double x, double y) {
  switch (k) {
  case Bin::Add:
    return x + y;
  case Bin::Sub:
    return x - y;
  case Bin::Mul:
    return x * y;
  case Bin::Div:
    return x / y;
  case Bin::Max:
    return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y);
  case Bin::Min:
    return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y);
  case Bin::Pow:
    return std::pow(x, y);
  case Bin::Eq:
    return x == y;
  case Bin::Lt:
    return x < y;
  case Bin::Le:
    return x <= y;
  case Bin::Gt:
    return x > y;
  case Bin::Ge:
    return x >= y;
  case Bin::And:
    return x != 0 && y != 0;
  case Bin::Or:
    return x != 0 || y != 0;
  case Bin::Xor:
    return (x != 0) != (y != 0);
  }
  return kNaN;
}

/// Integer power with wrap-around; a negative exponent gives the truncated
/// quotient 1 / base^-e (0 unless |base| == 1).
int64_t intPow(int64_t base, bool baseUnsigned, int64_t e, bool expUnsigned) {
  if (!expUnsigned && e < 0) {
    if (base == 1)
      return 1;
    if (base == -1 && !baseUnsigned)
      return (e & 1) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, b = static_cast<uint64_t>(base),
           ue = static_cast<uint64_t>(e);
  for (; ue; ue >>= 1, b *= b)
    if (ue & 1)
      r *= b;
  return static_cast<int64_t>(r);
}

/// Integer ops on values already wrapped to their dtype; the caller wraps the
/// result. Add/Sub/Mul are done modulo 2^64, which is right for every width
/// and signedness. Division truncates toward zero; dividing by zero gives 0
/// (ONNX leaves it undefined; this keeps the evaluator free of traps).
int64_t intBinary(Bin k, int64_t x, int64_t y, bool uns) {
  uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y);
  switch (k) {
  case Bin::Add:
    return static_cast<int64_t>(ux + uy);
  case Bin::Sub:
    return static_cast<int64_t>(ux - uy);
  case Bin::Mul:
    return static_cast<int64_t>(ux * uy);
  case Bin::Div:
    if (y == 0)
      return 0;
    if (uns)
      return static_cast<int64_t>(ux / uy);
    if (x == std::numeric_limits<int64_t>::min() && y == -1)
      return x;
    return x / y;
  case Bin::Max:
    return (uns ? ux > uy : x > y) ? x : y;
  case Bin::Min:
    return (uns ? ux < uy : x < y) ? x : y;
  case Bin::Pow:
    return intPow(x, uns, y, uns);
  case Bin::Eq:
    return x == y;
  case Bin::Lt:
    return uns ? ux < uy : x < y;
  case Bin::Le:
    return uns ? ux <= uy : x <= y;
  case Bin::Gt:
    return uns ? ux > uy : x > y;
  case Bin::Ge:
    return uns ? ux >= uy : x >= y;
  case Bin::And:
    return x && y;
  case Bin::Or:
    return x || y;
  case Bin::Xor:
    return (x != 0) != (y != 0);
  }
  return 0;
}

Tensor evalBinary(Bin k, const Tensor &a, const Tensor &b, DType outType,
                  ArrayRef<int64_t> outShape) {
  Tensor out(outType, outShape);
  if (k == Bin::Pow) {
    // The exponent may have another type than the base (and the result).
    forEachBroadcast(outShape, {&a, &b}, [&](int64_t i, const int64_t *o) {
      if (a.isFloat())
        out.floats()[i] = std::pow(a.floats()[o[0]], b.getDouble(o[1]));
      else if (b.isFloat())
        out.ints()[i] = castFloatToInt(
            outType, std::pow(a.getDouble(o[0]), b.floats()[o[1]]));
      else
        out.ints()[i] = intPow(a.ints()[o[0]], a.isUnsigned(), b.ints()[o[1]],
                               b.isUnsigned());
    });
  } else if (a.isFloat()) {
    const double *x = a.floats().data(), *y = b.floats().data();
    forEachBroadcast(outShape, {&a, &b}, [&](int64_t i, const int64_t *o) {
      double r = floatBinary(k, x[o[0]], y[o[1]]);
      if (out.isFloat())
        out.floats()[i] = r;
      else
        out.ints()[i] = r != 0;
    });
  } else {
    const int64_t *x = a.ints().data(), *y = b.ints().data();
    bool uns = a.isUnsigned();
    forEachBroadcast(outShape, {&a, &b}, [&](int64_t i, const int64_t *o) {
      out.ints()[i] = intBinary(k, x[o[0]], y[o[1]], uns);
    });
  }
  out.normalize();
  return out;
}

enum class Un {
  Sqrt,
  Reciprocal,
  Exp,
  Log,
  Erf,
  Tanh,
  Sigmoid,
  Sin,
  Cos,
  Floor,
  Ceil,
  Neg,
  Abs,
  Relu
};

std::optional<Un> unaryKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Un>>(op)
      .Case([](graph::SqrtOp) { return Un::Sqrt; })
      .Case([](graph::ReciprocalOp) { return Un::Reciprocal; })
      .Case([](graph::ExpOp) { return Un::Exp; })
      .Case([](graph::LogOp) { return Un::Log; })
      .Case([](graph::ErfOp) { return Un::Erf; })
      .Case([](graph::TanhOp) { return Un::Tanh; })
      .Case([](graph::SigmoidOp) { return Un::Sigmoid; })
      .Case([](graph::SinOp) { return Un::Sin; })
      .Case([](graph::CosOp) { return Un::Cos; })
      .Case([](graph::FloorOp) { return Un::Floor; })
      .Case([](graph::CeilOp) { return Un::Ceil; })
      .Case([](graph::NegOp) { return Un::Neg; })
      .Case([](graph::AbsOp) { return Un::Abs; })
      .Case([](graph::ReluOp) { return Un::Relu; })
      .Default([](Operation *) { return std::nullopt; });
}

double floatUnary(Un k, double x) {
  switch (k) {
  case Un::Sqrt:
    return std::sqrt(x);
  case Un::Reciprocal:
    return 1.0 / x;
  case Un::Exp:
    return std::exp(x);
  case Un::Log:
    return std::log(x);
  case Un::Erf:
    return std::erf(x);
  case Un::Tanh:
    return std::tanh(x);
  case Un::Sigmoid: // Stable on both sides: never exp of a large positive.
    return x >= 0 ? 1.0 / (1.0 + std::exp(-x))
                  : std::exp(x) / (1.0 + std::exp(x));
  case Un::Sin:
    return std::sin(x);
  case Un::Cos:
    return std::cos(x);
  case Un::Floor:
    return std::floor(x);
  case Un::Ceil:
    return std::ceil(x);
  case Un::Neg:
    return -x;
  case Un::Abs:
    return std::fabs(x);
  case Un::Relu:
    return std::isnan(x) ? x : std::max(x, 0.0);
  }
  return kNaN;
}

int64_t intUnary(Un k, int64_t x, bool uns) {
  int64_t neg = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
  switch (k) {
  case Un::Neg:
    return neg;
  case Un::Abs:
    return uns || x >= 0 ? x : neg;
  case Un::Relu:
    return uns || x > 0 ? x : 0;
  default:
    return x; // Float-only ops never reach here (verified).
  }
}

/// Applies a double -> double function to every element of a float tensor.
template <typename Fn> Tensor mapFloats(const Tensor &x, Fn &&fn) {
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    out.floats()[i] = fn(x.floats()[i]);
  out.normalize();
  return out;
}

Tensor evalUnary(Un k, const Tensor &x) {
  if (x.isFloat())
    return mapFloats(x, [k](double v) { return floatUnary(k, v); });
  Tensor out(x.dtype(), x.shape());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    out.ints()[i] = intUnary(k, x.ints()[i], x.isUnsigned());
  out.normalize();
  return out;
}

FailureOr<Tensor> evalGelu(graph::GeluOp op, const Tensor &x) {
  StringRef approx = op.getApproximate();
  if (approx == "none")
    return mapFloats(x, [](double v) {
      return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    });
  if (approx == "tanh") {
    const double c = std::sqrt(2.0 / 3.14159265358979323846);
    return mapFloats(x, [c](double v) {
      return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
    });
  }
  return op.emitError() << "unknown gelu approximation '" << approx
                        << "' (expected \"none\" or \"tanh\")";
}

Tensor evalClip(graph::ClipOp op, const Tensor &x) {
  FloatAttr lo = op.getMinAttr(), hi = op.getMaxAttr();
  DType t = x.dtype();
  if (x.isFloat()) {
    double l = lo ? roundToDType(t, lo.getValueAsDouble()) : -kInf;
    double h = hi ? roundToDType(t, hi.getValueAsDouble()) : kInf;
    // NaN passes through; with min > max everything becomes max (numpy).
    return mapFloats(x, [l, h](double v) {
      return v < l ? (l > h ? h : l) : v > h ? h : v;
    });
  }
  int64_t l = castFloatToInt(t, lo ? lo.getValueAsDouble() : -kInf);
  int64_t h = castFloatToInt(t, hi ? hi.getValueAsDouble() : kInf);
  bool uns = x.isUnsigned();
  auto less = [uns](int64_t a, int64_t b) {
    return uns ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b) : a < b;
  };
  Tensor out(t, x.shape());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t v = x.ints()[i];
    if (less(v, l))
      v = l;
    if (less(h, v))
      v = h;
    out.ints()[i] = v;
  }
  return out;
}

Tensor evalCast(const Tensor &x, DType outType) {
  Tensor out(outType, x.shape());
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    if (x.isFloat()) {
      double v = x.floats()[i];
      if (out.isFloat())
        out.floats()[i] = roundToDType(outType, v);
      else
        out.ints()[i] = castFloatToInt(outType, v);
    } else if (out.isFloat()) {
      out.floats()[i] = roundToDType(outType, x.getDouble(i));
    } else {
      out.ints()[i] = wrapToDType(outType, x.ints()[i]);
    }
  }
  return out;
}

Tensor evalWhere(const Tensor &c, const Tensor &x, const Tensor &y,
                 ArrayRef<int64_t> outShape) {
  Tensor out(x.dtype(), outShape);
  forEachBroadcast(outShape, {&c, &x, &y}, [&](int64_t i, const int64_t *o) {
    bool pick = c.ints()[o[0]] != 0;
    if (out.isFloat())
      out.floats()[i] = pick ? x.floats()[o[1]] : y.floats()[o[2]];
    else
      out.ints()[i] = pick ? x.ints()[o[1]] : y.ints()[o[2]];
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

enum class Red { Sum, Mean, Max, Min, Prod };

std::optional<Red> reduceKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Red>>(op)
      .Case([](graph::ReduceSumOp) { return Red::Sum; })
      .Case([](graph::ReduceMeanOp) { return Red::Mean; })
      .Case([](graph::ReduceMaxOp) { return Red::Max; })
      .Case([](graph::ReduceMinOp) { return Red::Min; })
      .Case([](graph::ReduceProdOp) { return Red::Prod; })
      .Default([](Operation *) { return std::nullopt; });
}

/// Reduction over `axes` (empty: all). Over an empty set, sum is 0, prod 1,
/// max the lowest value (-inf), min the highest, mean NaN (0 for integers).
Tensor evalReduce(Red k, const Tensor &x, ArrayRef<int64_t> axes,
                  ArrayRef<int64_t> outShape) {
  int64_t rank = x.rank();
  SmallVector<int64_t> kept(x.shape());
  for (int64_t d = 0; d < rank; ++d)
    if (axes.empty() || llvm::is_contained(axes, d))
      kept[d] = 1;
  SmallVector<int64_t> map = stridesFor(kept);
  for (int64_t d = 0; d < rank; ++d)
    if (kept[d] == 1)
      map[d] = 0;
  int64_t nIn = x.numElements(), nOut = product(kept);
  int64_t count = nOut == 0 ? 0 : nIn / nOut;
  SmallVector<SmallVector<int64_t>> sets{map};
  StridedIndex it(x.shape(), sets);
  Tensor out(x.dtype(), outShape);

  if (x.isFloat()) {
    double init = k == Red::Prod  ? 1.0
                  : k == Red::Max ? -kInf
                  : k == Red::Min ? kInf
                                  : 0.0;
    std::vector<double> acc(nOut, init);
    const double *in = x.floats().data();
    for (int64_t i = 0; i < nIn; ++i, it.next()) {
      double v = in[i], &a = acc[it[0]];
      switch (k) {
      case Red::Sum:
      case Red::Mean:
        a += v;
        break;
      case Red::Prod:
        a *= v;
        break;
      case Red::Max:
        if (v > a || std::isnan(v))
          a = v;
        break;
      case Red::Min:
        if (v < a || std::isnan(v))
          a = v;
        break;
      }
    }
    if (k == Red::Mean)
      for (double &a : acc)
        a /= static_cast<double>(count);
    out.floats() = std::move(acc);
  } else {
    DType t = x.dtype();
    bool uns = x.isUnsigned();
    int64_t init = k == Red::Prod  ? 1
                   : k == Red::Max ? lowestIntOf(t)
                   : k == Red::Min ? highestIntOf(t)
                                   : 0;
    std::vector<int64_t> acc(nOut, init);
    const int64_t *in = x.ints().data();
    for (int64_t i = 0; i < nIn; ++i, it.next()) {
      int64_t v = in[i], &a = acc[it[0]];
      uint64_t uv = static_cast<uint64_t>(v), ua = static_cast<uint64_t>(a);
      switch (k) {
      case Red::Sum:
      case Red::Mean:
        a = static_cast<int64_t>(ua + uv);
        break;
      case Red::Prod:
        a = static_cast<int64_t>(ua * uv);
        break;
      case Red::Max:
        if (uns ? uv > ua : v > a)
          a = v;
        break;
      case Red::Min:
        if (uns ? uv < ua : v < a)
          a = v;
        break;
      }
    }
    if (k == Red::Mean)
      for (int64_t &a : acc)
        a = count == 0 ? 0
            : uns      ? static_cast<int64_t>(static_cast<uint64_t>(a) / count)
                       : a / count;
    out.ints() = std::move(acc);
  }
  out.normalize();
  return out;
}

/// Softmax or log-softmax along `axis`, shifted by the maximum for stability.
Tensor evalSoftmax(const Tensor &x, int64_t axis, bool log) {
  ArrayRef<int64_t> shape = x.shape();
  int64_t outer = product(shape.take_front(axis)), len = shape[axis];
  int64_t inner = product(shape.drop_front(axis + 1));
  Tensor out(x.dtype(), shape);
  const double *in = x.floats().data();
  double *res = out.floats().data();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t r = 0; r < inner; ++r) {
      int64_t base = o * len * inner + r;
      double m = -kInf;
      for (int64_t j = 0; j < len; ++j)
        m = std::max(m, in[base + j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j)
        sum += std::exp(in[base + j * inner] - m);
      double logSum = std::log(sum);
      for (int64_t j = 0; j < len; ++j) {
        double s = in[base + j * inner] - m;
        res[base + j * inner] = log ? s - logSum : std::exp(s) / sum;
      }
    }
  }
  out.normalize();
  return out;
}

/// Layer norm over axes axis..rank-1 with the population variance.
Tensor evalLayerNorm(graph::LayerNormOp op, const Tensor &x,
                     const Tensor &scale, const Tensor *bias) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  double eps = op.getEpsilonAttr().getValueAsDouble();
  ArrayRef<int64_t> normShape = x.shape().drop_front(axis);
  int64_t norm = product(normShape);
  int64_t rows = norm == 0 ? 0 : x.numElements() / norm;
  Tensor g = broadcastTo(scale, normShape);
  std::optional<Tensor> b;
  if (bias)
    b = broadcastTo(*bias, normShape);
  Tensor out(x.dtype(), x.shape());
  const double *in = x.floats().data();
  double *res = out.floats().data();
  for (int64_t r = 0; r < rows; ++r) {
    const double *row = in + r * norm;
    double mean = 0, var = 0;
    if (!op.getRms()) { // RMSNorm: the mean square about zero
      for (int64_t j = 0; j < norm; ++j)
        mean += row[j];
      mean /= static_cast<double>(norm);
    }
    for (int64_t j = 0; j < norm; ++j)
      var += (row[j] - mean) * (row[j] - mean);
    var /= static_cast<double>(norm);
    double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < norm; ++j)
      res[r * norm + j] =
          (row[j] - mean) * inv * g.getDouble(j) + (b ? b->getDouble(j) : 0.0);
  }
  out.normalize();
  return out;
}

Tensor evalBatchNorm(graph::BatchNormOp op, ArrayRef<Tensor> in) {
  const Tensor &x = in[0], &scale = in[1], &bias = in[2], &mean = in[3],
               &var = in[4];
  double eps = op.getEpsilonAttr().getValueAsDouble();
  int64_t n = x.dim(0), c = x.dim(1), inner = product(x.shape().drop_front(2));
  Tensor out(x.dtype(), x.shape());
  const double *src = x.floats().data();
  double *res = out.floats().data();
  for (int64_t ch = 0; ch < c; ++ch) {
    double m = mean.getDouble(ch), s = scale.getDouble(ch),
           b = bias.getDouble(ch);
    double inv = 1.0 / std::sqrt(var.getDouble(ch) + eps);
    for (int64_t b0 = 0; b0 < n; ++b0) {
      int64_t base = (b0 * c + ch) * inner;
      for (int64_t i = 0; i < inner; ++i)
        res[base + i] = (src[base + i] - m) * inv * s + b;
    }
  }
  out.normalize();
  return out;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// c[m][n] = sum_k a[m][k] * bt[n][k]: both operands contiguous along k.
/// Integers accumulate modulo 2^64 (T = int64_t, Acc = uint64_t).
template <typename T, typename Acc>
void dotKernel(const T *a, const T *bt, T *c, int64_t m, int64_t n, int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    const T *ar = a + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const T *br = bt + j * k;
      Acc acc = 0;
      for (int64_t p = 0; p < k; ++p)
        acc += static_cast<Acc>(ar[p]) * static_cast<Acc>(br[p]);
      c[i * n + j] = static_cast<T>(acc);
    }
  }
}

template <typename T> std::vector<T> &storage(Tensor &t) {
  if constexpr (std::is_same_v<T, double>)
    return t.floats();
  else
    return t.ints();
}
template <typename T> const std::vector<T> &storage(const Tensor &t) {
  if constexpr (std::is_same_v<T, double>)
    return t.floats();
  else
    return t.ints();
}

template <typename T, typename Acc>
void matmulImpl(const Tensor &a, const Tensor &b, Tensor &out,
                ArrayRef<int64_t> batch,
                ArrayRef<SmallVector<int64_t>> strideSets, int64_t m, int64_t n,
                int64_t k) {
  const T *pa = storage<T>(a).data(), *pb = storage<T>(b).data();
  T *pc = storage<T>(out).data();
  std::vector<T> bt(n * k);
  int64_t packed = -1;
  StridedIndex it(batch, strideSets);
  for (int64_t bi = 0, nb = product(batch); bi < nb; ++bi, it.next()) {
    if (it[1] != packed) { // Transpose this batch's B once for a contiguous k.
      const T *src = pb + it[1];
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j)
          bt[j * k + p] = src[p * n + j];
      packed = it[1];
    }
    dotKernel<T, Acc>(pa + it[0], bt.data(), pc + bi * m * n, m, n, k);
  }
}

/// `t` (f32) with every element rounded to tf32: the operands of a matmul or
/// gemm marked `tf32`. tf32 products are exact in f32, and the sum is taken
/// in double and rounded once, as every float op here (the GPU's f32 sums
/// differ only in order).
Tensor roundedToTF32(const Tensor &t) {
  Tensor r = t;
  for (double &v : r.floats())
    v = roundToTF32(static_cast<float>(v));
  return r;
}

Tensor evalMatMul(const Tensor &a, const Tensor &b,
                  ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> as(a.shape()), bs(b.shape());
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
  ArrayRef<int64_t> aBatch = ArrayRef<int64_t>(as).drop_back(2);
  ArrayRef<int64_t> bBatch = ArrayRef<int64_t>(bs).drop_back(2);
  SmallVector<int64_t> batch = *graph::broadcastShapes(aBatch, bBatch);
  SmallVector<SmallVector<int64_t>> sets{broadcastStrides(aBatch, batch),
                                         broadcastStrides(bBatch, batch)};
  for (int64_t &s : sets[0])
    s *= m * k;
  for (int64_t &s : sets[1])
    s *= k * n;
  Tensor out(a.dtype(), outShape);
  if (a.isFloat())
    matmulImpl<double, double>(a, b, out, batch, sets, m, n, k);
  else
    matmulImpl<int64_t, uint64_t>(a, b, out, batch, sets, m, n, k);
  out.normalize();
  return out;
}

template <typename T, typename Acc>
std::vector<T> gemmProduct(const Tensor &a, const Tensor &b, bool transA,
                           bool transB, int64_t m, int64_t n, int64_t k) {
  const std::vector<T> &pa = storage<T>(a), &pb = storage<T>(b);
  std::vector<T> ap(m * k), bt(n * k), c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      ap[i * k + p] = transA ? pa[p * m + i] : pa[i * k + p];
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p)
      bt[j * k + p] = transB ? pb[j * k + p] : pb[p * n + j];
  dotKernel<T, Acc>(ap.data(), bt.data(), c.data(), m, n, k);
  return c;
}

Tensor evalGemm(graph::GemmOp op, const Tensor &a, const Tensor &b,
                const Tensor *c, ArrayRef<int64_t> outShape) {
  bool ta = op.getTransA(), tb = op.getTransB();
  int64_t m = outShape[0], n = outShape[1];
  int64_t k = ta ? a.dim(0) : a.dim(1);
  double alpha = op.getAlphaAttr().getValueAsDouble();
  double beta = op.getBetaAttr().getValueAsDouble();
  std::optional<Tensor> cb;
  if (c)
    cb = broadcastTo(*c, outShape);
  Tensor out(a.dtype(), outShape);
  if (a.isFloat()) {
    std::vector<double> p = gemmProduct<double, double>(a, b, ta, tb, m, n, k);
    for (int64_t i = 0; i < m * n; ++i)
      out.floats()[i] = alpha * p[i] + (cb ? beta * cb->getDouble(i) : 0.0);
  } else {
    std::vector<int64_t> p =
        gemmProduct<int64_t, uint64_t>(a, b, ta, tb, m, n, k);
    bool exact = alpha == 1.0 && (beta == 1.0 || !cb);
    for (int64_t i = 0; i < m * n; ++i) {
      if (exact)
        out.ints()[i] = static_cast<int64_t>(
            static_cast<uint64_t>(p[i]) +
            (cb ? static_cast<uint64_t>(cb->getInt(i)) : 0));
      else
        out.ints()[i] =
            castFloatToInt(a.dtype(), alpha * static_cast<double>(p[i]) +
                                          (cb ? beta * cb->getDouble(i) : 0.0));
    }
  }
  out.normalize();
  return out;
}

/// Offsets of every kernel tap (dilation applied) per spatial axis:
/// taps[t * rank + d].
SmallVector<int64_t> kernelTaps(ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> dilations) {
  int64_t rank = kernel.size(), count = product(kernel);
  SmallVector<int64_t> taps(count * rank);
  StridedIndex it(kernel, {});
  for (int64_t t = 0; t < count; ++t, it.next())
    for (int64_t d = 0; d < rank; ++d)
      taps[t * rank + d] = it.index()[d] * dilations[d];
  return taps;
}

/// Grouped N-d convolution through im2col: for each image and group the
/// windows become rows of a matrix, so every output is one contiguous dot
/// product with a filter.
Tensor evalConv(graph::ConvOp op, const Tensor &x, const Tensor &w,
                const Tensor *bias, ArrayRef<int64_t> outShape) {
  int64_t nsp = x.rank() - 2, batch = x.dim(0), cIn = x.dim(1), cOut = w.dim(0);
  int64_t groups = static_cast<int64_t>(op.getGroup());
  int64_t cg = cIn / groups, mg = cOut / groups;
  ArrayRef<int64_t> inSp = x.shape().drop_front(2),
                    kSp = w.shape().drop_front(2);
  ArrayRef<int64_t> outSp = outShape.drop_front(2);
  ArrayRef<int64_t> strides = op.getStrides(), pads = op.getPads();
  SmallVector<int64_t> taps = kernelTaps(kSp, op.getDilations());
  SmallVector<int64_t> inStr = stridesFor(inSp);
  int64_t kCount = product(kSp), inSize = product(inSp),
          outSize = product(outSp);
  int64_t row = cg * kCount;
  std::vector<double> col(outSize * row);
  std::vector<int64_t> tapOff(kCount);
  Tensor out(x.dtype(), outShape);
  const double *px = x.floats().data(), *pw = w.floats().data();
  double *po = out.floats().data();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      StridedIndex pos(outSp, {});
      for (int64_t p = 0; p < outSize; ++p, pos.next()) {
        for (int64_t t = 0; t < kCount; ++t) {
          int64_t off = 0;
          for (int64_t d = 0; d < nsp && off >= 0; ++d) {
            int64_t i =
                pos.index()[d] * strides[d] - pads[d] + taps[t * nsp + d];
            off = i < 0 || i >= inSp[d] ? -1 : off + i * inStr[d];
          }
          tapOff[t] = off;
        }
        for (int64_t c = 0; c < cg; ++c) {
          const double *xc = px + (b * cIn + g * cg + c) * inSize;
          double *dst = col.data() + p * row + c * kCount;
          for (int64_t t = 0; t < kCount; ++t)
            dst[t] = tapOff[t] < 0 ? 0.0 : xc[tapOff[t]];
        }
      }
      for (int64_t j = 0; j < mg; ++j) {
        int64_t oc = g * mg + j;
        double bv = bias ? bias->getDouble(oc) : 0.0;
        dotKernel<double, double>(pw + oc * row, col.data(),
                                  po + (b * cOut + oc) * outSize, 1, outSize,
                                  row);
        for (int64_t p = 0; p < outSize; ++p)
          po[(b * cOut + oc) * outSize + p] += bv;
      }
    }
  }
  out.normalize();
  return out;
}

/// Max or average pooling. Padded taps never contribute; the average divides
/// by the taps inside the input, or inside input plus pads with
/// count_include_pad (taps past the end pad, possible in ceil mode, never
/// count). A window with nothing to average gives NaN; max pooling of a
/// window without input taps gives the dtype's lowest value. Max pooling
/// also takes integers.
Tensor evalPool(Operation *op, bool isMax, const Tensor &x,
                ArrayRef<int64_t> outShape) {
  auto kernel =
      op->getAttrOfType<DenseI64ArrayAttr>("kernel_shape").asArrayRef();
  auto strides = op->getAttrOfType<DenseI64ArrayAttr>("strides").asArrayRef();
  auto pads = op->getAttrOfType<DenseI64ArrayAttr>("pads").asArrayRef();
  auto dil = op->getAttrOfType<DenseI64ArrayAttr>("dilations").asArrayRef();
  auto cip = op->getAttrOfType<BoolAttr>("count_include_pad");
  bool includePad = cip && cip.getValue();
  int64_t nsp = x.rank() - 2, planes = x.dim(0) * x.dim(1);
  ArrayRef<int64_t> inSp = x.shape().drop_front(2),
                    outSp = outShape.drop_front(2);
  SmallVector<int64_t> taps = kernelTaps(kernel, dil), inStr = stridesFor(inSp);
  int64_t kCount = product(kernel), inSize = product(inSp),
          outSize = product(outSp);
  bool uns = x.isUnsigned();
  int64_t lowest = x.isFloat() ? 0 : lowestIntOf(x.dtype());
  Tensor out(x.dtype(), outShape);
  SmallVector<int64_t> offs; // Window taps inside the input, as plane offsets.
  for (int64_t pl = 0; pl < planes; ++pl) {
    StridedIndex pos(outSp, {});
    for (int64_t p = 0; p < outSize; ++p, pos.next()) {
      offs.clear();
      int64_t padded = 0;
      for (int64_t t = 0; t < kCount; ++t) {
        bool in = true, inPads = true;
        int64_t off = 0;
        for (int64_t d = 0; d < nsp; ++d) {
          int64_t i = pos.index()[d] * strides[d] - pads[d] + taps[t * nsp + d];
          in = in && i >= 0 && i < inSp[d];
          inPads = inPads && i >= -pads[d] && i < inSp[d] + pads[d + nsp];
          off += i * inStr[d];
        }
        padded += inPads;
        if (in)
          offs.push_back(pl * inSize + off);
      }
      int64_t o = pl * outSize + p;
      if (!x.isFloat()) {
        int64_t best = lowest;
        for (int64_t off : offs) {
          int64_t v = x.ints()[off];
          if (uns ? static_cast<uint64_t>(v) > static_cast<uint64_t>(best)
                  : v > best)
            best = v;
        }
        out.ints()[o] = best;
        continue;
      }
      double best = -kInf, sum = 0;
      for (int64_t off : offs) {
        double v = x.floats()[off];
        if (v > best || std::isnan(v))
          best = v;
        sum += v;
      }
      int64_t div = includePad ? padded : static_cast<int64_t>(offs.size());
      out.floats()[o] = isMax ? best
                        : div ? sum / static_cast<double>(div)
                              : kNaN;
    }
  }
  out.normalize();
  return out;
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

FailureOr<Tensor> evalGather(Operation *op, const Tensor &data,
                             const Tensor &idx, int64_t axis,
                             ArrayRef<int64_t> outShape) {
  int64_t dim = data.dim(axis), outer = product(data.shape().take_front(axis));
  int64_t inner = product(data.shape().drop_front(axis + 1));
  int64_t count = idx.numElements();
  std::vector<int64_t> pos(count);
  for (int64_t j = 0; j < count; ++j) {
    FailureOr<int64_t> p = normalizeIndex(op, idx, j, dim, axis);
    if (failed(p))
      return failure();
    pos[j] = *p;
  }
  Tensor out(data.dtype(), outShape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j)
      copyBlock(data, (o * dim + pos[j]) * inner, out, (o * count + j) * inner,
                inner);
  return out;
}

FailureOr<Tensor> evalGatherElements(Operation *op, const Tensor &data,
                                     const Tensor &idx, int64_t axis) {
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != axis && idx.dim(d) > data.dim(d))
      return op->emitError()
             << "indices dimension " << d << " (" << idx.dim(d)
             << ") exceeds the data dimension (" << data.dim(d) << ")";
  int64_t count = idx.numElements(), dim = data.dim(axis);
  std::vector<int64_t> pos(count);
  for (int64_t j = 0; j < count; ++j) {
    FailureOr<int64_t> p = normalizeIndex(op, idx, j, dim, axis);
    if (failed(p))
      return failure();
    pos[j] = *p;
  }
  SmallVector<int64_t> dataStr = stridesFor(data.shape());
  SmallVector<SmallVector<int64_t>> sets{dataStr};
  int64_t axisStride = dataStr[axis];
  sets[0][axis] = 0;
  StridedIndex it(idx.shape(), sets);
  return remap(data, idx.shape(), [&](int64_t i) {
    int64_t o = it[0] + pos[i] * axisStride;
    it.next();
    return o;
  });
}

/// GatherND: each k-tuple of `idx` (after `batchDims` shared leading axes)
/// addresses a slice of `data`.
FailureOr<Tensor> evalGatherND(Operation *op, const Tensor &data,
                               const Tensor &idx, int64_t batchDims,
                               ArrayRef<int64_t> outShape) {
  int64_t k = idx.dim(idx.rank() - 1);
  int64_t batches = product(data.shape().take_front(batchDims));
  int64_t tuples = idx.numElements() / std::max<int64_t>(k, 1) / std::max<int64_t>(batches, 1);
  int64_t slice = product(data.shape().drop_front(batchDims + k));
  SmallVector<int64_t> dataStr = stridesFor(data.shape());
  int64_t batchStride = batchDims ? dataStr[batchDims - 1] : 0;
  std::vector<int64_t> base(batches * tuples);
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t t = 0; t < tuples; ++t) {
      int64_t off = bi * batchStride, row = (bi * tuples + t) * k;
      for (int64_t j = 0; j < k; ++j) {
        FailureOr<int64_t> p =
            normalizeIndex(op, idx, row + j, data.dim(batchDims + j), batchDims + j);
        if (failed(p))
          return failure();
        off += *p * dataStr[batchDims + j];
      }
      base[bi * tuples + t] = off;
    }
  return remap(data, outShape, [&](int64_t i) {
    return base[i / std::max<int64_t>(slice, 1)] + i % std::max<int64_t>(slice, 1);
  });
}

Tensor evalTranspose(const Tensor &x, ArrayRef<int64_t> perm,
                     ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> inStr = stridesFor(x.shape());
  SmallVector<SmallVector<int64_t>> sets(1);
  for (int64_t p : perm)
    sets[0].push_back(inStr[p]);
  StridedIndex it(outShape, sets);
  return remap(x, outShape, [&](int64_t) {
    int64_t o = it[0];
    it.next();
    return o;
  });
}

Tensor evalConcat(ArrayRef<Tensor> ins, int64_t axis,
                  ArrayRef<int64_t> outShape) {
  int64_t outer = product(outShape.take_front(axis));
  int64_t inner = product(outShape.drop_front(axis + 1));
  int64_t outChunk = outShape[axis] * inner, at = 0;
  Tensor out(ins[0].dtype(), outShape);
  for (const Tensor &t : ins) {
    int64_t chunk = t.dim(axis) * inner;
    for (int64_t o = 0; o < outer; ++o)
      copyBlock(t, o * chunk, out, o * outChunk + at, chunk);
    at += chunk;
  }
  return out;
}

Tensor evalSlice(const Tensor &x, ArrayRef<int64_t> starts,
                 ArrayRef<int64_t> steps, ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> inStr = stridesFor(x.shape());
  SmallVector<SmallVector<int64_t>> sets(1);
  int64_t base = 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    sets[0].push_back(inStr[d] * steps[d]);
    base += starts[d] * inStr[d];
  }
  StridedIndex it(outShape, sets);
  return remap(x, outShape, [&](int64_t) {
    int64_t o = base + it[0];
    it.next();
    return o;
  });
}

Tensor evalTrilu(const Tensor &x, int64_t k, bool upper) {
  Tensor out = x;
  int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    int64_t r = (i / cols) % rows, c = i % cols;
    if (upper ? c - r >= k : c - r <= k)
      continue;
    if (out.isFloat())
      out.floats()[i] = 0.0;
    else
      out.ints()[i] = 0;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// graph.attention as the unfused ops it replaces (each step rounded to the
/// element type), so a raised function evaluates bit for bit as before.
Tensor evalAttention(graph::AttentionOp op, ArrayRef<Tensor> in,
                     ArrayRef<int64_t> outShape) {
  auto permuted = [](const Tensor &t, ArrayRef<int64_t> perm) {
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(t.shape()[p]);
    return evalTranspose(t, perm, shape);
  };
  // Heads offset..offset+count of a canonical operand (axis 1).
  auto heads = [](Tensor t, std::optional<ArrayRef<int64_t>> range,
                  int64_t axis) {
    if (!range)
      return t;
    SmallVector<int64_t> starts(t.rank(), 0), steps(t.rank(), 1),
        shape(t.shape().begin(), t.shape().end());
    starts[axis] = (*range)[0];
    shape[axis] = (*range)[1];
    return evalSlice(t, starts, steps, shape);
  };
  Tensor q = heads(permuted(in[0], op.getQPerm()), op.getQHeads(), 1);
  Tensor v = heads(permuted(in[2], op.getVPerm()), op.getVHeads(), 1);
  // K^T: the canonical K with its last two axes swapped.
  SmallVector<int64_t> kt(op.getKPerm());
  std::swap(kt[kt.size() - 1], kt[kt.size() - 2]);
  Tensor k = heads(permuted(in[1], kt), op.getKHeads(), 1);
  // Grouped-query attention: each KV head repeated q_per_kv times in a row
  // (axis 1), as repeat_kv's Expand/Reshape wrote it.
  if (IntegerAttr g = op.getQPerKvAttr()) {
    auto repeatHeads = [group = g.getInt()](const Tensor &t) {
      SmallVector<int64_t> shape(t.shape().begin(), t.shape().end());
      const int64_t heads = shape[1], inner = shape[2] * shape[3];
      shape[1] *= group;
      return remap(t, shape, [&](int64_t i) {
        const int64_t h = (i / inner) % (heads * group);
        return (i / (inner * heads * group)) * heads * inner +
               (h / group) * inner + i % inner;
      });
    };
    k = repeatHeads(k);
    v = repeatHeads(v);
  }
  const int64_t rank = q.rank();
  SmallVector<int64_t> scoresShape(q.shape().begin(), q.shape().end() - 1);
  scoresShape.push_back(k.shape().back());
  const DType t = q.dtype();
  Tensor s = evalMatMul(q, k, scoresShape);
  if (FloatAttr scale = op.getScaleAttr()) {
    Tensor c(t, {});
    c.setDouble(0, scale.getValueAsDouble());
    c.normalize();
    s = evalBinary(op.getScaleDivides() ? Bin::Div : Bin::Mul, s, c, t,
                   scoresShape);
  }
  // Causal: key j > query i is -inf (Sq == Sk, verified), or with
  // causal_fill F the scaled score + F, F taking the bias's place there.
  std::optional<Tensor> filled;
  if (FloatAttr fill = op.getCausalFillAttr()) {
    Tensor c(t, {});
    c.setDouble(0, fill.getValueAsDouble());
    c.normalize();
    filled = evalBinary(Bin::Add, s, c, t, scoresShape);
  }
  if (in.size() > 3)
    s = evalBinary(Bin::Add, s, in[3], t, scoresShape);
  if (op.getCausal()) {
    const int64_t sq = scoresShape[rank - 2], sk = scoresShape[rank - 1];
    for (int64_t i = 0, n = s.numElements(); i < n; ++i)
      if (i % sk > (i / sk) % sq)
        s.floats()[i] = filled ? filled->floats()[i]
                               : -std::numeric_limits<double>::infinity();
  }
  if (op.getSoftmaxF32())
    s = evalCast(evalSoftmax(evalCast(s, DType::F32), rank - 1, false), t);
  else
    s = evalSoftmax(s, rank - 1, false);
  if (op.getNanToZero())
    for (int64_t i = 0, n = s.numElements(); i < n; ++i)
      if (std::isnan(s.floats()[i]))
        s.floats()[i] = 0.0;
  SmallVector<int64_t> canonOut(scoresShape.begin(), scoresShape.end() - 1);
  canonOut.push_back(v.shape().back());
  Tensor o = evalMatMul(s, v, canonOut);
  return evalTranspose(o, op.getOutPerm(), outShape);
}

FailureOr<Tensor> evalGraphOp(Operation *op, ArrayRef<Tensor> in, DType outType,
                              ArrayRef<int64_t> outShape) {
  if (auto k = binaryKind(op))
    return evalBinary(*k, in[0], in[1], outType, outShape);
  if (auto k = unaryKind(op))
    return evalUnary(*k, in[0]);
  if (auto k = reduceKind(op))
    return evalReduce(*k, in[0],
                      op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef(),
                      outShape);
  auto axisOf = [op] {
    return static_cast<int64_t>(
        op->getAttrOfType<IntegerAttr>("axis").getInt());
  };
  using Result = FailureOr<Tensor>;
  return llvm::TypeSwitch<Operation *, Result>(op)
      .Case([&](graph::ConstantOp c) -> Result {
        FailureOr<Tensor> t = tensorFromAttr(c.getValue());
        if (failed(t))
          return c.emitError()
                 << "cannot read the constant's value (unsupported "
                    "attribute kind or missing resource blob)";
        return t;
      })
      .Case([&](graph::GeluOp g) { return evalGelu(g, in[0]); })
      .Case([&](graph::LeakyReluOp l) -> Result {
        double alpha = l.getAlphaAttr().getValueAsDouble();
        return mapFloats(in[0],
                         [alpha](double v) { return v >= 0 ? v : alpha * v; });
      })
      .Case([&](graph::ClipOp c) -> Result { return evalClip(c, in[0]); })
      .Case([&](graph::NotOp) -> Result {
        Tensor out(DType::I1, outShape);
        for (int64_t i = 0, n = out.numElements(); i < n; ++i)
          out.ints()[i] = in[0].ints()[i] == 0;
        return out;
      })
      .Case([&](graph::IsNaNOp) -> Result {
        Tensor out(DType::I1, outShape);
        for (int64_t i = 0, n = out.numElements(); i < n; ++i)
          out.ints()[i] = std::isnan(in[0].floats()[i]);
        return out;
      })
      .Case([&](graph::CastOp) -> Result { return evalCast(in[0], outType); })
      .Case([&](graph::WhereOp) -> Result {
        return evalWhere(in[0], in[1], in[2], outShape);
      })
      .Case([&](graph::SoftmaxOp) -> Result {
        return evalSoftmax(in[0], axisOf(), false);
      })
      .Case([&](graph::LogSoftmaxOp) -> Result {
        return evalSoftmax(in[0], axisOf(), true);
      })
      .Case([&](graph::AttentionOp a) -> Result {
        return evalAttention(a, in, outShape);
      })
      .Case([&](graph::LayerNormOp l) -> Result {
        return evalLayerNorm(l, in[0], in[1], in.size() > 2 ? &in[2] : nullptr);
      })
      .Case(
          [&](graph::BatchNormOp b) -> Result { return evalBatchNorm(b, in); })
      .Case([&](graph::MatMulOp m) -> Result {
        if (m.getTf32())
          return evalMatMul(roundedToTF32(in[0]), roundedToTF32(in[1]),
                            outShape);
        return evalMatMul(in[0], in[1], outShape);
      })
      .Case([&](graph::GemmOp g) -> Result {
        if (g.getTf32())
          return evalGemm(g, roundedToTF32(in[0]), roundedToTF32(in[1]),
                          in.size() > 2 ? &in[2] : nullptr, outShape);
        return evalGemm(g, in[0], in[1], in.size() > 2 ? &in[2] : nullptr,
                        outShape);
      })
      .Case([&](graph::ConvOp c) -> Result {
        return evalConv(c, in[0], in[1], in.size() > 2 ? &in[2] : nullptr,
                        outShape);
      })
      .Case([&](graph::MaxPoolOp) -> Result {
        return evalPool(op, true, in[0], outShape);
      })
      .Case([&](graph::AveragePoolOp) -> Result {
        return evalPool(op, false, in[0], outShape);
      })
      .Case([&](graph::GatherOp) {
        return evalGather(op, in[0], in[1], axisOf(), outShape);
      })
      .Case([&](graph::GatherElementsOp) {
        return evalGatherElements(op, in[0], in[1], axisOf());
      })
      .Case([&](graph::GatherNDOp g) -> Result {
        return evalGatherND(op, in[0], in[1], g.getBatchDims(), outShape);
      })
      .Case(
          [&](graph::ReshapeOp) -> Result { return in[0].reshaped(outShape); })
      .Case([&](graph::TransposeOp t) -> Result {
        return evalTranspose(in[0], t.getPerm(), outShape);
      })
      .Case([&](graph::ExpandOp) -> Result {
        return broadcastTo(in[0], outShape);
      })
      .Case([&](graph::ConcatOp) -> Result {
        return evalConcat(in, axisOf(), outShape);
      })
      .Case([&](graph::SliceOp s) -> Result {
        return evalSlice(in[0], s.getStarts(), s.getSteps(), outShape);
      })
      .Case([&](graph::TriluOp t) -> Result {
        return evalTrilu(in[0], static_cast<int64_t>(t.getK()), t.getUpper());
      })
      .Default([&](Operation *) -> Result {
        return op->emitError()
               << "internal error: no evaluator for '" << op->getName() << "'";
      });
}

/// Checks that `t` has the dtype and shape of `type`.
LogicalResult checkTensorType(Operation *op, const Tensor &t, Type type,
                              const llvm::Twine &what) {
  auto rt = dyn_cast<RankedTensorType>(type);
  if (!rt || !rt.hasStaticShape())
    return op->emitError() << what << " has type " << type
                           << "; the evaluator needs a static ranked tensor";
  FailureOr<DType> dt = dtypeFromMlir(rt.getElementType());
  if (failed(dt))
    return op->emitError() << what << " has element type "
                           << rt.getElementType()
                           << ", which the evaluator does not support";
  if (*dt != t.dtype() || rt.getShape() != t.shape())
    return op->emitError() << what << " must be a "
                           << describe(*dt, rt.getShape()) << " tensor, got "
                           << describe(t.dtype(), t.shape());
  return success();
}

} // namespace

bool canEvaluate(Operation *op) {
  if (auto f = dyn_cast<graph::FusionOp>(op))
    return llvm::all_of(f.getBody().front().without_terminator(),
                        [](Operation &o) { return canEvaluate(&o); });
  return isa<
      graph::ConstantOp, graph::SqrtOp, graph::ReciprocalOp, graph::ExpOp,
      graph::LogOp, graph::ErfOp, graph::TanhOp, graph::SigmoidOp, graph::SinOp,
      graph::CosOp, graph::FloorOp, graph::CeilOp, graph::NegOp, graph::AbsOp,
      graph::ReluOp, graph::GeluOp, graph::LeakyReluOp, graph::ClipOp,
      graph::NotOp, graph::IsNaNOp, graph::CastOp, graph::AddOp, graph::SubOp,
      graph::MulOp, graph::DivOp, graph::MaxOp, graph::MinOp, graph::PowOp,
      graph::EqualOp, graph::LessOp, graph::LessOrEqualOp, graph::GreaterOp,
      graph::GreaterOrEqualOp, graph::AndOp, graph::OrOp, graph::XorOp,
      graph::WhereOp, graph::ReduceSumOp, graph::ReduceMeanOp,
      graph::ReduceMaxOp, graph::ReduceMinOp, graph::ReduceProdOp,
      graph::SoftmaxOp, graph::LogSoftmaxOp, graph::LayerNormOp,
      graph::AttentionOp, graph::BatchNormOp, graph::MatMulOp, graph::GemmOp, graph::ConvOp,
      graph::MaxPoolOp, graph::AveragePoolOp, graph::GatherOp,
      graph::GatherElementsOp, graph::GatherNDOp, graph::ReshapeOp, graph::TransposeOp,
      graph::ExpandOp, graph::ConcatOp, graph::SliceOp, graph::TriluOp>(op);
}

static FailureOr<std::vector<Tensor>>
evaluateBlock(Operation *owner, Block &body, ArrayRef<Tensor> inputs);

FailureOr<SmallVector<Tensor>> evaluateOp(Operation *op,
                                          ArrayRef<Tensor> operands) {
  if (!canEvaluate(op))
    return op->emitError() << "the reference evaluator does not support '"
                           << op->getName() << "'";
  // The evaluators below rely on the verified shape invariants.
  if (failed(mlir::verify(op, /*verifyRecursively=*/false)))
    return failure();
  if (operands.size() != op->getNumOperands())
    return op->emitError() << "evaluator got " << operands.size()
                           << " tensors for " << op->getNumOperands()
                           << " operands";
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(checkTensorType(op, operands[i], v.getType(),
                               "operand #" + llvm::Twine(i))))
      return failure();
  if (auto fusion = dyn_cast<graph::FusionOp>(op)) {
    FailureOr<std::vector<Tensor>> r =
        evaluateBlock(op, fusion.getBody().front(), operands);
    if (failed(r))
      return failure();
    return SmallVector<Tensor>(std::make_move_iterator(r->begin()),
                               std::make_move_iterator(r->end()));
  }
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  FailureOr<DType> outType =
      rt ? dtypeFromMlir(rt.getElementType()) : FailureOr<DType>(failure());
  if (failed(outType))
    return op->emitError() << "result type " << op->getResult(0).getType()
                           << " is not supported by the evaluator";
  FailureOr<Tensor> r = evalGraphOp(op, operands, *outType, rt.getShape());
  if (failed(r))
    return failure();
  if (failed(
          checkTensorType(op, *r, rt, "internal error: the evaluated result")))
    return failure();
  SmallVector<Tensor> results;
  results.push_back(std::move(*r));
  return results;
}

/// Evaluates the ops of `body` (a function body or a fusion region) on
/// `inputs` for its arguments and returns what its terminator (func.return or
/// graph.yield) names.
static FailureOr<std::vector<Tensor>>
evaluateBlock(Operation *owner, Block &body, ArrayRef<Tensor> inputs) {
  // Remaining uses per value, so a tensor moves into its last user and is
  // freed then instead of living to the end.
  llvm::DenseMap<Value, unsigned> usesLeft;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      ++usesLeft[v];
  llvm::DenseMap<Value, Tensor> env;
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    env[arg] = inputs[i];

  auto take = [&](Value v) -> Tensor {
    auto it = env.find(v);
    if (--usesLeft[v] > 0)
      return it->second;
    Tensor t = std::move(it->second);
    env.erase(it);
    return t;
  };

  for (Operation &op : body) {
    SmallVector<Tensor> args;
    for (Value v : op.getOperands()) {
      if (!env.count(v))
        return op.emitError()
               << "operand is not defined inside the evaluated body";
      args.push_back(take(v));
    }
    if (isa<func::ReturnOp, graph::YieldOp>(op))
      return std::vector<Tensor>(std::make_move_iterator(args.begin()),
                                 std::make_move_iterator(args.end()));
    FailureOr<SmallVector<Tensor>> results = evaluateOp(&op, args);
    if (failed(results))
      return failure();
    for (auto [r, t] : llvm::zip(op.getResults(), *results))
      if (!r.use_empty())
        env[r] = std::move(t);
  }
  return owner->emitError() << "the evaluated body does not end in a "
                               "terminator";
}

FailureOr<std::vector<Tensor>> evaluateFunction(func::FuncOp fn,
                                                ArrayRef<Tensor> inputs) {
  if (fn.isExternal())
    return fn.emitError() << "cannot evaluate the external function @"
                          << fn.getSymName();
  if (!llvm::hasSingleElement(fn.getBody()))
    return fn.emitError() << "can only evaluate a function with one block";
  Block &body = fn.getBody().front();
  if (inputs.size() != body.getNumArguments())
    return fn.emitError() << "@" << fn.getSymName() << " takes "
                          << body.getNumArguments() << " inputs, got "
                          << inputs.size();
  for (auto [i, arg] : llvm::enumerate(body.getArguments()))
    if (failed(checkTensorType(fn, inputs[i], arg.getType(),
                               "input #" + llvm::Twine(i))))
      return failure();

  return evaluateBlock(fn, body, inputs);
}

} // namespace kiln::eval
