//===- RaiseGelu.cpp - Written-out GELU into one graph.gelu (kiln-raise-gelu) -===//
//
// Exporters write GELU out of elementwise ops:
//   erf form (BERT):   x * 0.5 * (1 + erf(x / sqrt(2)))
//   tanh form (GPT-2): 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
// with the 0.5 on either side, x / sqrt(2) as x * (1/sqrt(2)), x^3 as
// Pow(x, 3) or x * x * x, and every commutative op in either order. Each step
// is then rounded to the element type and, in a fused kernel, converted back
// and forth (half of a matmul epilogue's instructions in half precision).
// kiln-raise-gelu replaces the chain (every intermediate used once) by one
// `graph.gelu`, computed in f32 and rounded once: not bitwise the written-out
// result (fewer roundings, the exact constants), so the evaluator checks it
// at a tolerance.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "kiln-raise-gelu"

namespace kiln {
#define GEN_PASS_DEF_RAISEGELUPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;
using kiln::match::splatValue;
using kiln::match::splitOperands;
using kiln::match::tensorOf;

namespace {

/// A one-element constant equal to `expected` as the element type holds it
/// (f16 and bf16 keep 11 and 8 significant bits).
bool isConstant(Value v, double expected) {
  std::optional<double> c = splatValue(v);
  if (!c || tensorOf(v).getNumElements() != 1)
    return false;
  unsigned bits = tensorOf(v).getElementTypeBitWidth();
  Type et = tensorOf(v).getElementType();
  double tol = et.isBF16() ? 1.0 / 128 : bits == 16 ? 1.0 / 1024 : 1e-6;
  return std::fabs(*c - expected) <= std::fabs(expected) * tol;
}

/// What a match found: x, the approximation and the ops it replaces.
struct Gelu {
  Value x;
  StringRef approximate;
  SmallVector<Operation *> ops;
};

class Matcher {
public:
  explicit Matcher(Gelu &m) : m(m) {}

  /// `v` = op(a, b) of kind Op, used once; a and b in either order with
  /// `pred(b)`.
  template <class Op, class Pred>
  bool binary(Value v, Value &a, Value &b, Pred pred) {
    auto op = v.getDefiningOp<Op>();
    if (!op || !v.hasOneUse() || !splitOperands(op, a, b, pred))
      return false;
    m.ops.push_back(op);
    return true;
  }
  template <class Op> bool unary(Value v, Value &in) {
    auto op = v.getDefiningOp<Op>();
    if (!op || !v.hasOneUse())
      return false;
    in = op.getInput();
    m.ops.push_back(op);
    return true;
  }
  auto constant(double c) {
    return [c](Value v) { return isConstant(v, c); };
  }

