//===- MergeSiblings.cpp - Sibling linear layers into one matmul ----------===//
//
// Attention blocks project one input three times (Q, K and V), each a
// MatMul by a constant [K, Ni] weight, usually followed by the Add of a
// constant [Ni] bias. kiln-merge-siblings makes them one MatMul by the
// concatenated weight (folded into a constant), one Add of the concatenated
// bias, and a Slice per original result: one launch instead of three, a
// wider N that fills the GPU better, and kiln-raise-attention then reads the
// heads straight out of the merged result. Each output element is the same
// dot product as before, so the evaluator's results are unchanged.
//
// When it pays (siblingsWorthMerging): two or more float matmuls of the same
// 2-D-or-more input by 2-D constant weights of one K and dtype, each with its
// only user a bias Add of a constant [Ni] vector (or no bias on any), whose
// results ([b, s, Ni]) split into heads and reach only matmuls through
// reshapes and transposes, so kiln-raise-attention reads every slice in place
// and none has to be copied.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FoldConstants.h"
#include "compiler/transforms/MatchUtils.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_MERGESIBLINGSPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

using kiln::match::tensorOf;

/// A linear layer: `mm` by a constant 2-D weight, and its bias Add (or null).
struct Linear {
  g::MatMulOp mm;
  g::AddOp bias;
  Value biasValue;
};

std::optional<Linear> asLinear(g::MatMulOp mm) {
  auto w = mm.getRhs().getDefiningOp<g::ConstantOp>();
  if (!w || tensorOf(mm.getRhs()).getRank() != 2 ||
      tensorOf(mm.getLhs()).getRank() < 2 ||
      !g::isFloatType(mm.getType().getElementType()))
    return std::nullopt;
  Linear l{mm, {}, {}};
  const int64_t n = tensorOf(mm.getRhs()).getDimSize(1);
  if (mm->hasOneUse())
    if (auto add = dyn_cast<g::AddOp>(*mm->getUsers().begin())) {
      Value other = add.getLhs() == mm.getResult() ? add.getRhs() : add.getLhs();
      if (other.getDefiningOp<g::ConstantOp>() && tensorOf(other).getRank() == 1 &&
          tensorOf(other).getDimSize(0) == n && add.getType() == mm.getType() &&
          other != mm.getResult()) {
        l.bias = add;
        l.biasValue = other;
      }
    }
  return l;
}

/// `v` reaches only matmuls, through reshapes and transposes: the slices of
/// a merged projection then fold into graph.attention's operands (anything
/// else, such as Llama's rotary embedding, would need them as copies).
bool feedsMatMulsThroughViews(Value v) {
  if (v.use_empty())
    return false;
  for (Operation *u : v.getUsers()) {
    if (isa<g::MatMulOp>(u))
      continue;
    if (!isa<g::ReshapeOp, g::TransposeOp>(u) ||
        !feedsMatMulsThroughViews(u->getResult(0)))
      return false;
  }
  return true;
}

/// The constant's data is present (and so can be folded into the
/// concatenation): dense, or a resource whose blob was not elided. Checked
/// without decoding the weight.
bool readable(Value v) {
  auto c = v.getDefiningOp<g::ConstantOp>();
  if (!c)
    return false;
  if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue()))
    return res.getRawHandle().getBlob() != nullptr;
  return isa<DenseElementsAttr>(c.getValue());
}

bool siblingsWorthMerging(MutableArrayRef<Linear> group) {
  if (group.size() < 2)
    return false;
  // Only where kiln-raise-attention will take the heads: half precision.
  Type et = group[0].mm.getType().getElementType();
  if (!et.isF16() && !et.isBF16())
    return false;
  for (Linear &l : group)
    if (!readable(l.mm.getRhs()) || (l.bias && !readable(l.biasValue)))
      return false;
  // Each result splits into heads ([b, s, N] -> [b, s, H, D]) on its way to
  // the attention matmuls: kiln-raise-attention reads such slices in place.
  for (Linear &l : group) {
    Value r = l.bias ? l.bias.getResult() : l.mm.getResult();
    auto rt = tensorOf(r);
    if (rt.getRank() != 3 || !feedsMatMulsThroughViews(r))
      return false;
    for (Operation *u : r.getUsers()) {
      auto reshape = dyn_cast<g::ReshapeOp>(u);
      if (!reshape)
        return false;
      ArrayRef<int64_t> o = reshape.getType().getShape();
      if (o.size() != 4 || o[0] != rt.getDimSize(0) || o[1] != rt.getDimSize(1) ||
          o[2] * o[3] != rt.getDimSize(2) || o[3] % 16 != 0 || o[3] > 128)
        return false;
    }
  }
  bool biased = static_cast<bool>(group[0].bias);
  auto w0 = tensorOf(group[0].mm.getRhs());
  for (Linear &l : group) {
    auto w = tensorOf(l.mm.getRhs());
    if (static_cast<bool>(l.bias) != biased ||
        w.getDimSize(0) != w0.getDimSize(0) ||
        w.getElementType() != w0.getElementType())
      return false;
  }
  return true;
}

