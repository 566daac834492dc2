//===- ConvToMatmul.cpp - Convolutions as matmuls (kiln-conv-to-matmul) ---===//
//
// A convolution without groups or padding whose windows do not overlap (a
// 1x1 kernel, whose dilation changes nothing, or undilated patches) is a
// matrix product per image: in NCHW, image n's windows are the
// columns of a [C * KH * KW, OH * OW] matrix (k ordered as the OIHW weight
// flattens), and its output the [OC, OH * OW] matrix W[OC, C * KH * KW] x
// cols(X[n]). kiln-conv-to-matmul rewrites such a graph.conv on f16 or bf16:
//  * 1x1 kernels (any strides): a strided slice where the strides exceed 1
//    (every s-th row and column), then the image is [C, OH * OW] as it lies;
//  * patch kernels (strides equal to the kernel, as ViT's patch embedding):
//    the image reshaped to [C, OH, KH, OW, KW] and transposed to
//    [C, KH, KW, OH, OW] (after a slice dropping rows and columns no window
//    covers);
// then reshape [N, K, OH * OW] -> matmul(reshape(W) [OC, K], .) ->
// add(reshape(bias) [OC, 1]) -> reshape [N, OC, OH, OW], so the tensor-core
// matmul kernels take it (with A broadcast over the images) instead of the
// direct convolution. Not bitwise the convolution: the product is rounded
// before the bias is added, as a separate Conv and Add would round it.
//
//===----------------------------------------------------------------------===//
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "kiln-conv-to-matmul"

namespace kiln {
#define GEN_PASS_DEF_CONVTOMATMULPASS
#include "compiler/transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
namespace g = kiln::graph;

namespace {

struct ConvToMatmul : OpRewritePattern<g::ConvOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(g::ConvOp op,
                                PatternRewriter &rewriter) const override {
    auto in = cast<RankedTensorType>(op.getInput().getType());
    auto w = cast<RankedTensorType>(op.getWeight().getType());
    auto out = cast<RankedTensorType>(op.getType());
    Type et = in.getElementType();
    if (!et.isF16() && !et.isBF16())
      return rewriter.notifyMatchFailure(op, "only f16 and bf16");
    if (in.getRank() != 4 || !in.hasStaticShape() || !w.hasStaticShape() ||
        !out.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "only static 2-D convolutions");
    if (op.getGroup() != 1)
      return rewriter.notifyMatchFailure(op, "grouped");
    if (llvm::any_of(op.getPads(), [](int64_t p) { return p != 0; }))
      return rewriter.notifyMatchFailure(op, "padded");
    ArrayRef<int64_t> strides = op.getStrides();
    const int64_t n = in.getDimSize(0), c = in.getDimSize(1),
                  oc = w.getDimSize(0), kh = w.getDimSize(2),
                  kw = w.getDimSize(3), oh = out.getDimSize(2),
                  ow = out.getDimSize(3);
    const bool pointwise = kh == 1 && kw == 1;
    const bool patches = strides[0] == kh && strides[1] == kw &&
                         llvm::all_of(op.getDilations(),
                                      [](int64_t d) { return d == 1; });
    if (!pointwise && !patches)
      return rewriter.notifyMatchFailure(
          op, "windows overlap or skip (not 1x1, strides not the kernel)");
    Location loc = op.getLoc();
    Value x = op.getInput();
    auto slice = [&](ArrayRef<int64_t> shape, ArrayRef<int64_t> steps) {
      x = g::SliceOp::create(rewriter, loc, RankedTensorType::get(shape, et),
                             x, rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
                             rewriter.getDenseI64ArrayAttr(steps));
    };
    const int64_t k = c * kh * kw;
    if (pointwise) {
      // The pixels the kernel visits: every s-th row and column from the
      // first (no padding, so OH = ceil(H / s)).
      if (strides[0] != 1 || strides[1] != 1)
        slice({n, c, oh, ow}, {1, 1, strides[0], strides[1]});
    } else {
      // The rows and columns the windows cover (OH = floor(H / KH)).
      if (in.getDimSize(2) != oh * kh || in.getDimSize(3) != ow * kw)
        slice({n, c, oh * kh, ow * kw}, {1, 1, 1, 1});
      x = g::ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({n, c, oh, kh, ow, kw}, et), x);
      x = g::TransposeOp::create(
          rewriter, loc, RankedTensorType::get({n, c, kh, kw, oh, ow}, et), x,
          rewriter.getDenseI64ArrayAttr({0, 1, 3, 5, 2, 4}));
    }
    Value xm = g::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get({n, k, oh * ow}, et), x);
    Value wm = g::ReshapeOp::create(
        rewriter, loc, RankedTensorType::get({oc, k}, et), op.getWeight());
    auto productType = RankedTensorType::get({n, oc, oh * ow}, et);
    Value y = g::MatMulOp::create(rewriter, loc, productType, wm, xm,
                                  /*tf32=*/false);
    if (Value bias = op.getBias()) {
      Value column = g::ReshapeOp::create(
          rewriter, loc, RankedTensorType::get({oc, 1}, et), bias);
      y = g::AddOp::create(rewriter, loc, productType, y, column);
    }
    rewriter.replaceOpWithNewOp<g::ReshapeOp>(op, out, y);
    return success();
  }
};

struct ConvToMatmulPass
    : kiln::impl::ConvToMatmulPassBase<ConvToMatmulPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConvToMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
