//===- RaiseAttention.cpp - Attention subgraphs into graph.attention ------===//
//
// Exporters write scaled dot-product attention out as
//   MatMul(Q, K^T) -> [Mul|Div by a scalar] -> [Add mask] -> Softmax(last)
//   -> MatMul(., V)
// (in half precision often with the softmax between casts to f32 and back;
// torch.export's decomposition of scaled_dot_product_attention adds
// Where(IsNaN(P), 0, P) after it and scales K^T by a scalar; onnxscript's
// torchlib writes K^T as Reshape(Transpose(Reshape(K))) over merged leading
// axes; Llama's repeat_kv repeats K's and V's heads for grouped-query
// attention as Reshape(Expand(Unsqueeze))), with the head split/merge
// transposes around it. kiln-raise-attention
// replaces the chain by one `graph.attention`, folding those transposes into
// its operand permutations and the repeat into `q_per_kv`, so the whole
// thing is one flash-attention kernel that never writes the scores (nor the
// repeated K and V) to memory.
//
// When it pays (the one place this pass decides; `attentionWorthRaising`):
// half-precision operands (the kernel runs on tensor cores; f32 attention
// stays unfused), head dimensions multiples of 16 up to 128 (the kernel's
// fragment and shared-memory shapes), every intermediate used once (the
// scores are not needed elsewhere).
//
//===----------------------------------------------------------------------===//
#include "compiler/evaluator/Tensor.h"
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace kiln {
#define GEN_PASS_DEF_RAISEATTENTIONPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

using kiln::match::tensorOf;

bool attentionWorthRaising(Type elementType, int64_t headDim, int64_t valueDim) {
  auto legalDim = [](int64_t d) { return d % 16 == 0 && d >= 16 && d <= 128; };
  return (elementType.isF16() || elementType.isBF16()) && legalDim(headDim) &&
         legalDim(valueDim);
}

SmallVector<int64_t> identity(int64_t rank) {
  SmallVector<int64_t> p;
  for (int64_t i = 0; i < rank; ++i)
    p.push_back(i);
  return p;
}

/// An operand as the pattern reads it: `value`, or with `view` set, `value`
/// reshaped to `view` (the same elements row-major; the reshape is built
/// once nothing can fail).
struct Viewed {
  Value value;
  RankedTensorType view;
  ArrayRef<int64_t> shape() const {
    return view ? view.getShape() : tensorOf(value).getShape();
  }
};

/// `v` as a permutation of another value: a transpose, or
/// Reshape(Transpose(Reshape(x) -> r, p) -> v) where the outer reshape only
/// splits the transposed tensor's first axis into v's leading axes. That is
/// x viewed as r with r's axis p[0] split the same way, then permuted: e.g.
/// torch.export's K^T in scaled_dot_product_attention (r = [n, a, b], p =
/// [0, 2, 1], v = [..., b, a] with n the merged leading axes), and
/// nn.MultiheadAttention's sequence-first heads (x = [s, b, h * d], r = [s,
/// b * h, d], p = [1, 0, 2] for Q and V or [1, 2, 0] for K^T, v = [b, h, ...]).
/// x is read as a view where its shape is not that one. The ops involved go
/// to `ops`.
std::optional<std::pair<Viewed, SmallVector<int64_t>>>
asTranspose(Value v, SmallVectorImpl<Operation *> *ops = nullptr) {
  if (auto t = v.getDefiningOp<g::TransposeOp>()) {
    if (ops)
      ops->push_back(t);
    return std::make_pair(Viewed{t.getInput(), {}},
                          SmallVector<int64_t>(t.getPerm()));
  }
  auto outer = v.getDefiningOp<g::ReshapeOp>();
  if (!outer)
    return std::nullopt;
  auto t = outer.getInput().getDefiningOp<g::TransposeOp>();
  if (!t || !t->hasOneUse())
    return std::nullopt;
  auto inner = t.getInput().getDefiningOp<g::ReshapeOp>();
  if (!inner || !inner->hasOneUse())
    return std::nullopt;
  Value x = inner.getInput();
  ArrayRef<int64_t> vs = tensorOf(v).getShape(), ts = tensorOf(t).getShape(),
                    rs = tensorOf(inner).getShape(), p = t.getPerm();
  const int64_t n = vs.size(), m = ts.size(), lead = n - m + 1;
  // v keeps the transposed tensor's other axes (so its leading ones
  // multiply to the first: the element counts agree).
  if (n < 3 || m < 2 || lead < 1 || vs.take_back(m - 1) != ts.drop_front(1))
    return std::nullopt;
  // The view: r with axis p[0] split into v's leading axes; pos[j] is where
  // r's axis j lands in it.
  SmallVector<int64_t> view, pos(m);
  for (int64_t j = 0; j < m; ++j) {
    pos[j] = view.size();
    if (j == p[0])
      view.append(vs.begin(), vs.begin() + lead);
    else
      view.push_back(rs[j]);
  }
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < lead; ++i)
    perm.push_back(pos[p[0]] + i);
  for (int64_t k = 1; k < m; ++k)
    perm.push_back(pos[p[k]]);
  Viewed source{x, {}};
  if (tensorOf(x).getShape() != ArrayRef<int64_t>(view))
    source.view = RankedTensorType::get(view, tensorOf(x).getElementType());
  if (ops)
    ops->append({inner, t, outer});
  return std::make_pair(source, perm);
}

