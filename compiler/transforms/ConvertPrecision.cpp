//===- ConvertPrecision.cpp - f32 graphs to f16/bf16 (--precision) --------===//
//
// Every f32 tensor of a graph function becomes `to` (f16 or bf16): weights
// are rounded (saturating to the target's finite range, so an exporter's
// f32 "minus infinity" mask constant stays finite and 0 * mask stays 0), op
// results are retyped, f32 function inputs are cast on entry and f32
// results cast back before the return, so the model's interface is
// unchanged. The kernels accumulate f16/bf16 reductions, softmax, layer norm
// and matmuls in f32.
//
//===----------------------------------------------------------------------===//
#include "compiler/evaluator/Tensor.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

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

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
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
      getOperation().emitError() << "kiln-convert-precision: 'to' must be f16 "
                                    "or bf16, not '"
                                 << to << "'";
      return signalPassFailure();
    }
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
      // Weights.
      WalkResult walk = fn.walk([&](g::ConstantOp c) -> WalkResult {
        auto type = cast<RankedTensorType>(c.getType());
        if (!type.getElementType().isF32())
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
      // Op results.
      fn.walk([&](Operation *op) {
        if (isa<g::ConstantOp>(op) || !isa<g::GraphDialect>(op->getDialect()))
          return;
        for (Value r : op->getResults())
          r.setType(convert(r.getType()));
      });
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