  /// `v` = 1 + inner; inner is erf(x / sqrt2) or tanh(c * (x + k x^3)).
  /// Sets m.x (or checks it against the x found so far) and approximate.
  bool onePlus(Value v) {
    Value inner, one;
    if (!binary<g::AddOp>(v, inner, one, constant(1.0)))
      return false;
    Value arg;
    if (unary<g::ErfOp>(inner, arg)) {
      m.approximate = "none";
      if (auto div = arg.getDefiningOp<g::DivOp>()) {
        if (!arg.hasOneUse() || !isConstant(div.getRhs(), std::sqrt(2.0)))
          return false;
        m.ops.push_back(div);
        return sameX(div.getLhs());
      }
      Value x, c;
      return binary<g::MulOp>(arg, x, c, constant(1.0 / std::sqrt(2.0))) &&
             sameX(x);
    }
    if (!unary<g::TanhOp>(inner, arg))
      return false;
    m.approximate = "tanh";
    Value s, c, x, k;
    if (!binary<g::MulOp>(arg, s, c,
                          constant(std::sqrt(2.0 / 3.14159265358979323846))))
      return false;
    // s = x + cube * 0.044715, cube = x^3 (Pow or x * x * x).
    Value scaled;
    if (!binary<g::AddOp>(s, x, scaled, [&](Value t) {
          auto mul = t.getDefiningOp<g::MulOp>();
          return mul && (isConstant(mul.getLhs(), 0.044715) ||
                         isConstant(mul.getRhs(), 0.044715));
        }))
      return false;
    Value cube;
    if (!binary<g::MulOp>(scaled, cube, k, constant(0.044715)) || !sameX(x))
      return false;
    if (auto pow = cube.getDefiningOp<g::PowOp>()) {
      if (!cube.hasOneUse() || !isConstant(pow.getRhs(), 3.0) ||
          pow.getLhs() != m.x)
        return false;
      m.ops.push_back(pow);
      return true;
    }
    // x * x * x, either association.
    Value sq, xx;
    if (!binary<g::MulOp>(cube, sq, xx, [&](Value t) { return t == m.x; }))
      return false;
    auto sqOp = sq.getDefiningOp<g::MulOp>();
    if (!sqOp || !sq.hasOneUse() || sqOp.getLhs() != m.x ||
        sqOp.getRhs() != m.x)
      return false;
    m.ops.push_back(sqOp);
    return true;
  }

  bool sameX(Value x) {
    if (m.x && m.x != x)
      return false;
    m.x = x;
    return true;
  }

private:
  Gelu &m;
};

/// The root: mul(x * 0.5, 1 + inner), mul(x, (1 + inner) * 0.5) or
/// mul(x * (1 + inner), 0.5), operands in either order.
std::optional<Gelu> matchGelu(g::MulOp root) {
  for (int i = 0; i < 2; ++i) {
    Value a = root->getOperand(i), b = root->getOperand(1 - i);
    // x * 0.5 times 1 + inner (either factor may carry the half).
    for (int half = 0; half < 2; ++half) {
      Gelu m;
      Matcher mt(m);
      Value h = half ? b : a, p = half ? a : b, x, c;
      if (mt.binary<g::MulOp>(h, x, c, mt.constant(0.5)) && mt.sameX(x) &&
          mt.onePlus(p))
        return m;
    }
    // x * ((1 + inner) * 0.5) (torch.onnx's dynamo exporter).
    {
      Gelu m;
      Matcher mt(m);
      Value p, c;
      if (mt.sameX(a) && mt.binary<g::MulOp>(b, p, c, mt.constant(0.5)) &&
          mt.onePlus(p))
        return m;
    }
    // (x * (1 + inner)) * 0.5.
    if (isConstant(b, 0.5)) {
      Gelu m;
      Matcher mt(m);
      auto q = a.getDefiningOp<g::MulOp>();
      if (!q || !a.hasOneUse())
        continue;
      m.ops.push_back(q);
      for (int j = 0; j < 2; ++j) {
        Gelu n = m;
        Matcher nt(n);
        if (nt.sameX(q->getOperand(j)) && nt.onePlus(q->getOperand(1 - j)))
          return n;
      }
    }
  }
  return std::nullopt;
}

struct RaiseGelu : OpRewritePattern<g::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::MulOp root,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(root.getType());
    if (!g::isFloatType(type.getElementType()))
      return rewriter.notifyMatchFailure(root, "not a float product");
    std::optional<Gelu> m = matchGelu(root);
    if (!m || m->x.getType() != type)
      return rewriter.notifyMatchFailure(root, "not a written-out GELU");
    SmallVector<Location> locs;
    for (Operation *op : m->ops)
      locs.push_back(op->getLoc());
    locs.push_back(root.getLoc());
    auto gelu = g::GeluOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), type, m->x,
        rewriter.getStringAttr(m->approximate));
    rewriter.replaceOp(root, gelu.getResult());
    return success();
  }
};

struct RaiseGeluPass : kiln::impl::RaiseGeluPassBase<RaiseGeluPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseGelu>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