/// `v` read through `perm` (canonical axis i = v's axis perm[i]); when `v` is
/// a transpose keeping the last axis last, its input read through the
/// composed permutation instead (not through a pending view, whose value has
/// another shape).
void foldTranspose(Viewed &v, SmallVector<int64_t> &perm,
                   SmallVectorImpl<Location> &locs) {
  if (v.view)
    return;
  SmallVector<Operation *> ops;
  auto t = asTranspose(v.value, &ops);
  if (!t)
    return;
  SmallVector<int64_t> composed;
  for (int64_t p : perm)
    composed.push_back(t->second[p]);
  if (composed.back() != (int64_t)composed.size() - 1)
    return;
  v = t->first;
  perm = composed;
  for (Operation *op : ops)
    locs.push_back(op->getLoc());
}

/// HF's repeat_kv (grouped-query attention): `v` = [b, kvh * g, s, d] as
/// Reshape(Expand(y) -> [b, kvh, g, s, d]) (or, with a pending view, that
/// Expand itself viewed so), y = [b, kvh, 1, s, d] the Unsqueeze (a reshape)
/// of x = [b, kvh, s, d]. Returns x (or y viewed as x's shape) with g in
/// `group`; the ops' locations go to `locs`.
std::optional<Viewed> repeatKV(const Viewed &v, int64_t &group,
                               SmallVectorImpl<Location> &locs) {
  ArrayRef<int64_t> shape = v.shape();
  if (shape.size() != 4)
    return std::nullopt;
  Value e = v.value;
  std::optional<Location> outer;
  if (!v.view) {
    auto r = e.getDefiningOp<g::ReshapeOp>();
    if (!r)
      return std::nullopt;
    outer = r.getLoc();
    e = r.getInput();
  }
  auto ex = e.getDefiningOp<g::ExpandOp>();
  if (!ex)
    return std::nullopt;
  Value y = ex.getInput();
  ArrayRef<int64_t> es = tensorOf(ex).getShape(), ys = tensorOf(y).getShape();
  if (es.size() != 5 || ys.size() != 5 || es[0] != shape[0] ||
      es[1] * es[2] != shape[1] || es[3] != shape[2] || es[4] != shape[3] ||
      ys[0] != es[0] || ys[1] != es[1] || ys[2] != 1 || ys[3] != es[3] ||
      ys[4] != es[4] || es[2] < 2)
    return std::nullopt;
  if (outer)
    locs.push_back(*outer);
  locs.push_back(ex.getLoc());
  group = es[2];
  auto xType = RankedTensorType::get({es[0], es[1], es[3], es[4]},
                                     tensorOf(y).getElementType());
  if (auto u = y.getDefiningOp<g::ReshapeOp>())
    if (u.getInput().getType() == xType) {
      locs.push_back(u.getLoc());
      return Viewed{u.getInput(), {}};
    }
  return Viewed{y, xType};
}

