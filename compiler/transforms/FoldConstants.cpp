//===- FoldConstants.cpp - Evaluate graph ops on constant operands --------===//
#include "compiler/transforms/FoldConstants.h"
#include "compiler/transforms/Passes.h"

#include "compiler/evaluator/Evaluator.h"
#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "kiln-fold-constants"

using namespace mlir;
namespace graph = kiln::graph;
namespace eval = kiln::eval;

namespace kiln {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

FailureOr<bool> kiln::foldConstantOp(Operation *op, OpBuilder &builder,
                                     int64_t maxElements) {
  if (isa<graph::ConstantOp>(op) || !eval::canEvaluate(op))
    return false;
  SmallVector<graph::ConstantOp> producers;
  for (Value v : op->getOperands()) {
    auto c = v.getDefiningOp<graph::ConstantOp>();
    if (!c)
      return false;
    producers.push_back(c);
  }
  SmallVector<RankedTensorType> resultTypes;
  for (Type t : op->getResultTypes()) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return false;
    if (rt.getNumElements() > maxElements) {
      LLVM_DEBUG(llvm::dbgs()
                 << "not folding " << op->getName() << " at " << op->getLoc()
                 << ": result of " << rt.getNumElements() << " elements\n");
      return false;
    }
    resultTypes.push_back(rt);
  }

  SmallVector<eval::Tensor> operands;
  for (graph::ConstantOp c : producers) {
    FailureOr<eval::Tensor> t = eval::tensorFromAttr(c.getValue());
    if (failed(t)) { // E.g. an elided dense_resource: nothing to fold with.
      LLVM_DEBUG(llvm::dbgs() << "not folding " << op->getName() << " at "
                              << op->getLoc() << ": unreadable constant\n");
      return false;
    }
    operands.push_back(std::move(*t));
  }
  FailureOr<SmallVector<eval::Tensor>> results = eval::evaluateOp(op, operands);
  if (failed(results))
    return failure();

  SmallVector<ElementsAttr> values;
  for (auto [t, type] : llvm::zip_equal(*results, resultTypes)) {
    ElementsAttr attr = eval::tensorToAttr(t, type);
    if (!attr)
      return op->emitError()
             << "internal error: evaluated result does not fit " << type;
    // Folded weights (a transposed or scaled initializer) stay out of the
    // printed IR like the initializers they came from.
    std::string name = "folded";
    if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
      name = loc.getName().str();
    values.push_back(graph::makeWeightAttr(cast<DenseElementsAttr>(attr), name));
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  for (auto [result, type, attr] :
       llvm::zip_equal(op->getResults(), resultTypes, values))
    result.replaceAllUsesWith(
        graph::ConstantOp::create(builder, op->getLoc(), type, attr)
            .getResult());
  op->erase();
  return true;
}

namespace {
struct FoldConstantsPass
    : kiln::impl::FoldConstantsPassBase<FoldConstantsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Program order: a folded producer is a constant by the time its users
    // are visited, so chains fold in one sweep.
    SmallVector<Operation *> candidates;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa_and_nonnull<graph::GraphDialect>(op->getDialect()) &&
          !isa<graph::ConstantOp>(op))
        candidates.push_back(op);
    });

    OpBuilder builder(&getContext());
    for (Operation *op : candidates) {
      // The evaluator reports errors (an out-of-range constant index, say);
      // folding is an optimization, so they become a warning and the op stays.
      std::string reason;
      FailureOr<bool> folded = false;
      {
        ScopedDiagnosticHandler capture(&getContext(), [&](Diagnostic &d) {
          if (reason.empty())
            reason = d.str();
          return success();
        });
        folded = kiln::foldConstantOp(op, builder, maxElements);
      }
      if (failed(folded)) {
        op->emitWarning() << "not folded: " << reason;
        continue;
      }
      if (*folded)
        ++numFolded;
    }
    // Constants are pure: the folded operands and results nobody uses go.
    getOperation()->walk([](graph::ConstantOp c) {
      if (c->use_empty())
        c->erase();
    });
  }
};
} // namespace