/// Concat of constants along `axis`, folded into one constant.
FailureOr<Value> foldedConcat(OpBuilder &b, Location loc, ArrayRef<Value> parts,
                              int64_t axis) {
  SmallVector<int64_t> shape(tensorOf(parts[0]).getShape());
  shape[axis] = 0;
  for (Value p : parts)
    shape[axis] += tensorOf(p).getDimSize(axis);
  auto type = RankedTensorType::get(shape, tensorOf(parts[0]).getElementType());
  auto cat = g::ConcatOp::create(b, loc, type, parts, b.getI64IntegerAttr(axis));
  Value result = cat.getResult();
  // The concat has no users yet: fold it and find the constant it became.
  Operation *before = cat->getPrevNode();
  FailureOr<bool> folded =
      kiln::foldConstantOp(cat, b, std::numeric_limits<int64_t>::max());
  if (failed(folded) || !*folded)
    return failure();
  Operation *made = before ? before->getNextNode() : &b.getBlock()->front();
  (void)result;
  if (!made || !isa<g::ConstantOp>(made))
    return failure();
  return made->getResult(0);
}

LogicalResult mergeGroup(MutableArrayRef<Linear> group) {
  g::MatMulOp first = group[0].mm;
  // The merged ops go where the last sibling was, so every weight and the
  // input dominate them; each sibling's users come after its own op, which
  // may be before that: they are moved with a slice placed right after the
  // merged result, so put everything before the first use instead.
  Operation *insert = first;
  for (Linear &l : group)
    if (l.mm->isBeforeInBlock(insert))
      insert = l.mm;
  // The weights and biases (constants, no operands) move above it if a
  // later sibling's are defined below.
  for (Linear &l : group)
    for (Value c : {Value(l.mm.getRhs()), l.biasValue})
      if (c && insert->isBeforeInBlock(c.getDefiningOp()))
        c.getDefiningOp()->moveBefore(insert);
  OpBuilder b(insert);
  Location loc = FusedLoc::get(first.getContext(), [&] {
    SmallVector<Location> locs;
    for (Linear &l : group) {
      locs.push_back(l.mm.getLoc());
      if (l.bias)
        locs.push_back(l.bias.getLoc());
    }
    return locs;
  }());
  SmallVector<Value> weights, biases;
  for (Linear &l : group) {
    weights.push_back(l.mm.getRhs());
    if (l.bias)
      biases.push_back(l.biasValue);
  }
  FailureOr<Value> w = foldedConcat(b, loc, weights, 1);
  if (failed(w))
    return failure();
  SmallVector<int64_t> shape(first.getType().getShape());
  shape.back() = tensorOf(*w).getDimSize(1);
  auto type = RankedTensorType::get(shape, first.getType().getElementType());
  auto merged = g::MatMulOp::create(b, loc, type, first.getLhs(), *w);
  merged.setTf32(first.getTf32()); // The group agrees (mergeable).
  Value out = merged;
  if (!biases.empty()) {
    FailureOr<Value> bias = foldedConcat(b, loc, biases, 0);
    if (failed(bias))
      return failure();
    out = g::AddOp::create(b, loc, type, out, *bias);
  }
  int64_t offset = 0;
  for (Linear &l : group) {
    Operation *old = l.bias ? l.bias.getOperation() : l.mm.getOperation();
    auto oldType = cast<RankedTensorType>(old->getResult(0).getType());
    SmallVector<int64_t> starts(oldType.getRank(), 0), steps(oldType.getRank(), 1);
    starts.back() = offset;
    offset += oldType.getShape().back();
    Value piece = g::SliceOp::create(b, old->getLoc(), oldType, out,
                                     b.getDenseI64ArrayAttr(starts),
                                     b.getDenseI64ArrayAttr(steps));
    old->getResult(0).replaceAllUsesWith(piece);
  }
  // Erased only now: the builder inserts before one of them.
  for (Linear &l : group) {
    if (l.bias)
      l.bias.erase();
    l.mm.erase();
  }
  return success();
}

struct MergeSiblingsPass
    : kiln::impl::MergeSiblingsPassBase<MergeSiblingsPass> {
  void runOnOperation() override {
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      // Group the linear layers by their input, in program order.
      llvm::MapVector<Value, SmallVector<Linear>> byInput;
      fn.walk([&](g::MatMulOp mm) {
        if (std::optional<Linear> l = asLinear(mm))
          byInput[mm.getLhs()].push_back(*l);
      });
      for (auto &[input, group] : byInput) {
        (void)input;
        // One arithmetic for the merged product: all tf32 or none.
        bool mixed = llvm::any_of(group, [&](Linear &l) {
          return l.mm.getTf32() != group.front().mm.getTf32();
        });
        if (!mixed && siblingsWorthMerging(group) && failed(mergeGroup(group)))
          return signalPassFailure();
      }
    }
  }
};

} // namespace