/// A rank-4 operand `v` = Reshape(Slice(x)) that splits heads out of a
/// contiguous chunk of x's last axis (a fused Q/K/V projection: x [..., F],
/// the slice [..., a:a+H*D], the reshape [..., H, D]), read through `perm`
/// with the heads axis canonical axis 1: `x` viewed as [..., F/D, D] with
/// heads a/D..a/D+H. The reshape may be a pending view of the slice (`v`
/// viewed). Returns the [offset, count] and the view (built by the caller)
/// through `source` and `viewType`.
std::optional<std::array<int64_t, 2>>
headSlice(const Viewed &v, ArrayRef<int64_t> perm, Value &source,
          RankedTensorType &viewType) {
  if (perm.size() != 4 || perm[1] != 2)
    return std::nullopt;
  Value sliced = v.value;
  if (!v.view) {
    auto r = v.value.getDefiningOp<g::ReshapeOp>();
    if (!r)
      return std::nullopt;
    sliced = r.getInput();
  }
  auto sl = sliced.getDefiningOp<g::SliceOp>();
  if (!sl)
    return std::nullopt;
  ArrayRef<int64_t> out = v.shape(); // [b, s, H, D]
  auto slType = cast<RankedTensorType>(sl.getType());
  auto xType = cast<RankedTensorType>(sl.getInput().getType());
  ArrayRef<int64_t> in = slType.getShape(), xs = xType.getShape();
  const int64_t n = xType.getRank();
  if (n != 3 || in.size() != 3 || in[0] != out[0] || in[1] != out[1] ||
      in[2] != out[2] * out[3])
    return std::nullopt;
  ArrayRef<int64_t> starts = sl.getStarts(), steps = sl.getSteps();
  const int64_t d = out[3];
  for (int64_t i = 0; i < n; ++i)
    if (steps[i] != 1 || (i < n - 1 && (starts[i] != 0 || in[i] != xs[i])))
      return std::nullopt;
  if (starts[n - 1] % d != 0 || xs[n - 1] % d != 0)
    return std::nullopt;
  source = sl.getInput();
  viewType = RankedTensorType::get({xs[0], xs[1], xs[2] / d, d},
                                   xType.getElementType());
  return std::array<int64_t, 2>{starts[n - 1] / d, out[2]};
}

/// Whether `v` is a constant over [..., sq, sk] with sq == sk (the leading
/// axes broadcast) whose every element i passes `ok(t, i, keep)`, `keep`
/// being whether its key j <= its query i.
template <class Ok>
bool isCausalConstant(Value v, int64_t sq, int64_t sk, Ok ok) {
  auto c = v.getDefiningOp<g::ConstantOp>();
  ArrayRef<int64_t> shape = tensorOf(v).getShape();
  if (!c || sq != sk || shape.size() < 2 || shape[shape.size() - 2] != sq ||
      shape.back() != sk)
    return false;
  // Folded constants are dense resources as often as dense attributes.
  FailureOr<kiln::eval::Tensor> t = kiln::eval::tensorFromAttr(c.getValue());
  if (failed(t) || t->numElements() != tensorOf(v).getNumElements())
    return false;
  for (int64_t i = 0, n = t->numElements(); i < n; ++i)
    if (!ok(*t, i, i % sk <= (i / sk) % sq))
      return false;
  return true;
}

/// Whether `bias` is a constant that is exactly a causal mask over scores
/// [..., sq, sk] with sq == sk: 0 where key j <= query i and -inf or at most
/// -1e30 where j > i, for every batch and head (its last two axes are sq and
/// sk, the leading ones broadcast). Replacing it by `causal` is then exact:
/// adding 0 changes nothing, and a masked score of -inf, or one at most -1e30
/// plus a score, has exp() = 0 in f32 as -inf does (while exp(-1e4 + s)
/// need not underflow, so a finite -1e4 mask stays a bias). That holds for
/// finite scores: a masked score that overflowed to +inf (or is NaN) gives
/// NaN through the bias but -inf through `causal`.
bool isCausalMask(Value bias, int64_t sq, int64_t sk) {
  return isa<FloatType>(tensorOf(bias).getElementType()) &&
         isCausalConstant(bias, sq, sk,
                          [](const kiln::eval::Tensor &t, int64_t i, bool keep) {
                            const double x = t.floats()[i];
                            return keep ? x == 0.0 : x <= -1e30;
                          });
}

/// Whether `c` is a constant boolean that is exactly a causal pattern over
/// its last two axes (true where key j <= query i).
bool isCausalCondition(Value c, int64_t sq, int64_t sk) {
  return tensorOf(c).getElementType().isInteger(1) &&
         isCausalConstant(c, sq, sk,
                          [](const kiln::eval::Tensor &t, int64_t i, bool keep) {
                            return (t.ints()[i] != 0) == keep;
                          });
}

