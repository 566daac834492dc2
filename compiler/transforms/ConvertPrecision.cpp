//===- ConvertPrecision.cpp - f32 graphs to f16/bf16/tf32 (--precision) ---===//
//
// `to` = tf32 keeps every tensor f32 (weights unrounded) and marks the f32
// matmuls and gemms `tf32`: their operands are rounded to tf32 where they
// are multiplied (the tensor cores' m16n8k8 tf32 mma; the evaluator rounds
// the same way), sums stay f32. Everything else computes in f32.
//
// `to` = f16 or bf16:
// Every f32 tensor of a graph function becomes `to` (f16 or bf16): weights
// are rounded (saturating to the target's finite range, so an exporter's
// f32 "minus infinity" mask constant stays finite and 0 * mask stays 0), op
// results are retyped, f32 function inputs are cast on entry and f32
// results cast back before the return, so the model's interface is
// unchanged. The kernels accumulate f16/bf16 reductions, softmax, layer norm
// and matmuls in f32.
//
// Index-derived values stay f32: a cast of integers to f32 and every op
// computing only from such values and f32 constants (a rotary embedding's
// positions times its frequencies, their cos and sin) keep f32 results, and
// are cast to `to` where an op outside that set uses them. Positions above
// 2048 (f16) or 256 (bf16) are not exact in half precision.
//
//===----------------------------------------------------------------------===//
#include "compiler/evaluator/Tensor.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

#define DEBUG_TYPE "kiln-convert-precision"

