//===- Passes.td - Kiln graph passes -----------------------*- tablegen -*-===//
//
// Declarations of the passes over the graph dialect.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TRANSFORMS_PASSES
#define KILN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def FoldConstantsPass : Pass<"kiln-fold-constants", "mlir::ModuleOp"> {
  let summary = "evaluate graph ops whose operands are all constants";
  let description = [{
    Every graph op whose operands all come from `graph.constant` is evaluated
    with the CPU reference evaluator (ONNX semantics, results rounded to their
    element type) and replaced by a `graph.constant` that keeps the op's
    location. Ops are visited in program order, so chains of constant ops
    fold completely; constants left without uses are erased.

    Results with more than `max-elements` elements are not materialized, so
    weight-sized intermediates (a transposed weight, say) stay ops. An op the
    evaluator rejects (an out-of-range constant index, say) stays in place
    with a warning that says why.

    ```mlir
    %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = graph.constant dense<3.0> : tensor<f32>
    %c = graph.mul %a, %b : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
    ```
    becomes `%c = graph.constant dense<[3.0, 6.0]> : tensor<2xf32>`.
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"int64_t(1) << 20",
           "Largest result (in elements) that is folded into a constant">,
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Number of ops folded into constants">,
  ];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def DecomposeForKernelsPass : Pass<"kiln-decompose-for-kernels", "mlir::ModuleOp"> {
  let summary = "rewrite graph ops without a kernel of their own into ops that have one";
  let description = [{
    Runs right before lowering to the kernel dialect (not part of the -O graph
    pipeline, so `--emit=graph` still shows the ONNX-level op). Today:
    `graph.gather_nd` with `batch_dims = 0` becomes a linear index
    (negative indices wrapped, times the row-major strides of the indexed
    axes, summed over the tuple) and a `graph.gather` on `data` reshaped to
    `[prod(indexed axes), rest...]`.
  }];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def FusePass : Pass<"kiln-fuse", "mlir::ModuleOp"> {
  let summary = "group elementwise chains into graph.fusion regions (one kernel each)";
  let description = [{
    Producer-consumer chains and trees of elementwise ops, casts and expands
    become one `graph.fusion "elementwise"` region: the values inside never
    touch memory, and the region is one kernel. An op joins the region of its
    users when all of its users are in that region and the cost model
    (FusionCostModel in Fusion.cpp: recomputation of values broadcast into a
    larger result, what counts as expensive) accepts it. The region's
    location fuses its members' locations, so profiles and
    `kilnc --report-fusion` name every ONNX node it covers.

    ```mlir
    %0 = graph.add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    %1 = graph.relu %0 : tensor<4x8xf32> -> tensor<4x8xf32>
    ```
    becomes one `graph.fusion "elementwise" (%x, %b)` holding both.

    With `epilogues`, a float matmul of rows by one 2-D matrix joins the
    region of its users (all in one region, with the product's type as the result) when every other region input is a scalar, a
    row vector over N or of the product's shape: a `graph.fusion "matmul"`
    region, lowered to one matmul kernel with an epilogue program. A Gemm
    that is a linear layer (alpha = beta = 1, A not transposed, B not
    transposed or constant) whose users are elementwise first becomes MatMul
    + Add so it can: the product is then rounded before the bias is added
    (at most one ulp from Gemm's single rounding; checked at a tolerance).

    With `multi-output`, an op whose users lie in several elementwise regions
    (or in one and outside) merges them and joins: one kernel with a result
    per value still needed outside, all of one shape, the shared values
    computed once. The region sits at its last result, so every outside user
    of a result must come after it.

    With `index-maps`, reshapes and transposes join elementwise regions as
    index maps (dialects/graph/FusionMaps.h): an elementwise chain through
    them is one kernel, reading each input through its strided map. A
    transpose joins only when its innermost output axis is the input's
    innermost axis for at least 32 bytes (coalesced reads; others stay the
    tiled transpose kernel), and every value must have one map.
  }];
  let options = [
    Option<"multiOutput", "multi-output", "bool", /*default=*/"true",
           "Merge regions that share a producer into one kernel with several "
           "results">,
    Option<"indexMaps", "index-maps", "bool", /*default=*/"true",
           "Fuse reshapes and transposes into elementwise regions as index "
           "maps">,
    Option<"epilogues", "epilogues", "bool", /*default=*/"true",
           "Also fuse a linear layer's matmul with the elementwise ops after it "
           "(a \"matmul\" region: the product's epilogue)">,
    Option<"maxExpensiveRecompute", "max-expensive-recompute", "int64_t",
           /*default=*/"8",
           "Largest factor by which a transcendental op broadcast into a larger "
           "result may be recomputed">,
  ];
  let statistics = [
    Statistic<"numRegions", "num-regions", "Number of fusion regions made">,
  ];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def RaiseNormsPass : Pass<"kiln-raise-norms", "mlir::ModuleOp"> {
  let summary = "replace written-out norms and softmax by their row ops";
  let description = [{
    Matches `w * (x * 1/sqrt(mean(x^2, last axis) + eps))` as exporters write
    it (x^2 as Pow(x, 2) or Mul(x, x); 1/s as Reciprocal or Div(1, s), or
    Div(x, s)), every intermediate used once and w a vector over the last
    axis, and replaces it by one `graph.layer_norm %x, %w {rms}`: a
    single-pass row kernel. Layer norm written out (mean, subtract, mean of
    squares, eps, sqrt, divide, scale[, bias]) becomes `graph.layer_norm`;
    `exp(x [- max(x)]) / sum(exp(...))` over one kept axis becomes
    `graph.softmax`, `d - log(sum(exp(d)))` with d = x [- max(x)]
    `graph.log_softmax`. The new op's location fuses the matched nodes'.
  }];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def RaiseGeluPass : Pass<"kiln-raise-gelu", "mlir::ModuleOp"> {
  let summary = "replace written-out GELU (erf or tanh form) by graph.gelu";
  let description = [{
    Matches `x * 0.5 * (1 + erf(x / sqrt(2)))` and
    `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` as exporters
    write them (the half on either factor, x / sqrt(2) or x * (1/sqrt(2)),
    x^3 as Pow or products, commutative operands in either order, constants
    equal as the element type holds them), every intermediate used once,
    and replaces the chain by one `graph.gelu` computed in f32 and rounded
    once. Not bitwise the written-out result: fewer roundings and the exact
    constants.
  }];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def ConvToMatmulPass : Pass<"kiln-conv-to-matmul", "mlir::ModuleOp"> {
  let summary = "rewrite 1x1 and patch convolutions as matmuls (tensor cores)";
  let description = [{
    A `graph.conv` on f16 or bf16 without groups or padding whose kernel is
    1x1 (any strides) or equals its strides (patches, dilation 1) becomes,
    per image, W [OC, C * KH * KW] times the image's windows as a
    [C * KH * KW, OH * OW] matrix: a `graph.slice` (every s-th pixel of a
    strided 1x1; the covered rows and columns of patches), for patches a
    reshape to [N, C, OH, KH, OW, KW] and a `graph.transpose` to
    [N, C, KH, KW, OH, OW], reshapes, one `graph.matmul` with W broadcast
    over the images, the bias added as an [OC, 1] column, and a reshape back
    to NCHW. The product is rounded before the bias is added (as separate
    Conv and Add ops would round it), so it is not bitwise the convolution.
  }];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def MergeSiblingsPass : Pass<"kiln-merge-siblings", "mlir::ModuleOp"> {
  let summary = "merge linear layers of one input (Q, K, V) into one matmul";
  let description = [{
    Two or more float MatMuls of the same input by constant 2-D weights of
    one K (each with a constant bias Add, or none of them) become one MatMul
    by the concatenated weight, one Add of the concatenated bias, and a Slice
    per original result.
  }];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def RaiseAttentionPass : Pass<"kiln-raise-attention", "mlir::ModuleOp"> {
  let summary = "replace matmul-softmax-matmul attention by graph.attention";
  let description = [{
    Matches `MatMul(Q, K^T)`, an optional scaling by a scalar constant
    (Mul or Div), an optional additive mask, Softmax over the last axis
    (or Cast to f32, Softmax, Cast back) and `MatMul(., V)`, every
    intermediate used once, on f16/bf16 operands with head dimensions
    multiples of 16 up to 128, and replaces it by one `graph.attention`
    (one flash-attention kernel). Transposes that feed Q, K and V, and a
    transpose that is the result's only user, fold into the op's
    permutations when they keep the head dimension innermost; with
    `fold-head-slices`, so do slices that split heads out of one fused
    projection (q_heads/k_heads/v_heads). With `causal`, a constant bias
    that is exactly a causal mask (Sq == Sk, 0 where key j <= query i, -inf
    or <= -1e30 where j > i, the same for every batch and head) becomes the
    op's `causal` attribute, which gives bitwise the same result (exp of
    such a masked score is 0 in f32); a finite mask such as -1e4, or one
    computed at run time, stays a bias.
  }];
  let options = [
    Option<"foldHeadSlices", "fold-head-slices", "bool", /*default=*/"true",
           "Read Q, K and V heads out of a fused projection in place">,
    Option<"causal", "causal", "bool", /*default=*/"false",
           "Replace a constant causal bias (0 where key <= query, -inf or "
           "<= -1e30 above) by the `causal` attribute">,
  ];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

def ConvertPrecisionPass : Pass<"kiln-convert-precision", "mlir::ModuleOp"> {
  let summary = "compute an f32 model in f16, bf16 or tf32 (kilnc --precision)";
  let description = [{
    `to` = tf32: tensors stay f32 (weights unrounded); every f32 graph.matmul
    and graph.gemm gets the `tf32` attribute (operands rounded to tf32 where
    they are multiplied, sums in f32: the tensor cores' tf32 mma, and the
    evaluator rounds the same way). Reductions, softmax, layer norm and the
    rest stay f32.

    `to` = f16 or bf16:
    Every f32 tensor becomes `to`: weights are rounded, saturating to the
    target's finite range (an exporter's f32 lowest-value mask constant
    stays finite, so 0 * mask stays 0); op results are retyped; f32 inputs
    are cast on entry and f32 results cast back before the return, so the
    model's interface is unchanged. Reductions, softmax, layer norm and
    matmuls keep accumulating in f32 inside their kernels. Index-derived
    values (integers cast to f32 and what is computed from them and f32
    constants alone, e.g. rotary angles) stay f32 and are cast where they
    meet converted ops.
  }];
  let options = [
    Option<"to", "to", "std::string", /*default=*/"\"f16\"",
           "Target precision: f16, bf16 or tf32">,
  ];
  let dependentDialects = ["kiln::graph::GraphDialect"];
}

#endif // KILN_TRANSFORMS_PASSES
