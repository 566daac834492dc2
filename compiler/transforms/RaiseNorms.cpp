//===- RaiseNorms.cpp - Written-out RMSNorm/LayerNorm into one layer_norm -===//
//
// Exporters write RMSNorm (Llama and friends) out as
//   w * (x * 1/sqrt(mean(x^2, last axis) + eps))
// with x^2 as Pow(x, 2) or Mul(x, x), 1/s as Reciprocal(s) or Div(1, s), or
// the whole scaling as Div(x, s), half-precision models often with the
// statistics in f32 (x cast up, the normalized value cast back before the
// weight). kiln-raise-norms matches that chain (every
// intermediate used once) and replaces it by `graph.layer_norm {rms}`: one
// single-pass row kernel instead of five or six launches. Layer norm as
// exporters below opset 17 write it (mean, subtract, mean of squares, eps,
// sqrt, divide, scale, bias) becomes `graph.layer_norm` the same way, and
// written-out softmax and log-softmax (exp, sum, divide; the max shift
// optional) become `graph.softmax` / `graph.log_softmax`.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "kiln-raise-norms"

namespace kiln {
#define GEN_PASS_DEF_RAISENORMSPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

using kiln::match::splatValue;
using kiln::match::splitOperands;

bool singleUse(Value v) { return v.hasOneUse(); }

/// mean(x^2 over the last axis) + eps at `v`, x^2 as Pow(x, 2) or Mul(x, x),
/// the mean keeping all `rank` axes, every intermediate used once.
struct MeanSquare {
  Operation *square;
  g::ReduceMeanOp mean;
  g::AddOp add;
  double eps;
};
std::optional<MeanSquare> matchMeanSquarePlusEps(Value v, Value x,
                                                 int64_t rank) {
  auto add = v.getDefiningOp<g::AddOp>();
  Value ms, epsV;
  if (!add || !splitOperands(add, ms, epsV, [](Value e) {
        return splatValue(e).has_value() &&
               cast<RankedTensorType>(e.getType()).getNumElements() == 1;
      }))
    return std::nullopt;
  const double eps = *splatValue(epsV);
  auto mean = ms.getDefiningOp<g::ReduceMeanOp>();
  if (!mean || !singleUse(ms) || !singleUse(mean.getInput()) ||
      mean.getAxes() != ArrayRef<int64_t>{rank - 1} ||
      cast<RankedTensorType>(mean.getType()).getRank() != rank || eps < 0)
    return std::nullopt;
  Operation *square = mean.getInput().getDefiningOp();
  bool isSquare = false;
  if (auto p = dyn_cast_or_null<g::PowOp>(square))
    isSquare = p.getLhs() == x && splatValue(p.getRhs()) == 2.0;
  else if (auto m = dyn_cast_or_null<g::MulOp>(square))
    isSquare = m.getLhs() == x && m.getRhs() == x;
  if (!isSquare)
    return std::nullopt;
  return MeanSquare{square, mean, add, eps};
}

struct RaiseRMSNorm : OpRewritePattern<g::MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::MulOp root,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(root.getType());
    if (type.getRank() < 1 || !g::isFloatType(type.getElementType()))
      return failure();
    int64_t n = type.getShape().back();
    // root = w * normed, w a vector over the last axis.
    Value normed, w;
    auto isScale = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return t.getNumElements() == n && t.getRank() >= 1 &&
             t.getShape().back() == n;
    };
    auto producedBy = [](Value v, auto tag) {
      return v.getDefiningOp<decltype(tag)>() != nullptr;
    };
    if (!splitOperands(root, normed, w, [&](Value v) {
          return isScale(v) && !producedBy(v, g::MulOp()) &&
                 !producedBy(v, g::DivOp());
        }))
      return failure();
    if (!singleUse(normed) || normed.getType() != root.getType())
      return failure();
    // Half-precision exporters compute the statistics in f32: x cast up,
    // the normalized value cast back before the weight.
    SmallVector<Location> castLocs;
    Type statType = root.getType();
    if (auto down = normed.getDefiningOp<g::CastOp>()) {
      auto inner = cast<RankedTensorType>(down.getInput().getType());
      if (!inner.getElementType().isF32() || !singleUse(down.getInput()))
        return failure();
      castLocs.push_back(down.getLoc());
      normed = down.getInput();
      statType = inner;
    }
    // normed = x * r (r = 1/s) or x / s.
    Value x, s;
    Operation *scaleOp = normed.getDefiningOp();
    if (auto div = dyn_cast_or_null<g::DivOp>(scaleOp)) {
      x = div.getLhs();
      s = div.getRhs();
    } else if (auto mul = dyn_cast_or_null<g::MulOp>(scaleOp)) {
      Value r;
      if (!splitOperands(mul, x, r, [&](Value v) {
            return v.getDefiningOp<g::ReciprocalOp>() ||
                   v.getDefiningOp<g::DivOp>();
          }))
        return failure();
      if (!singleUse(r))
        return failure();
      if (auto rec = r.getDefiningOp<g::ReciprocalOp>()) {
        s = rec.getInput();
      } else {
        auto d = r.getDefiningOp<g::DivOp>();
        if (splatValue(d.getLhs()) != 1.0)
          return failure();
        s = d.getRhs();
      }
    } else {
      return failure();
    }
    if (x.getType() != statType || !singleUse(s))
      return failure();
    auto sq = s.getDefiningOp<g::SqrtOp>();
    if (!sq || !singleUse(sq.getInput()))
      return failure();
    std::optional<MeanSquare> stats =
        matchMeanSquarePlusEps(sq.getInput(), x, type.getRank());
    if (!stats)
      return failure();
    if (statType != root.getType()) {
      auto up = x.getDefiningOp<g::CastOp>();
      if (!up || up.getInput().getType() != root.getType())
        return failure();
      castLocs.push_back(up.getLoc());
      x = up.getInput();
    }
    // A scale of another rank is viewed as the [n] vector it holds.
    if (cast<RankedTensorType>(w.getType()).getRank() != 1)
      w = g::ReshapeOp::create(
          rewriter, root.getLoc(),
          RankedTensorType::get({n}, cast<RankedTensorType>(w.getType()).getElementType()),
          w);
    SmallVector<Location> locs = {stats->square->getLoc(), stats->mean.getLoc(),
                                  stats->add.getLoc(),      sq.getLoc(),
                                  scaleOp->getLoc(),        root.getLoc()};
    locs.append(castLocs.begin(), castLocs.end());
    auto ln = g::LayerNormOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), root.getType(), x,
        w, Value(), rewriter.getI64IntegerAttr(type.getRank() - 1),
        rewriter.getF32FloatAttr(static_cast<float>(stats->eps)),
        rewriter.getUnitAttr());
    rewriter.replaceOp(root, ln.getResult());
    return success();
  }
};

