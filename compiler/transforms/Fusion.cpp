//===- Fusion.cpp - Group graph ops into fusion regions (kiln-fuse) -------===//
//
// Elementwise fusion: chains and trees of elementwise ops, casts and expands
// (and reshapes and transposes, as index maps) become one
// `graph.fusion "elementwise"` region, lowered to one kernel that reads each
// input once per output element and writes only the region's result.
//
// Grouping: ops are visited last to first. An op that may be fused joins the
// group of its users when all of them are in one group and the cost model
// accepts it; otherwise it roots a new group. A member's users are therefore
// all inside its group, so only the root's value leaves it, and a group can
// never depend on itself through an op outside it (the root is its last op
// and every path out of the group leaves through the root).
//
// Multi-output: an op whose users lie in several groups (or in one group and
// outside any) may instead merge those groups and join them; a member whose
// value is still needed outside becomes one more result of the region. The
// region then sits where its last result is computed, so every outside user
// of every result must come after that point (which also keeps the region's
// inputs, all computed before it, from depending on its results).
//
// Every decision is a method of FusionCostModel below.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/FoldConstants.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/FusionMaps.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

#define DEBUG_TYPE "kiln-fuse"

namespace kiln {
#define GEN_PASS_DEF_FUSEPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

int64_t elements(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

/// The fusion cost model: what may be fused and when fusing pays.
struct FusionCostModel {
  /// Largest factor by which a member may be recomputed (a value broadcast
  /// into a larger root is computed once per root element). Cheap ops are
  /// always worth recomputing inside a memory-bound kernel; transcendental
  /// ones only up to this factor.
  int64_t maxExpensiveRecompute = 8;
  /// Matmul epilogues (the "matmul" region kind).
  bool epilogues = true;

  /// `op` may be a member of an elementwise region.
  bool fusible(Operation *op) const {
    if (op->getNumResults() != 1 || elements(op->getResult(0)) == 0)
      return false;
    if (g::isIndexMapOp(op))
      return indexMaps && coalesced(op);
    return g::isElementwiseFusible(op);
  }

  /// Reshapes and transposes join as index maps (`indexMaps`). A reshape
  /// keeps every flat offset. A transpose's reads stay coalesced only when
  /// its innermost output axis (of extent > 1) is the input's innermost, for
  /// at least one 32-byte sector; other transposes are the tiled transpose
  /// kernel's.
  bool indexMaps = true;
  bool coalesced(Operation *op) const {
    auto t = dyn_cast<g::TransposeOp>(op);
    if (!t)
      return true;
    auto innermost = [](ArrayRef<int64_t> shape) {
      int64_t d = static_cast<int64_t>(shape.size()) - 1;
      while (d >= 0 && shape[d] == 1)
        --d;
      return d;
    };
    ArrayRef<int64_t> out = t.getType().getShape();
    int64_t d = innermost(out);
    if (d < 0)
      return true;
    int64_t bits = t.getType().getElementTypeBitWidth();
    return t.getPerm()[d] == innermost(t.getInput().getType().getShape()) &&
           out[d] * bits >= 32 * 8;
  }

  /// Ops whose recomputation costs more than a few instructions.
  bool expensive(Operation *op) const {
    return isa<g::ExpOp, g::LogOp, g::ErfOp, g::TanhOp, g::SigmoidOp, g::SinOp,
               g::CosOp, g::PowOp, g::GeluOp, g::SqrtOp, g::DivOp,
               g::ReciprocalOp>(op);
  }

  /// `producer` may join the group whose root produces `root`.
  bool canJoin(Operation *producer, Operation *root) const {
    int64_t p = elements(producer->getResult(0));
    int64_t r = elements(root->getResult(0));
    if (p > r)
      return false;
    return r / p <= 1 || !expensive(producer) || r / p <= maxExpensiveRecompute;
  }

  /// `op` may be the producer of an epilogue region: a float matmul of rows
  /// by one 2-D matrix (the linear layers), whose kernel can apply the
  /// elementwise ops after it to each output element.
  bool epilogueProducer(Operation *op) const {
    auto mm = dyn_cast<g::MatMulOp>(op);
    return epilogues && mm && g::isFloatType(mm.getType().getElementType()) &&
           mm.getRhs().getType().getRank() == 2 &&
           mm.getLhs().getType().getRank() >= 2 && elements(mm.getResult()) > 0;
  }

  /// `op` may be a region's last op. A reshape there saves nothing (it is a
  /// view either way) and would keep the chain before it from being a
  /// matmul's epilogue: reshapes join only between members.
  bool mayRoot(Operation *op) const { return !isa<g::ReshapeOp>(op); }

  /// `op` would rather stay the epilogue of the matmul producing one of its
  /// operands (its only user) than join a region with index maps, whose
  /// matmul could then not join: a fused bias beats a fused transpose (which
  /// a batched matmul or attention often reads for free anyway).
  bool prefersEpilogue(Operation *op) const {
    return llvm::any_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && def->hasOneUse() && epilogueProducer(def);
    });
  }

