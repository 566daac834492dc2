//===- DecomposeForKernels.cpp - Ops without kernels into ops with them ---===//
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "kiln-decompose-for-kernels"

namespace kiln {
#define GEN_PASS_DEF_DECOMPOSEFORKERNELSPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

/// gather_nd(data, idx) (batch_dims 0, tuples of k) ==
///   gather(reshape(data, [prod(d[:k]), d[k:]...]), sum_j(wrap(idx_j) * stride_j))
struct GatherNDToGather : OpRewritePattern<g::GatherNDOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::GatherNDOp op, PatternRewriter &rewriter) const override {
    if (op.getBatchDims() != 0)
      return rewriter.notifyMatchFailure(op, "batch_dims > 0 has no decomposition yet");
    auto data = op.getData().getType();
    auto idx = op.getIndices().getType();
    Location loc = op.getLoc();
    int64_t k = idx.getShape().back();
    ArrayRef<int64_t> indexed = data.getShape().take_front(k);
    SmallVector<int64_t> strides(k, 1);
    for (int64_t j = k - 2; j >= 0; --j)
      strides[j] = strides[j + 1] * indexed[j + 1];
    int64_t rows = 1;
    for (int64_t d : indexed)
      rows *= d;
    Type it = idx.getElementType();
    auto vecType = RankedTensorType::get({k}, it);
    auto intAttr = [&](ArrayRef<int64_t> v) {
      SmallVector<APInt> vals;
      for (int64_t x : v)
        vals.push_back(APInt(it.getIntOrFloatBitWidth(), x, /*isSigned=*/true));
      return DenseElementsAttr::get(vecType, vals);
    };
    Value dims = g::ConstantOp::create(rewriter, loc, vecType, intAttr(indexed));
    Value strideVec = g::ConstantOp::create(rewriter, loc, vecType, intAttr(strides));
    auto zeroType = RankedTensorType::get({}, it);
    Value zero = g::ConstantOp::create(
        rewriter, loc, zeroType,
        DenseElementsAttr::get(zeroType, APInt(it.getIntOrFloatBitWidth(), 0)));
    auto boolType = RankedTensorType::get(idx.getShape(), rewriter.getI1Type());
    Value negative = g::LessOp::create(rewriter, loc, boolType, op.getIndices(), zero);
    Value shifted = g::AddOp::create(rewriter, loc, idx, op.getIndices(), dims);
    Value wrapped = g::WhereOp::create(rewriter, loc, idx, negative, shifted, op.getIndices());
    Value scaled = g::MulOp::create(rewriter, loc, idx, wrapped, strideVec);
    SmallVector<int64_t> linShape(idx.getShape().drop_back());
    auto linType = RankedTensorType::get(linShape, it);
    Value linear = g::ReduceSumOp::create(rewriter, loc, linType, scaled,
                                          rewriter.getDenseI64ArrayAttr({idx.getRank() - 1}),
                                          rewriter.getBoolAttr(false));
    SmallVector<int64_t> flatShape{rows};
    llvm::append_range(flatShape, data.getShape().drop_front(k));
    Value flat = g::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get(flatShape, data.getElementType()), op.getData());
    rewriter.replaceOpWithNewOp<g::GatherOp>(op, op.getType(), flat, linear,
                                             rewriter.getI64IntegerAttr(0));
    return success();
  }
};

struct DecomposeForKernelsPass
    : kiln::impl::DecomposeForKernelsPassBase<DecomposeForKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<GatherNDToGather>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