/// Layer normalization as exporters below opset 17 write it:
///   d = x - mean(x); v = mean(d^2); y = d / sqrt(v + eps) * g [+ b]
/// over the last axis (d used by the square and the division, every other
/// intermediate once), with d^2 as Pow(d, 2) or Mul(d, d). The root is the
/// bias Add, or the scale Mul when there is no bias.
struct RaiseLayerNorm : OpRewritePattern<g::MulOp> {
  // Before RaiseRMSNorm, which would take (x - mean) / sqrt(mean((x -
  // mean)^2) + eps) * g as the RMSNorm of x - mean and leave the centering
  // as a kernel of its own.
  explicit RaiseLayerNorm(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(g::MulOp scaleMul,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(scaleMul.getType());
    if (type.getRank() < 1 || !g::isFloatType(type.getElementType()))
      return rewriter.notifyMatchFailure(scaleMul, "not a float tensor");
    const int64_t n = type.getShape().back(), last = type.getRank() - 1;
    auto isVector = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return t.getNumElements() == n && t.getRank() >= 1 &&
             t.getShape().back() == n && t.getElementType() == type.getElementType();
    };
    Value normed, gamma;
    if (!splitOperands(scaleMul, normed, gamma, [&](Value v) {
          return isVector(v) && !v.getDefiningOp<g::DivOp>();
        }))
      return rewriter.notifyMatchFailure(scaleMul, "no [n] scale operand");
    auto div = normed.getDefiningOp<g::DivOp>();
    if (!div || !singleUse(normed) || normed.getType() != type)
      return rewriter.notifyMatchFailure(scaleMul, "not (x - mean) / s * g");
    Value d = div.getLhs(), s = div.getRhs();
    auto sub = d.getDefiningOp<g::SubOp>();
    auto sq = s.getDefiningOp<g::SqrtOp>();
    if (!sub || !sq || !singleUse(s) || !singleUse(sq.getInput()) ||
        d.getType() != type)
      return rewriter.notifyMatchFailure(scaleMul, "no sqrt or no x - mean");
    Value x = sub.getLhs(), meanX = sub.getRhs();
    auto mean1 = meanX.getDefiningOp<g::ReduceMeanOp>();
    if (!mean1 || mean1.getInput() != x || !singleUse(meanX) ||
        x.getType() != type || mean1.getAxes() != ArrayRef<int64_t>{last} ||
        cast<RankedTensorType>(mean1.getType()).getRank() != type.getRank())
      return rewriter.notifyMatchFailure(scaleMul, "not x - mean(x, last)");
    std::optional<MeanSquare> stats =
        matchMeanSquarePlusEps(sq.getInput(), d, type.getRank());
    if (!stats)
      return rewriter.notifyMatchFailure(scaleMul,
                                         "no mean of (x - mean)^2 + eps");
    Operation *square = stats->square;
    // The centered value feeds only the square and the division (the RMSNorm
    // pattern takes a chain whose centered value is also used elsewhere).
    if (!llvm::all_of(d.getUsers(),
                      [&](Operation *u) { return u == square || u == div; }))
      return rewriter.notifyMatchFailure(scaleMul, "x - mean is used outside");
    // An optional bias: the scale's only user adds an [n] vector.
    Operation *root = scaleMul;
    Value beta;
    if (scaleMul->hasOneUse())
      if (auto biasAdd = dyn_cast<g::AddOp>(*scaleMul->getUsers().begin())) {
        Value self, other;
        if (biasAdd.getType() == type &&
            splitOperands(biasAdd, self, other, [&](Value v) {
              return v != scaleMul.getResult() && isVector(v);
            })) {
          root = biasAdd;
          beta = other;
        }
      }
    auto asVector = [&](Value v) -> Value {
      if (cast<RankedTensorType>(v.getType()).getRank() == 1)
        return v;
      return g::ReshapeOp::create(
          rewriter, root->getLoc(),
          RankedTensorType::get({n}, type.getElementType()), v);
    };
    rewriter.setInsertionPoint(root);
    gamma = asVector(gamma);
    if (beta)
      beta = asVector(beta);
    SmallVector<Location> locs = {mean1.getLoc(),         sub.getLoc(),
                                  square->getLoc(),       stats->mean.getLoc(),
                                  stats->add.getLoc(),    sq.getLoc(),
                                  div.getLoc(),           scaleMul.getLoc()};
    if (root != scaleMul)
      locs.push_back(root->getLoc());
    auto ln = g::LayerNormOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), type, x, gamma,
        beta, rewriter.getI64IntegerAttr(last),
        rewriter.getF32FloatAttr(static_cast<float>(stats->eps)), UnitAttr());
    rewriter.replaceOp(root, ln.getResult());
    return success();
  }
};