/// The bias `where(and(C, X), 0, F)` with C a constant causal pattern (HF's
/// causal mask AND the padding mask of an input) splits into `causal` and
/// the bias `where(X, 0, F)`, which broadcasts over fewer axes (GPT-2's is
/// [batch, 1, 1, keys]). Where C holds the two biases agree; where it does
/// not the original one is F, which is what `causal` gives with F = -inf
/// (SDPA's boolean mask as torch.onnx writes it) and `causal_fill = F` with
/// a finite F in [-2e38, -1e4] (HF's eager masks fill with the type's lowest
/// value: f16's). Returns the new bias operands (X and the two branches) and
/// F.
struct CausalSplit {
  std::array<Value, 3> where; // condition, then, else
  double fill;
};
std::optional<CausalSplit> splitCausalAnd(Value bias, int64_t sq, int64_t sk) {
  auto w = bias.getDefiningOp<g::WhereOp>();
  if (!w || kiln::match::splatValue(w.getX()) != 0.0)
    return std::nullopt;
  // -inf, or a finite F that causal_fill can hold (F log2(e) finite in f32:
  // bf16's lowest value, -3.39e38, is not, and keeps the mask a bias).
  std::optional<double> fill = kiln::match::splatValue(w.getY());
  if (!fill || !(std::isinf(*fill) || (*fill <= -1e4 && *fill >= -2e38)))
    return std::nullopt;
  auto both = w.getCondition().getDefiningOp<g::AndOp>();
  Value c, x;
  if (!both || !kiln::match::splitOperands(both, x, c, [&](Value v) {
        return isCausalCondition(v, sq, sk);
      }))
    return std::nullopt;
  return CausalSplit{{x, w.getX(), w.getY()}, *fill};
}