  /// An epilogue operand must index the flattened [rows, N] output: a
  /// scalar, a row vector over N (a bias), or the output's own shape (a
  /// residual).
  bool epilogueOperand(Value v, Value product) const {
    ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
    ArrayRef<int64_t> o = cast<RankedTensorType>(product.getType()).getShape();
    if (elements(v) == 1 || s == o)
      return true;
    return !s.empty() && s.back() == o.back() && elements(v) == s.back();
  }

  /// A Gemm that is a linear layer (alpha = beta = 1, A not transposed, B
  /// a 2-D matrix that is either not transposed or a constant) whose only
  /// user could be its epilogue becomes MatMul + Add(C), so the bias and
  /// what follows join the matmul's region. (The product is then rounded
  /// before the bias is added, as a separate add would see it: at most one
  /// ulp from Gemm's single rounding.)
  bool splitGemm(g::GemmOp gemm) const {
    if (!epilogues || gemm.getTransA() || gemm.getAlpha().convertToFloat() != 1.0f ||
        (gemm.getC() && gemm.getBeta().convertToFloat() != 1.0f) ||
        !g::isFloatType(gemm.getType().getElementType()) ||
        elements(gemm.getResult()) == 0 || gemm->use_empty())
      return false;
    if (gemm.getTransB() && !gemm.getB().getDefiningOp<g::ConstantOp>())
      return false;
    auto allFusible = [&](Operation *op) {
      return !op->use_empty() &&
             llvm::all_of(op->getUsers(), [&](Operation *u) { return fusible(u); });
    };
    // Exporters of Conv1D-style layers reshape the product back to
    // [..., N] before the bias's users.
    if (gemm->hasOneUse())
      if (auto r = dyn_cast<g::ReshapeOp>(*gemm->getUsers().begin())) {
        // The bias then broadcasts to [..., N]: a scalar or N elements only.
        int64_t n = gemm.getType().getDimSize(1);
        if (Value c = gemm.getC())
          if (elements(c) != 1 &&
              (elements(c) != n || cast<RankedTensorType>(c.getType()).getShape().back() != n))
            return false;
        ArrayRef<int64_t> shape = r.getType().getShape();
        return !shape.empty() && shape.back() == n && allFusible(r);
      }
    return allFusible(gemm);
  }

  /// Elementwise regions with several results (`multiOutput`): `op`,
  /// whose users are in `groups` regions (and maybe outside any), may merge
  /// them and join when every result is of one shape, `shape`: one index
  /// space for the kernel, each thread computing each shared value once.
  /// `op` itself becomes a result when it has users outside (`external`), so
  /// it must then have that shape too; otherwise it may be broadcast into it
  /// like any member.
  bool mayShareKernel(Operation *op, size_t groups, bool external,
                      ArrayRef<int64_t> shape) const {
    if (!multiOutput || (groups < 2 && !external))
      return false;
    ArrayRef<int64_t> own =
        cast<RankedTensorType>(op->getResult(0).getType()).getShape();
    return !external || own == shape;
  }
  bool multiOutput = true;