/// The single axis `r` (a reduction of kind R, keeping its axis) reduces
/// `input` over, if it does.
template <class R>
std::optional<int64_t> reducedAxis(Value r, Value input) {
  auto op = r.getDefiningOp<R>();
  if (!op || op.getInput() != input || op.getAxes().size() != 1 ||
      cast<RankedTensorType>(op.getType()).getRank() !=
          cast<RankedTensorType>(input.getType()).getRank())
    return std::nullopt;
  return op.getAxes().front();
}

/// x - max(x, axis) at `v` (the numerically stable shift); the shift's max
/// must be used once. Returns x and appends the two ops' locations.
Value unshifted(Value v, SmallVectorImpl<Location> &locs, int64_t &axis) {
  auto sub = v.getDefiningOp<g::SubOp>();
  if (!sub || sub.getLhs().getType() != v.getType() ||
      !singleUse(sub.getRhs()))
    return v;
  std::optional<int64_t> a =
      reducedAxis<g::ReduceMaxOp>(sub.getRhs(), sub.getLhs());
  if (!a || (axis >= 0 && *a != axis))
    return v;
  axis = *a;
  locs.push_back(sub.getRhs().getDefiningOp()->getLoc());
  locs.push_back(sub.getLoc());
  return sub.getLhs();
}