struct RaiseAttention : OpRewritePattern<g::MatMulOp> {
  RaiseAttention(MLIRContext *ctx, bool foldHeadSlices, bool causal)
      : OpRewritePattern(ctx), foldHeadSlices(foldHeadSlices), causal(causal) {}
  bool foldHeadSlices, causal;
  LogicalResult matchAndRewrite(g::MatMulOp pv,
                                PatternRewriter &rewriter) const override {
    SmallVector<Location> locs;
    // pv = matmul(P, V), P = softmax(x) or cast(softmax(cast(x) : f32)).
    Value p = pv.getLhs(), v = pv.getRhs();
    auto outType = cast<RankedTensorType>(pv.getType());
    const int64_t rank = outType.getRank();
    if ((rank != 3 && rank != 4) || tensorOf(p).getRank() != rank ||
        tensorOf(v).getRank() != rank || !p.hasOneUse())
      return failure();
    Type et = outType.getElementType();
    bool softmaxF32 = false, nanToZero = false;
    Value x;
    // P = where(is_nan(S), 0, S) around the softmax: fully masked rows give 0.
    if (auto w = p.getDefiningOp<g::WhereOp>()) {
      auto isNan = w.getCondition().getDefiningOp<g::IsNaNOp>();
      if (!isNan || isNan.getInput() != w.getY() ||
          kiln::match::splatValue(w.getX()) != 0.0 ||
          !w.getCondition().hasOneUse() || w.getY().getType() != p.getType())
        return failure();
      // The softmax result feeds the is_nan and the where's else.
      Value sm = w.getY();
      if (std::distance(sm.getUses().begin(), sm.getUses().end()) != 2)
        return failure();
      locs.append({isNan.getLoc(), w.getLoc()});
      p = sm;
      nanToZero = true;
    }
    Operation *pOp = p.getDefiningOp();
    if (auto back = dyn_cast_or_null<g::CastOp>(pOp)) {
      auto sm = back.getInput().getDefiningOp<g::SoftmaxOp>();
      if (!sm || !sm->hasOneUse() || !tensorOf(sm).getElementType().isF32())
        return failure();
      auto up = sm.getInput().getDefiningOp<g::CastOp>();
      if (!up || !up->hasOneUse() || tensorOf(up.getInput()).getElementType() != et)
        return failure();
      if (sm.getAxis() != rank - 1)
        return failure();
      locs.append({up.getLoc(), sm.getLoc(), back.getLoc()});
      x = up.getInput();
      softmaxF32 = true;
    } else if (auto sm = dyn_cast_or_null<g::SoftmaxOp>(pOp)) {
      if (sm.getAxis() != rank - 1)
        return failure();
      locs.push_back(sm.getLoc());
      x = sm.getInput();
    } else {
      return failure();
    }
    if (tensorOf(x).getElementType() != et || !x.hasOneUse())
      return failure();
    // x = s [* c | / c] [+ bias].
    Value bias;
    if (auto add = x.getDefiningOp<g::AddOp>()) {
      Value s, b;
      auto scoreLike = [&](Value w) {
        return w.getDefiningOp<g::MatMulOp>() || w.getDefiningOp<g::MulOp>() ||
               w.getDefiningOp<g::DivOp>();
      };
      // The scores are the operand of the result's type made by the chain.
      if (!kiln::match::splitOperands(add, b, s, [&](Value w) {
            return w.getType() == x.getType() && scoreLike(w) && w.hasOneUse();
          }))
        return failure();
      bias = b;
      locs.push_back(add.getLoc());
      x = s;
    }
    std::optional<double> scale;
    bool divides = false;
    auto scalar = [](Value w) {
      return tensorOf(w).getNumElements() == 1 &&
             kiln::match::splatValue(w).has_value();
    };
    if (auto mul = x.getDefiningOp<g::MulOp>()) {
      Value s, c;
      if (!kiln::match::splitOperands(mul, s, c, scalar) || s.getType() != x.getType() ||
          !s.hasOneUse())
        return failure();
      scale = kiln::match::splatValue(c);
      locs.push_back(mul.getLoc());
      x = s;
    } else if (auto div = x.getDefiningOp<g::DivOp>()) {
      if (!scalar(div.getRhs()) || div.getLhs().getType() != x.getType() ||
          !div.getLhs().hasOneUse())
        return failure();
      scale = kiln::match::splatValue(div.getRhs());
      divides = true;
      locs.push_back(div.getLoc());
      x = div.getLhs();
    }
    auto qk = x.getDefiningOp<g::MatMulOp>();
    if (!qk || !x.hasOneUse())
      return failure();
    Value q = qk.getLhs(), kt = qk.getRhs();
    if (tensorOf(q).getRank() != rank || tensorOf(kt).getRank() != rank ||
        tensorOf(q).getElementType() != et || tensorOf(v).getElementType() != et)
      return failure();
    // Equal batch axes (no broadcasting between q, k and v).
    ArrayRef<int64_t> qs = tensorOf(q).getShape(), ks = tensorOf(kt).getShape(),
                      vs = tensorOf(v).getShape();
    if (qs.drop_back(2) != ks.drop_back(2) || qs.drop_back(2) != vs.drop_back(2))
      return failure();
    if (bias && (tensorOf(bias).getElementType() != et ||
                 tensorOf(bias).getRank() > rank))
      return failure();
    if (!attentionWorthRaising(et, qs.back(), vs.back()) ||
        ks.back() == 0 || qs[rank - 2] == 0)
      return failure();
    locs.push_back(qk.getLoc());
    locs.push_back(pv.getLoc());
    // Operand permutations: K is read as K^T's input with its last two axes
    // swapped, which needs a transpose to fold (K^T itself has the head
    // dimension second to last).
    SmallVector<int64_t> qPerm = identity(rank), vPerm = identity(rank),
                         kPerm = identity(rank);
    std::swap(kPerm[rank - 1], kPerm[rank - 2]);
    Value k = kt;
    // Q or K^T scaled by a scalar after a transpose (torchlib's SDPA scales
    // both by sqrt(scale)): scaled before it instead (the same values), so
    // the transpose folds. Decided here, built below once nothing can fail.
    struct Scaling {
      g::MulOp mul;
      Value scalar;
    } qScale, kScale;
    auto peelScale = [&](Value &operand, Scaling &scaling) {
      auto mul = operand.getDefiningOp<g::MulOp>();
      Value t, c;
      if (mul && operand.hasOneUse() &&
          kiln::match::splitOperands(mul, t, c, scalar) &&
          t.getType() == operand.getType() && t.hasOneUse() && asTranspose(t)) {
        scaling = {mul, c};
        operand = t;
      }
    };
    peelScale(q, qScale);
    peelScale(k, kScale);
    Viewed qv{q, {}}, kv{k, {}}, vv{v, {}};
    foldTranspose(qv, qPerm, locs);
    foldTranspose(vv, vPerm, locs);
    foldTranspose(kv, kPerm, locs);
    // Grouped-query attention: K and V both repeat_kv'd by one factor and
    // read in their own order (the repeat is along the canonical heads axis)
    // become their unrepeated tensors, which the kernel shares between
    // query heads; then their head transposes fold too.
    int64_t group = 1;
    {
      int64_t kGroup = 0, vGroup = 0;
      SmallVector<Location> repeatLocs;
      auto kr = repeatKV(kv, kGroup, repeatLocs);
      auto vr = repeatKV(vv, vGroup, repeatLocs);
      if (kr && vr && kGroup == vGroup && kPerm == identity(rank) &&
          vPerm == identity(rank)) {
        kv = *kr;
        vv = *vr;
        group = kGroup;
        locs.append(repeatLocs);
        foldTranspose(kv, kPerm, locs);
        foldTranspose(vv, vPerm, locs);
      }
    }
    if (kPerm.back() != rank - 1)
      return failure();
    // Heads read straight out of a fused projection (not under a Q or K
    // scaling, which needs the sliced tensor, nor through a view).
    Value sources[3];
    RankedTensorType views[3];
    std::optional<std::array<int64_t, 2>> heads[3];
    if (foldHeadSlices) {
      // Q and K both scaled by scalars (torchlib's sqrt(scale) each) whose
      // heads come straight out of a projection: the scalings fold into
      // the attention's scale (computed in f32 on the scores rather than
      // rounded into Q and K), so the heads are read in place.
      heads[0] = headSlice(qv, qPerm, sources[0], views[0]);
      heads[1] = headSlice(kv, kPerm, sources[1], views[1]);
      heads[2] = headSlice(vv, vPerm, sources[2], views[2]);
      if (qScale.mul && kScale.mul && heads[0] && heads[1]) {
        std::optional<double> cq = kiln::match::splatValue(qScale.scalar),
                              ck = kiln::match::splatValue(kScale.scalar);
        if (cq && ck && *cq * *ck != 0.0 && std::isfinite(*cq * *ck)) {
          const double both = *cq * *ck;
          scale = !scale ? both : divides ? *scale / both : *scale * both;
          locs.append({qScale.mul.getLoc(), kScale.mul.getLoc()});
          qScale = {};
          kScale = {};
        }
      }
      // A scaled Q or K that stays scaled is read through its multiply.
      if (qScale.mul)
        heads[0].reset();
      if (kScale.mul)
        heads[1].reset();
    }
    // A constant causal mask becomes `causal`, which skips the masked key
    // blocks instead of reading the mask.
    bool isCausal = false;
    std::optional<double> causalFill;
    std::optional<CausalSplit> split;
    if (causal && bias && isCausalMask(bias, qs[rank - 2], ks[rank - 1])) {
      isCausal = true;
      bias = Value();
    } else if (causal && bias &&
               (split = splitCausalAnd(bias, qs[rank - 2], ks[rank - 1]))) {
      isCausal = true;
      if (!std::isinf(split->fill))
        causalFill = split->fill;
      auto [cond, zero, fill] = split->where;
      // The where's operands broadcast: they did in the mask, which has
      // the same operands plus C.
      SmallVector<int64_t> shape = *g::broadcastShapes(
          tensorOf(cond).getShape(),
          *g::broadcastShapes(tensorOf(zero).getShape(),
                              tensorOf(fill).getShape()));
      // The layers share one mask: the first layer's new bias serves the
      // others where it comes before their mask.
      auto type = RankedTensorType::get(shape, et);
      Operation *old = bias.getDefiningOp();
      Value shared;
      for (Operation *user : cond.getUsers())
        if (auto w = dyn_cast<g::WhereOp>(user))
          if (w.getCondition() == cond && w.getX() == zero &&
              w.getY() == fill && w.getType() == type &&
              w->getBlock() == old->getBlock() && w->isBeforeInBlock(old))
            shared = w;
      if (shared) {
        bias = shared;
      } else {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(old);
        bias = g::WhereOp::create(rewriter, bias.getLoc(), type, cond, zero,
                                  fill);
      }
    }
    // Nothing fails from here on.
    Viewed *viewed[3] = {&qv, &kv, &vv};
    Value *operands[3] = {&q, &k, &v};
    for (int i = 0; i < 3; ++i) {
      *operands[i] = viewed[i]->value;
      if (viewed[i]->view) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointAfterValue(viewed[i]->value);
        *operands[i] = g::ReshapeOp::create(rewriter, viewed[i]->value.getLoc(),
                                            viewed[i]->view, viewed[i]->value);
      }
    }
    for (auto [operand, scaling] :
         {std::make_pair(&q, &qScale), std::make_pair(&k, &kScale)})
      if (scaling->mul) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(scaling->mul);
        *operand =
            g::MulOp::create(rewriter, scaling->mul.getLoc(),
                             operand->getType(), *operand, scaling->scalar);
      }
    for (int i = 0; i < 3; ++i)
      if (heads[i]) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointAfterValue(sources[i]);
        *operands[i] = g::ReshapeOp::create(rewriter, operands[i]->getLoc(),
                                            views[i], sources[i]);
      }
    auto headsAttr = [&](int i) {
      return heads[i] ? rewriter.getDenseI64ArrayAttr(*heads[i])
                      : DenseI64ArrayAttr();
    };
    // The output: fold a transpose that is its only user.
    SmallVector<int64_t> outPerm = identity(rank);
    Operation *replaced = pv;
    Type resultType = pv.getType();
    if (pv->hasOneUse())
      if (auto t = dyn_cast<g::TransposeOp>(*pv->getUsers().begin()))
        if (t.getPerm().back() == rank - 1) {
          outPerm.assign(t.getPerm().begin(), t.getPerm().end());
          replaced = t;
          resultType = t.getType();
          locs.push_back(t.getLoc());
        }
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(replaced);
    auto att = g::AttentionOp::create(
        rewriter, FusedLoc::get(rewriter.getContext(), locs), resultType, q, k,
        v, bias, scale ? rewriter.getF64FloatAttr(*scale) : FloatAttr(),
        divides ? rewriter.getUnitAttr() : UnitAttr(),
        softmaxF32 ? rewriter.getUnitAttr() : UnitAttr(),
        nanToZero ? rewriter.getUnitAttr() : UnitAttr(),
        rewriter.getDenseI64ArrayAttr(qPerm), rewriter.getDenseI64ArrayAttr(kPerm),
        rewriter.getDenseI64ArrayAttr(vPerm), rewriter.getDenseI64ArrayAttr(outPerm),
        headsAttr(0), headsAttr(1), headsAttr(2),
        group > 1 ? rewriter.getI64IntegerAttr(group) : IntegerAttr(),
        isCausal ? rewriter.getUnitAttr() : UnitAttr(),
        causalFill ? rewriter.getF64FloatAttr(*causalFill) : FloatAttr());
    rewriter.replaceOp(replaced, att.getResult());
    return success();
  }
};