  /// A group pays off as a region when it saves at least one launch (a
  /// reshape on its own is a view, no launch).
  bool worthARegion(const llvm::SetVector<Operation *> &members) const {
    return llvm::count_if(members, [](Operation *op) {
             return !isa<g::ReshapeOp>(op);
           }) >= 2;
  }
};

class Fuser {
public:
  Fuser(func::FuncOp fn, const FusionCostModel &model) : fn(fn), model(model) {}

  /// Forms the groups and rewrites each into a region; returns the number
  /// of regions made.
  int64_t run() {
    Block &body = fn.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (model.epilogueProducer(op)) {
        int group = commonUserGroup(op);
        // The region's result is the product's type: the epilogue maps each
        // product element to one result element of the same dtype.
        if (group >= 0 && !groups[group].matmul && !groups[group].merged &&
            !hasIndexMaps(groups[group].members) &&
            op->getResult(0).getType() == groups[group].root->getResult(0).getType()) {
          groupOf[op] = group;
          groups[group].members.insert(op);
          groups[group].matmul = op;
        }
        continue;
      }
      if (!model.fusible(op))
        continue;
      int group = commonUserGroup(op);
      // Nothing computes a matmul's operands inside its region, and an
      // epilogue indexes the product's rows (no index maps).
      if (group >= 0 && groups[group].matmul &&
          (llvm::is_contained(op->getUsers(), groups[group].matmul) ||
           g::isIndexMapOp(op)))
        group = -1;
      if (group >= 0 && hasIndexMaps(groups[group].members) &&
          model.prefersEpilogue(op))
        group = -1;
      if (group >= 0 && model.canJoin(op, groups[group].root) &&
          mapsExist(groups[group].members, op)) {
        groupOf[op] = group;
        groups[group].members.insert(op);
        continue;
      }
      if (group < 0 && joinSeveral(op))
        continue;
      if (!model.mayRoot(op))
        continue;
      groupOf[op] = static_cast<int>(groups.size());
      groups.push_back({op, {}, nullptr});
      groups.back().members.insert(op);
    }
    int64_t made = 0;
    for (Group &grp : groups)
      if (grp.matmul && !epilogueOperandsOk(grp)) {
        grp.members.remove(grp.matmul); // the product stays a matmul
        grp.matmul = nullptr;
      }
    for (Group &grp : groups)
      if (!grp.dead && model.worthARegion(grp.members)) {
        outline(grp);
        ++made;
      }
    return made;
  }