/// Softmax written out (exporters of `x.exp() / x.exp().sum(-1, keepdim)`
/// and of the stable form):
///   e = exp(x [- max(x, a)]); y = e / sum(e, a)
/// over one kept axis `a`, e used by the sum and the division only. Becomes
/// `graph.softmax`, one row kernel that takes the max itself: the unshifted
/// form gets the same values where exp(x) does not overflow, and finite ones
/// where it does.
struct RaiseSoftmax : OpRewritePattern<g::DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::DivOp div,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(div.getType());
    Value e = div.getLhs(), s = div.getRhs();
    if (!g::isFloatType(type.getElementType()) || e.getType() != type ||
        !singleUse(s))
      return rewriter.notifyMatchFailure(div, "not e / s of one type");
    std::optional<int64_t> axis = reducedAxis<g::ReduceSumOp>(s, e);
    auto exp = e.getDefiningOp<g::ExpOp>();
    if (!axis || !exp ||
        !llvm::all_of(e.getUsers(), [&](Operation *u) {
          return u == div || u == s.getDefiningOp();
        }))
      return rewriter.notifyMatchFailure(div, "not exp(.) / sum(exp(.))");
    SmallVector<Location> locs;
    Value shifted = exp.getInput();
    int64_t a = *axis;
    Value x = singleUse(shifted) ? unshifted(shifted, locs, a) : shifted;
    locs.append({exp.getLoc(), s.getDefiningOp()->getLoc(), div.getLoc()});
    auto sm = g::SoftmaxOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), type, x,
        rewriter.getI64IntegerAttr(a));
    rewriter.replaceOp(div, sm.getResult());
    return success();
  }
};

/// Log-softmax written out: d = x [- max(x, a)]; y = d - log(sum(exp(d), a)),
/// d used by the exp and the subtraction only (when it is x itself, x may
/// have other users). Becomes `graph.log_softmax`.
struct RaiseLogSoftmax : OpRewritePattern<g::SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::SubOp root,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(root.getType());
    Value d = root.getLhs(), l = root.getRhs();
    auto log = l.getDefiningOp<g::LogOp>();
    if (!g::isFloatType(type.getElementType()) || d.getType() != type ||
        !log || !singleUse(l) || !singleUse(log.getInput()))
      return rewriter.notifyMatchFailure(root, "not d - log(.)");
    Value e = log.getInput().getDefiningOp<g::ReduceSumOp>()
                  ? log.getInput().getDefiningOp<g::ReduceSumOp>().getInput()
                  : Value();
    auto exp = e ? e.getDefiningOp<g::ExpOp>() : g::ExpOp();
    std::optional<int64_t> axis =
        e ? reducedAxis<g::ReduceSumOp>(log.getInput(), e) : std::nullopt;
    if (!exp || exp.getInput() != d || !singleUse(e) || !axis)
      return rewriter.notifyMatchFailure(root, "not d - log(sum(exp(d)))");
    SmallVector<Location> locs;
    int64_t a = *axis;
    Value x = d;
    if (llvm::all_of(d.getUsers(),
                     [&](Operation *u) { return u == root || u == exp; }))
      x = unshifted(d, locs, a);
    locs.append({exp.getLoc(), log.getInput().getDefiningOp()->getLoc(),
                 log.getLoc(), root.getLoc()});
    auto sm = g::LogSoftmaxOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), type, x,
        rewriter.getI64IntegerAttr(a));
    rewriter.replaceOp(root, sm.getResult());
    return success();
  }
};

struct RaiseNormsPass : kiln::impl::RaiseNormsPassBase<RaiseNormsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseRMSNorm, RaiseLayerNorm, RaiseSoftmax, RaiseLogSoftmax>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