/// The constant scalar index of a gather, if it has one (a rank-0 integer
/// constant; negative counts from the end of the gathered axis).
std::optional<int64_t> constantIndex(g::GatherOp op) {
  auto c = op.getIndices().getDefiningOp<g::ConstantOp>();
  auto type = tensorOf(op.getIndices());
  if (!c || type.getRank() != 0)
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(c.getValue());
  if (!dense)
    return std::nullopt;
  int64_t i = (*dense.value_begin<APInt>()).getSExtValue();
  const int64_t size = tensorOf(op.getData()).getShape()[op.getAxis()];
  if (i < 0)
    i += size;
  if (i < 0 || i >= size)
    return std::nullopt;
  return i;
}

/// nn.MultiheadAttention's packed projection, as torch.onnx writes it:
/// [S, B, 3E] unflattened to [1, S, B, 3, E], transposed to [3, S, B, 1, E],
/// reshaped to [3, S, B, E], and Q, K and V gathered at 0, 1 and 2. The
/// gathers move towards the projection (through the transpose onto its
/// axis, through the reshapes while an axis stays whole) until one picks a
/// contiguous chunk of an axis the reshape split, where it becomes a slice
/// of the projection: Reshape(Slice(x)), which the attention reads in place
/// (headSlice). Each step is exact for any gather of a constant scalar
/// index.
struct GatherThroughView : OpRewritePattern<g::GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::GatherOp op,
                                PatternRewriter &rewriter) const override {
    // Every user of the data a gather of a constant index (the stacked Q, K
    // and V): once each has moved, the view ops are dead.
    std::optional<int64_t> index = constantIndex(op);
    if (!index || !llvm::all_of(op.getData().getUsers(), [](Operation *u) {
          auto user = dyn_cast<g::GatherOp>(u);
          return user && constantIndex(user);
        }))
      return failure();
    const int64_t a = op.getAxis();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type et = resultType.getElementType();
    // gather(transpose(x, p), i, a) = transpose(gather(x, i, p[a]), p')
    // with p' = p without a, renumbered past p[a].
    if (auto t = op.getData().getDefiningOp<g::TransposeOp>()) {
      ArrayRef<int64_t> p = t.getPerm();
      SmallVector<int64_t> inner(tensorOf(t.getInput()).getShape());
      inner.erase(inner.begin() + p[a]);
      SmallVector<int64_t> perm;
      for (int64_t j = 0; j < (int64_t)p.size(); ++j)
        if (j != a)
          perm.push_back(p[j] > p[a] ? p[j] - 1 : p[j]);
      Value gathered = g::GatherOp::create(
          rewriter, op.getLoc(), RankedTensorType::get(inner, et),
          t.getInput(), op.getIndices(), rewriter.getI64IntegerAttr(p[a]));
      rewriter.replaceOpWithNewOp<g::TransposeOp>(op, resultType, gathered,
                                                  perm);
      return success();
    }
    auto r = op.getData().getDefiningOp<g::ReshapeOp>();
    if (!r)
      return failure();
    ArrayRef<int64_t> out = tensorOf(r).getShape(),
                      in = tensorOf(r.getInput()).getShape();
    auto prod = [](ArrayRef<int64_t> v) { return ShapedType::getNumElements(v); };
    // The input axis b whose elements before it number as many as those
    // before a: a is b itself (same size) or b's leading part (b splits
    // into a and the axes after it).
    const int64_t before = prod(out.take_front(a));
    int64_t b = 0;
    while (b < (int64_t)in.size() && prod(in.take_front(b)) < before)
      ++b;
    if (b == (int64_t)in.size() || prod(in.take_front(b)) != before)
      return failure();
    if (in[b] == out[a]) {
      // The axis stays whole: gather the input, then reshape.
      SmallVector<int64_t> inner(in);
      inner.erase(inner.begin() + b);
      Value gathered = g::GatherOp::create(
          rewriter, op.getLoc(), RankedTensorType::get(inner, et),
          r.getInput(), op.getIndices(), rewriter.getI64IntegerAttr(b));
      rewriter.replaceOpWithNewOp<g::ReshapeOp>(op, resultType, gathered);
      return success();
    }
    // b splits into a and the axes after it that make up the rest of b:
    // index i picks the contiguous chunk [i * chunk, (i + 1) * chunk).
    if (in[b] % out[a] != 0)
      return failure();
    const int64_t chunk = in[b] / out[a];
    int64_t covered = 1, k = a + 1;
    while (k < (int64_t)out.size() && covered < chunk)
      covered *= out[k++];
    if (covered != chunk)
      return failure();
    SmallVector<int64_t> sliced(in), starts(in.size(), 0),
        steps(in.size(), 1);
    sliced[b] = chunk;
    starts[b] = *index * chunk;
    auto sl = g::SliceOp::create(rewriter, op.getLoc(),
                                 RankedTensorType::get(sliced, et),
                                 r.getInput(), starts, steps);
    rewriter.replaceOpWithNewOp<g::ReshapeOp>(op, resultType, sl);
    return success();
  }
};

struct RaiseAttentionPass
    : kiln::impl::RaiseAttentionPassBase<RaiseAttentionPass> {
  using RaiseAttentionPassBase::RaiseAttentionPassBase;
  void runOnOperation() override {
    // First the stacked projections' gathers into slices (so the raising
    // sees Reshape(Slice) heads), then the raising.
    if (foldHeadSlices) {
      RewritePatternSet views(&getContext());
      views.add<GatherThroughView>(&getContext());
      g::ReshapeOp::getCanonicalizationPatterns(views, &getContext());
      g::TransposeOp::getCanonicalizationPatterns(views, &getContext());
      if (failed(applyPatternsGreedily(getOperation(), std::move(views))))
        return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseAttention>(&getContext(), foldHeadSlices, causal);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
