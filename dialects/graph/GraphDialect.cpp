//===- GraphDialect.cpp - Kiln graph dialect registration -----------------===//
#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"

using namespace mlir;
using namespace kiln::graph;

#include "dialects/graph/GraphDialect.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/graph/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

namespace {
/// The ops that broadcast their operands numpy-style and compute each
/// element from the operands' elements at the same (broadcast) index.
bool isBroadcastingElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, EqualOp, LessOp,
             LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp, XorOp,
             WhereOp>(op);
}

/// Computes a broadcasting elementwise op on its operands' narrow forms
/// (an expand's input, a splat constant as a rank-0 one) and broadcasts
/// the result instead: op(expand(x), splat) -> expand(op(x, scalar)), and
/// op(a, expand(b)) -> op(a, b) where a already spans the result. Exact
/// (each element is the same function of the same operand elements), and
/// what is left to broadcast ends as one expand at the end of the chain,
/// which the next broadcasting op absorbs in turn: an attention mask built
/// as where(and(true[1,1,S,1], pad[B,1,1,S]), 0, -inf) becomes a [B,1,1,S]
/// bias instead of a materialized [B,1,S,S] one. and(x, true) and or(x,
/// false) of x's own shape become x. Ops in fusion bodies are left alone
/// (their kernels have no expand).
struct NarrowBroadcast : RewritePattern {
  NarrowBroadcast(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isBroadcastingElementwise(op))
      return failure();
    if (isa_and_nonnull<FusionOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "inside a fusion body");
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return failure();
    // The narrow form of each operand: an expand's input, a splat as a
    // rank-0 constant (made only once the rewrite is certain: a pattern
    // that fails leaves the IR untouched), else the operand itself.
    SmallVector<Value> cores;
    SmallVector<DenseElementsAttr> splats;
    SmallVector<SmallVector<int64_t>> coreShapes;
    bool changed = false;
    for (Value v : op->getOperands()) {
      auto t = cast<RankedTensorType>(v.getType());
      DenseElementsAttr splat;
      if (auto c = v.getDefiningOp<ConstantOp>())
        if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && d.isSplat())
          splat = d;
      splats.push_back(splat);
      Value core = v;
      if (auto e = v.getDefiningOp<ExpandOp>())
        core = e.getInput();
      else if (splat && t.getRank() > 0)
        core = Value(); // a rank-0 splat, made below
      changed |= core != v;
      cores.push_back(core);
      coreShapes.emplace_back(core ? cast<RankedTensorType>(core.getType()).getShape()
                                   : ArrayRef<int64_t>());
    }
    auto materialize = [&](unsigned i) {
      if (cores[i])
        return cores[i];
      Value v = op->getOperand(i);
      auto scalar = RankedTensorType::get(
          {}, cast<RankedTensorType>(v.getType()).getElementType());
      return cores[i] = ConstantOp::create(
                 rewriter, v.getLoc(), scalar,
                 DenseElementsAttr::get(scalar,
                                        splats[i].getSplatValue<Attribute>()));
    };
    auto broadcastsTo = [&](ArrayRef<int64_t> from) {
      auto b = broadcastShapes(from, resultType.getShape());
      return succeeded(b) && ArrayRef<int64_t>(*b) == resultType.getShape();
    };
    // Logic identities: and(x, true) and or(x, false) are x, broadcast.
    if (isa<AndOp, OrOp>(op)) {
      const bool identity = isa<AndOp>(op);
      for (unsigned i = 0; i < 2; ++i)
        if (splats[i] && splats[i].getElementType().isInteger(1) &&
            splats[i].getSplatValue<bool>() == identity &&
            broadcastsTo(coreShapes[1 - i])) {
          Value other = materialize(1 - i);
          if (other.getType() == resultType)
            rewriter.replaceOp(op, other);
          else
            rewriter.replaceOpWithNewOp<ExpandOp>(op, resultType, other);
          return success();
        }
    }
    if (!changed)
      return rewriter.notifyMatchFailure(op, "no expand or splat operand");
    SmallVector<int64_t> shape;
    for (ArrayRef<int64_t> s : coreShapes) {
      auto b = broadcastShapes(shape, s);
      if (failed(b))
        return failure();
      shape = *b;
    }
    auto narrowType = RankedTensorType::get(shape, resultType.getElementType());
    for (unsigned i = 0; i < cores.size(); ++i)
      materialize(i);
    OperationState state(op->getLoc(), op->getName(), cores, {narrowType},
                         op->getAttrs());
    Operation *narrow = rewriter.create(state);
    if (narrowType == resultType)
      rewriter.replaceOp(op, narrow->getResults());
    else
      rewriter.replaceOpWithNewOp<ExpandOp>(op, resultType, narrow->getResult(0));
    return success();
  }
};
} // namespace

void GraphDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<NarrowBroadcast>(getContext());
}