private:
  struct Group {
    Operation *root;
    llvm::SetVector<Operation *> members; // insertion order: root first
    Operation *matmul;                    // the epilogue's producer, if any
    bool merged = false; // several results (joinSeveral): no epilogue
    bool dead = false;   // merged into another group
  };

  /// Members of `members` with a user outside them: the region's results.
  static SmallVector<Operation *>
  resultsOf(const llvm::SetVector<Operation *> &members) {
    SmallVector<Operation *> out;
    for (Operation *m : members)
      if (llvm::any_of(m->getUsers(),
                       [&](Operation *u) { return !members.contains(u); }))
        out.push_back(m);
    return out;
  }

  /// Multi-output: `op`'s users span several elementwise groups, or one and
  /// ops outside any. Merges those groups and adds `op` when the cost model
  /// agrees and the merged region can sit at its last result (every outside
  /// user of every result after it).
  bool joinSeveral(Operation *op) {
    SmallVector<int> targets;
    bool external = false;
    for (Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      if (it == groupOf.end()) {
        external = true;
        continue;
      }
      if (!llvm::is_contained(targets, it->second))
        targets.push_back(it->second);
    }
    if (targets.empty())
      return false;
    for (int t : targets)
      if (groups[t].matmul)
        return false;
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(groups[targets[0]].root->getResult(0).getType())
            .getShape();
    llvm::SetVector<Operation *> members;
    for (int t : targets)
      members.insert(groups[t].members.begin(), groups[t].members.end());
    members.insert(op);
    SmallVector<Operation *> results = resultsOf(members);
    for (Operation *r : results)
      if (cast<RankedTensorType>(r->getResult(0).getType()).getShape() != shape)
        return false;
    if (!model.mayShareKernel(op, targets.size(), external, shape) ||
        !model.canJoin(op, groups[targets[0]].root) || !mapsExist(members))
      return false;
    Operation *last = results.front();
    for (Operation *r : results)
      if (last->isBeforeInBlock(r))
        last = r;
    for (Operation *r : results)
      for (Operation *u : r->getUsers())
        if (!members.contains(u) && (u->getBlock() != last->getBlock() ||
                                     !last->isBeforeInBlock(u)))
          return false;
    Group &into = groups[targets[0]];
    for (int t : ArrayRef<int>(targets).drop_front()) {
      for (Operation *m : groups[t].members)
        groupOf[m] = targets[0];
      groups[t].members.clear();
      groups[t].dead = true;
    }
    into.members = std::move(members);
    into.root = last;
    into.merged = true;
    groupOf[op] = targets[0];
    return true;
  }

  static bool hasIndexMaps(const llvm::SetVector<Operation *> &members) {
    return llvm::any_of(members, [](Operation *m) { return g::isIndexMapOp(m); });
  }

  /// Whether `members` (and `extra`) as one region give every value one
  /// index map (always so without reshapes and transposes).
  static bool mapsExist(const llvm::SetVector<Operation *> &members,
                        Operation *extra = nullptr) {
    if (!hasIndexMaps(members) && !(extra && g::isIndexMapOp(extra)))
      return true;
    llvm::SetVector<Operation *> all = members;
    if (extra)
      all.insert(extra);
    SmallVector<Operation *> ordered(all.begin(), all.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    SmallVector<Value> results;
    for (Operation *r : resultsOf(all))
      results.push_back(r->getResult(0));
    return g::computeRegionMaps(ordered, results).has_value();
  }

  /// The group every user of `op` belongs to, or -1.
  int commonUserGroup(Operation *op) {
    int group = -1;
    for (Operation *user : op->getUsers()) {
      auto it = groupOf.find(user);
      if (it == groupOf.end())
        return -1;
      if (group >= 0 && group != it->second)
        return -1;
      group = it->second;
    }
    return group;
  }

  /// Every region input but the matmul's operands can be read by the
  /// epilogue.
  bool epilogueOperandsOk(const Group &grp) const {
    Operation *mm = grp.matmul;
    for (Operation *op : grp.members)
      for (Value v : op->getOperands())
        if (!grp.members.contains(v.getDefiningOp()) && op != mm &&
            !model.epilogueOperand(v, mm->getResult(0)))
          return false;
    return true;
  }

  /// Replaces the group's ops by one graph.fusion before its root.
  void outline(Group &grp) {
    // Members in program order (the root is last).
    SmallVector<Operation *> members(grp.members.begin(), grp.members.end());
    llvm::sort(members, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    llvm::SetVector<Value> inputs;
    for (Operation *op : members)
      for (Value v : op->getOperands())
        if (!grp.members.contains(v.getDefiningOp()))
          inputs.insert(v);
    SmallVector<Location> locs;
    for (Operation *op : members)
      locs.push_back(op->getLoc());
    // The results in program order; the last is computed last (a member
    // that is not a result has all its users after it, inside the group).
    SmallVector<Operation *> results = resultsOf(grp.members);
    llvm::sort(results, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    SmallVector<Type> types;
    for (Operation *r : results)
      types.push_back(r->getResult(0).getType());
    Operation *root = results.back();
    OpBuilder b(root);
    auto fusion = g::FusionOp::create(
        b, FusedLoc::get(fn.getContext(), locs), types,
        b.getStringAttr(grp.matmul ? "matmul" : "elementwise"),
        inputs.getArrayRef());
    Block *block = new Block();
    fusion.getBody().push_back(block);
    IRMapping map;
    for (Value v : inputs)
      map.map(v, block->addArgument(v.getType(), v.getLoc()));
    OpBuilder inner = OpBuilder::atBlockEnd(block);
    for (Operation *op : members)
      inner.clone(*op, map);
    SmallVector<Value> yielded;
    for (Operation *r : results)
      yielded.push_back(map.lookup(r->getResult(0)));
    g::YieldOp::create(inner, root->getLoc(), yielded);
    for (auto [i, r] : llvm::enumerate(results))
      r->getResult(0).replaceAllUsesWith(fusion.getResult(i));
    for (Operation *op : llvm::reverse(members))
      op->erase();
  }

  func::FuncOp fn;
  const FusionCostModel &model;
  std::vector<Group> groups;
  DenseMap<Operation *, int> groupOf;
};

/// Gemm(a, b, c) -> Add(MatMul(a, b'), c), b' = b or its transpose folded
/// into a constant (FusionCostModel::splitGemm chose it).
LogicalResult splitGemm(g::GemmOp gemm) {
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  Value rhs = gemm.getB();
  g::TransposeOp transposed;
  if (gemm.getTransB()) {
    auto bt = cast<RankedTensorType>(rhs.getType());
    transposed = g::TransposeOp::create(
        b, loc,
        RankedTensorType::get({bt.getDimSize(1), bt.getDimSize(0)},
                              bt.getElementType()),
        rhs, b.getDenseI64ArrayAttr({1, 0}));
    rhs = transposed.getResult();
  }
  // With a reshape to [..., N] after it, the product is computed in that
  // shape (rows of A viewed as [..., K]) and the reshape goes away.
  Operation *replaced = gemm;
  RankedTensorType type = gemm.getType();
  Value lhs = gemm.getA();
  auto r = gemm->hasOneUse() ? dyn_cast<g::ReshapeOp>(*gemm->getUsers().begin())
                             : g::ReshapeOp();
  if (r) {
    type = r.getType();
    SmallVector<int64_t> rows(type.getShape());
    rows.back() = cast<RankedTensorType>(lhs.getType()).getDimSize(1);
    lhs = g::ReshapeOp::create(
        b, loc, RankedTensorType::get(rows, type.getElementType()), lhs);
    replaced = r;
  }
  auto product = g::MatMulOp::create(b, loc, type, lhs, rhs);
  product.setTf32(gemm.getTf32());
  Value out = product;
  if (Value c = gemm.getC())
    out = g::AddOp::create(b, loc, type, out, c);
  replaced->getResult(0).replaceAllUsesWith(out);
  if (replaced != gemm)
    replaced->erase();
  gemm.erase();
  if (transposed) {
    FailureOr<bool> folded = kiln::foldConstantOp(
        transposed, b, std::numeric_limits<int64_t>::max());
    if (failed(folded))
      return failure();
  }
  return success();
}

struct FusePass : kiln::impl::FusePassBase<FusePass> {
  using FusePassBase::FusePassBase;
  void runOnOperation() override {
    FusionCostModel model;
    model.maxExpensiveRecompute = maxExpensiveRecompute;
    model.epilogues = epilogues;
    model.multiOutput = multiOutput;
    model.indexMaps = indexMaps;
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || !llvm::hasSingleElement(fn.getBody()))
        continue;
      SmallVector<g::GemmOp> gemms;
      fn.walk([&](g::GemmOp gemm) {
        if (model.splitGemm(gemm))
          gemms.push_back(gemm);
      });
      for (g::GemmOp gemm : gemms)
        if (failed(splitGemm(gemm)))
          return signalPassFailure();
      numRegions += Fuser(fn, model).run();
    }
  }
};

} // namespace