namespace kiln {
#define GEN_PASS_DEF_CONVERTPRECISIONPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

struct ConvertPrecisionPass
    : kiln::impl::ConvertPrecisionPassBase<ConvertPrecisionPass> {
  using ConvertPrecisionPassBase::ConvertPrecisionPassBase;

  /// to = tf32: every matmul and gemm of f32 operands (in fusion regions
  /// too) gets `tf32`; no type changes.
  void markTF32() {
    getOperation().walk([](Operation *op) {
      if (!isa<g::MatMulOp, g::GemmOp>(op))
        return;
      auto t = cast<RankedTensorType>(op->getOperand(0).getType());
      if (t.getElementType().isF32())
        op->setAttr("tf32", UnitAttr::get(op->getContext()));
    });
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (to == "tf32") {
      markTF32();
      return;
    }
    Type target;
    kiln::eval::DType targetD;
    double maxFinite;
    if (to == "f16") {
      target = Float16Type::get(ctx);
      targetD = kiln::eval::DType::F16;
      maxFinite = 65504.0;
    } else if (to == "bf16") {
      target = BFloat16Type::get(ctx);
      targetD = kiln::eval::DType::BF16;
      maxFinite = 3.3895313892515355e38;
    } else {
      getOperation().emitError() << "kiln-convert-precision: 'to' must be f16, "
                                    "bf16 or tf32, not '"
                                 << to << "'";
      return signalPassFailure();
    }
    auto isF32Tensor = [](Value v) {
      auto rt = dyn_cast<RankedTensorType>(v.getType());
      return rt && rt.getElementType().isF32();
    };
    llvm::DenseSet<Operation *> keptConstants;
    auto convert = [&](Type t) -> Type {
      auto rt = dyn_cast<RankedTensorType>(t);
      if (!rt || !rt.getElementType().isF32())
        return t;
      return RankedTensorType::get(rt.getShape(), target);
    };
    for (func::FuncOp fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isExternal() || !llvm::hasSingleElement(fn.getBody()))
        continue;
      Block &body = fn.getBody().front();
      OpBuilder b(ctx);
      // Index-derived ops, in program order (operands before users).
      llvm::SetVector<Operation *> indexDerived;
      auto derived = [&](Value v) {
        Operation *d = v.getDefiningOp();
        return d && indexDerived.count(d);
      };
      for (Operation &op : body.without_terminator()) {
        if (!isa<g::GraphDialect>(op.getDialect()) || isa<g::ConstantOp>(op) ||
            op.getNumResults() != 1 || !isF32Tensor(op.getResult(0)))
          continue;
        if (auto c = dyn_cast<g::CastOp>(op)) {
          Type in = cast<RankedTensorType>(c.getInput().getType()).getElementType();
          if (in.isIntOrIndex())
            indexDerived.insert(&op);
          continue;
        }
        bool any = false, all = true;
        for (Value v : op.getOperands()) {
          if (derived(v)) {
            any = true;
          } else if (isF32Tensor(v)) {
            all = all && v.getDefiningOp<g::ConstantOp>();
          }
        }
        if (any && all)
          indexDerived.insert(&op);
      }
      // f32 constants used by index-derived ops keep an f32 copy for them.
      SmallVector<g::ConstantOp> constants;
      fn.walk([&](g::ConstantOp c) { constants.push_back(c); });
      for (g::ConstantOp c : constants) {
        if (!isF32Tensor(c.getResult()))
          continue;
        bool kept = false, other = false;
        for (Operation *u : c->getUsers())
          (indexDerived.count(u) ? kept : other) = true;
        if (!kept)
          continue;
        b.setInsertionPointAfter(c);
        auto copy = cast<g::ConstantOp>(b.clone(*c));
        c.getResult().replaceUsesWithIf(copy.getResult(), [&](OpOperand &use) {
          return indexDerived.count(use.getOwner()) != 0;
        });
        keptConstants.insert(copy);
        (void)other;
      }
      // Weights.
      WalkResult walk = fn.walk([&](g::ConstantOp c) -> WalkResult {
        auto type = cast<RankedTensorType>(c.getType());
        if (!type.getElementType().isF32() || keptConstants.count(c))
          return WalkResult::advance();
        FailureOr<kiln::eval::Tensor> t = kiln::eval::tensorFromAttr(c.getValue());
        if (failed(t))
          return c.emitError() << "cannot convert this weight to " << to
                               << ": its data is not available (elided?)";
        kiln::eval::Tensor out(targetD, type.getShape());
        for (int64_t i = 0; i < t->numElements(); ++i) {
          double v = t->getDouble(i);
          if (std::isfinite(v))
            v = std::clamp(v, -maxFinite, maxFinite);
          out.setDouble(i, v);
        }
        auto newType = cast<RankedTensorType>(convert(type));
        ElementsAttr attr = kiln::eval::tensorToAttr(out, newType);
        std::string name = "converted";
        if (auto loc = dyn_cast<NameLoc>(c.getLoc()))
          name = loc.getName().str();
        c.setValueAttr(g::makeWeightAttr(cast<DenseElementsAttr>(attr), name));
        c.getResult().setType(newType);
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return signalPassFailure();
      // Op results, but for the index-derived ones.
      fn.walk([&](Operation *op) {
        if (isa<g::ConstantOp>(op) || !isa<g::GraphDialect>(op->getDialect()) ||
            indexDerived.count(op))
          return;
        for (Value r : op->getResults())
          r.setType(convert(r.getType()));
      });
      // Where an index-derived f32 value meets a converted op, cast it.
      for (Operation *op : indexDerived)
        for (Value r : op->getResults()) {
          if (!isF32Tensor(r))
            continue;
          Value casted;
          for (OpOperand &use : llvm::make_early_inc_range(r.getUses())) {
            Operation *user = use.getOwner();
            if (indexDerived.count(user) || isa<func::ReturnOp, g::CastOp>(user))
              continue;
            if (!casted) {
              // Saturating, as the weights are: an exporter's f32 lowest
              // value in a mask stays finite (so 0 * mask stays 0).
              b.setInsertionPointAfter(op);
              Value clipped =
                  g::ClipOp::create(b, op->getLoc(), r.getType(), r,
                                    b.getF64FloatAttr(-maxFinite),
                                    b.getF64FloatAttr(maxFinite))
                      .getResult();
              casted = g::CastOp::create(b, op->getLoc(), convert(r.getType()),
                                         clipped)
                           .getResult();
            }
            use.set(casted);
          }
        }
      // Region block arguments are converted like the inputs they stand for
      // (every f32 value becomes `to`, function inputs through their casts).
      fn.walk([&](g::FusionOp f) {
        for (BlockArgument arg : f.getBody().front().getArguments())
          arg.setType(convert(arg.getType()));
      });
      // Inputs are cast on entry, results back before the return.
      b.setInsertionPointToStart(&body);
      for (BlockArgument arg : body.getArguments()) {
        Type t = convert(arg.getType());
        if (t == arg.getType() || arg.use_empty())
          continue;
        auto cast = g::CastOp::create(b, arg.getLoc(), t, arg);
        arg.replaceAllUsesExcept(cast.getResult(), cast);
      }
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      b.setInsertionPoint(ret);
      for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
        Type want = fn.getFunctionType().getResult(i);
        if (v.getType() != want)
          ret.setOperand(i, g::CastOp::create(b, ret.getLoc(), want, v).getResult());
      }
    }
  }
};

} // namespace
