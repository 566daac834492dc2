//===- GraphOps.td - Kiln graph dialect ops ---------------*- tablegen -*-===//
//
// Ops of the graph dialect. Operands are ranked tensors with static shapes;
// each op's verifier checks element types and that the result shape is the
// one its operands and attributes imply. Shared verification logic lives in
// GraphOps.cpp (verifyElementwiseBinary, ...).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_OPS
#define KILN_GRAPH_OPS

include "GraphDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// Calls a verifier helper of GraphOps.cpp from each op that derives a class.
class Graph_VerifiedBy<string fn> {
  code verifyDef = [{
    ::llvm::LogicalResult $cppClass::verify() { return ::kiln::graph::detail::}]
    # fn # [{(getOperation()); }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor (ONNX Constant, initializers, folded values)";
  let description = [{
    Holds a constant tensor. Large weights are `dense_resource` blobs so they
    stay out of the printed IR.

    ```mlir
    %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Graph_UnaryOp<string mnemonic, string verifyFn, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure], traits)> {
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let extraClassDefinition = Graph_VerifiedBy<verifyFn>.verifyDef;
}

class Graph_FloatUnaryOp<string mnemonic, string what>
    : Graph_UnaryOp<mnemonic, "verifyFloatUnary"> {
  let summary = "elementwise " # what;
  let description = "Elementwise " # what # " of a floating-point tensor; the "
    # "result has the operand's type.\n\n```mlir\n%1 = graph." # mnemonic
    # " %0 : tensor<4xf32> -> tensor<4xf32>\n```";
}

def Graph_SqrtOp : Graph_FloatUnaryOp<"sqrt", "square root">;
def Graph_ReciprocalOp : Graph_FloatUnaryOp<"reciprocal", "1/x">;
def Graph_ExpOp : Graph_FloatUnaryOp<"exp", "e^x">;
def Graph_LogOp : Graph_FloatUnaryOp<"log", "natural logarithm">;
def Graph_ErfOp : Graph_FloatUnaryOp<"erf", "error function">;
def Graph_TanhOp : Graph_FloatUnaryOp<"tanh", "hyperbolic tangent">;
def Graph_SigmoidOp : Graph_FloatUnaryOp<"sigmoid", "logistic sigmoid 1/(1+e^-x)">;
def Graph_SinOp : Graph_FloatUnaryOp<"sin", "sine">;
def Graph_CosOp : Graph_FloatUnaryOp<"cos", "cosine">;
def Graph_FloorOp : Graph_FloatUnaryOp<"floor", "floor">;
def Graph_CeilOp : Graph_FloatUnaryOp<"ceil", "ceiling">;

class Graph_NumericUnaryOp<string mnemonic, string what>
    : Graph_UnaryOp<mnemonic, "verifyNumericUnary"> {
  let summary = "elementwise " # what;
  let description = "Elementwise " # what # " of a float or signed integer "
    # "tensor; the result has the operand's type.\n\n```mlir\n%1 = graph."
    # mnemonic # " %0 : tensor<4xf32> -> tensor<4xf32>\n```";
}

def Graph_NegOp : Graph_NumericUnaryOp<"neg", "negation">;
def Graph_AbsOp : Graph_NumericUnaryOp<"abs", "absolute value">;
def Graph_ReluOp : Graph_NumericUnaryOp<"relu", "max(x, 0)">;

def Graph_GeluOp : Graph_UnaryOp<"gelu", "verifyFloatUnary"> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)`; with `approximate = "tanh"` the tanh approximation
    `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.

    ```mlir
    %1 = graph.gelu %0 {approximate = "none"} : tensor<4xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input,
                   DefaultValuedStrAttr<StrAttr, "none">:$approximate);
}

def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", "verifyFloatUnary"> {
  let summary = "x if x >= 0 else alpha * x";
  let description = [{
    ```mlir
    %1 = graph.leaky_relu %0 {alpha = 0.01 : f32} : tensor<4xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, F32Attr:$alpha);
}

def Graph_ClipOp : Graph_UnaryOp<"clip", "verifyNumericUnary"> {
  let summary = "clamp to [min, max]";
  let description = [{
    Clamps each element; a missing bound is unbounded. Bounds are stored as
    f64 and converted to the element type.

    ```mlir
    %1 = graph.clip %0 {min = 0.0, max = 6.0} : tensor<4xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, OptionalAttr<F64Attr>:$min,
                   OptionalAttr<F64Attr>:$max);
}

def Graph_NotOp : Graph_UnaryOp<"not", "verifyBoolUnary"> {
  let summary = "logical not of an i1 tensor";
  let description = [{
    ```mlir
    %1 = graph.not %0 : tensor<4xi1> -> tensor<4xi1>
    ```
  }];
}

def Graph_IsNaNOp : Graph_UnaryOp<"is_nan", "verifyIsNaN"> {
  let summary = "true where the element is NaN";
  let description = [{
    ```mlir
    %1 = graph.is_nan %0 : tensor<4xf32> -> tensor<4xi1>
    ```
  }];
}

def Graph_CastOp : Graph_UnaryOp<"cast", "verifyCast"> {
  let summary = "element type conversion";
  let description = [{
    Converts each element to the result's element type (ONNX Cast
    semantics: float to int truncates toward zero, to i1 tests `!= 0`).

    ```mlir
    %1 = graph.cast %0 : tensor<4xf32> -> tensor<4xf16>
    ```
  }];
  let hasFolder = 1;
}

class Graph_BinaryOp<string mnemonic, string verifyFn, string what>
    : Graph_Op<mnemonic, [Pure]> {
  let summary = "elementwise " # what # " with numpy broadcasting";
  let description = "Elementwise " # what # "; operand shapes broadcast as in "
    # "numpy/ONNX.\n\n```mlir\n%2 = graph." # mnemonic
    # " %0, %1 : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>\n```";
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
  let hasVerifier = 1;
  let extraClassDefinition = Graph_VerifiedBy<verifyFn>.verifyDef;
}

def Graph_AddOp : Graph_BinaryOp<"add", "verifyArithBinary", "addition">;
def Graph_SubOp : Graph_BinaryOp<"sub", "verifyArithBinary", "subtraction">;
def Graph_MulOp : Graph_BinaryOp<"mul", "verifyArithBinary", "multiplication">;
def Graph_DivOp : Graph_BinaryOp<"div", "verifyArithBinary",
                                 "division (integers truncate toward zero)">;
def Graph_MaxOp : Graph_BinaryOp<"max", "verifyArithBinary", "maximum">;
def Graph_MinOp : Graph_BinaryOp<"min", "verifyArithBinary", "minimum">;
def Graph_PowOp : Graph_BinaryOp<"pow", "verifyPow",
                                 "power (base and exponent may differ in type)">;
def Graph_EqualOp : Graph_BinaryOp<"equal", "verifyCompare", "== (i1 result)">;
def Graph_LessOp : Graph_BinaryOp<"less", "verifyCompare", "< (i1 result)">;
def Graph_LessOrEqualOp : Graph_BinaryOp<"less_or_equal", "verifyCompare",
                                         "<= (i1 result)">;
def Graph_GreaterOp : Graph_BinaryOp<"greater", "verifyCompare", "> (i1 result)">;
def Graph_GreaterOrEqualOp : Graph_BinaryOp<"greater_or_equal", "verifyCompare",
                                            ">= (i1 result)">;
def Graph_AndOp : Graph_BinaryOp<"and", "verifyLogic", "logical and of i1">;
def Graph_OrOp : Graph_BinaryOp<"or", "verifyLogic", "logical or of i1">;
def Graph_XorOp : Graph_BinaryOp<"xor", "verifyLogic", "logical xor of i1">;

def Graph_WhereOp : Graph_Op<"where", [Pure]> {
  let summary = "select x where cond else y, with broadcasting";
  let description = [{
    ```mlir
    %3 = graph.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$condition, AnyRankedTensor:$x,
                   AnyRankedTensor:$y);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$condition `,` $x `,` $y attr-dict `:` type($condition) "
                       "`,` type($x) `,` type($y) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic, string what>
    : Graph_Op<mnemonic, [Pure]> {
  let summary = what # " over the given axes";
  let description = what # " over `axes` (sorted, non-negative, unique; "
    # "empty means all axes). With `keepdims` the reduced axes stay as size 1."
    # "\n\n```mlir\n%1 = graph." # mnemonic # " %0 {axes = array<i64: 1>, "
    # "keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>\n```";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$axes,
                   DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let extraClassDefinition = Graph_VerifiedBy<"verifyReduce">.verifyDef;
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "arithmetic mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "maximum">;
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min", "minimum">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "product">;

class Graph_SoftmaxLikeOp<string mnemonic, string what>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = what # " along one axis";
  let description = what # " along `axis` (non-negative)."
    # "\n\n```mlir\n%1 = graph." # mnemonic
    # " %0 {axis = 1 : i64} : tensor<2x3xf32>\n```";
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = Graph_VerifiedBy<"verifySoftmaxLike">.verifyDef;
}

def Graph_SoftmaxOp : Graph_SoftmaxLikeOp<"softmax", "softmax">;
def Graph_LogSoftmaxOp : Graph_SoftmaxLikeOp<"log_softmax", "log of softmax">;

def Graph_LayerNormOp : Graph_Op<"layer_norm", [Pure]> {
  let summary = "layer normalization over the trailing axes from `axis`";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, with mean and variance
    over axes `axis..rank-1`; `scale` and `bias` broadcast to those axes.
    With `rms` (RMSNorm, raised from its written-out form by
    `kiln-raise-norms`): `x / sqrt(mean(x^2) + epsilon) * scale`, no bias.

    ```mlir
    %y = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32}
        : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$scale,
                   Optional<AnyRankedTensor>:$bias, I64Attr:$axis,
                   F32Attr:$epsilon, UnitAttr:$rms);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` "
                       "type($input) `,` type($scale) (`,` type($bias)^)? "
                       "`->` type($output)";
  let hasVerifier = 1;
}

def Graph_AttentionOp : Graph_Op<"attention", [Pure]> {
  let summary = "scaled dot-product attention (one flash-attention kernel)";
  let description = [{
    Raised by `kiln-raise-attention` from the matmul / scale / mask / softmax
    / matmul chain exporters write. With the canonical operands
    `Q = transpose(q, q_perm)` ([batch..., Sq, D]), `K = transpose(k, k_perm)`
    ([batch..., Sk, D]) and `V = transpose(v, v_perm)` ([batch..., Sk, Dv]),
    all of rank 3 or 4 with equal batch axes, the result is
    `transpose(softmax(S) @ V, out_perm)` where `S = Q @ K^T`, then
    `S * scale` (or `S / scale` with `scale_divides`; no scaling without
    `scale`), then `S + bias` (bias broadcasts to [batch..., Sq, Sk]). Each
    step rounds to the element type as the unfused ops would, which is how
    the evaluator computes it; with `softmax_f32` the softmax runs on S cast
    to f32 and its result is cast back, as exporters of half-precision
    models write it; with `nan_to_zero` NaN probabilities (rows whose scores
    are all -inf) become 0 before `@ V`, as torch.export's decomposition of
    scaled_dot_product_attention writes it. `q_heads = [offset, count]` (rank
    4 only; also `k_heads`, `v_heads`) takes heads offset..offset+count of
    the canonical operand (axis 1), so Q, K and V can be read out of one
    fused projection. With `q_per_kv = G` (rank 4, grouped-query attention)
    K and V have 1/G of Q's heads and query head h reads KV head h / G: the
    result is that of K and V with each head repeated G times in a row
    (HF's repeat_kv), which the kernel never writes out. With `causal`
    query i attends to key j only when j <= i: after the scaling and the
    bias, the scores of pairs with j > i are -inf (so the kernel skips key
    blocks wholly above the diagonal). It needs Sq == Sk, where PyTorch's
    top-left `is_causal` and a bottom-right alignment agree. With
    `causal_fill = F` (finite, in [-2e38, -1e4] and a value of the element
    type; needs `causal`) the pairs with j > i get the bias F in place of
    the bias operand's element instead of -inf, as a mask
    `where(causal AND padding, 0, F)` gives them (HF's eager masks fill with
    the type's lowest value); the kernel still skips the key blocks above
    the diagonal, whose exp() underflows to 0 beside any row with an
    unmasked key, and a block with a row whose every key so far is masked
    (a row the finite fill averages over all keys) reads them too. Like any
    bias near the type's lowest value, such rows agree with the unfused ops
    only roughly: the kernel adds scores and bias in f32, where the unfused
    ops round `score + F` to the element type. Every perm keeps the
    last axis last (the head dimension stays contiguous), so the kernel reads
    the operands where they are.

    ```mlir
    %o = graph.attention %q, %k, %v, %mask {scale = 1.250000e-01 : f64,
        q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 1, 3>,
        v_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>}
        : tensor<2x128x12x64xf16>, tensor<2x128x12x64xf16>,
          tensor<2x128x12x64xf16>, tensor<2x1x128x128xf16>
        -> tensor<2x128x12x64xf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$q, AnyRankedTensor:$k,
                   AnyRankedTensor:$v, Optional<AnyRankedTensor>:$bias,
                   OptionalAttr<F64Attr>:$scale, UnitAttr:$scale_divides,
                   UnitAttr:$softmax_f32, UnitAttr:$nan_to_zero,
                   DenseI64ArrayAttr:$q_perm,
                   DenseI64ArrayAttr:$k_perm, DenseI64ArrayAttr:$v_perm,
                   DenseI64ArrayAttr:$out_perm,
                   OptionalAttr<DenseI64ArrayAttr>:$q_heads,
                   OptionalAttr<DenseI64ArrayAttr>:$k_heads,
                   OptionalAttr<DenseI64ArrayAttr>:$v_heads,
                   OptionalAttr<I64Attr>:$q_per_kv, UnitAttr:$causal,
                   OptionalAttr<F64Attr>:$causal_fill);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$q `,` $k `,` $v (`,` $bias^)? attr-dict `:` "
                       "type($q) `,` type($k) `,` type($v) (`,` type($bias)^)? "
                       "`->` type($output)";
  let hasVerifier = 1;
}

def Graph_BatchNormOp : Graph_Op<"batch_norm", [Pure]> {
  let summary = "inference batch normalization over channel axis 1";
  let description = [{
    `(x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c]`.

    ```mlir
    %y = graph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-5 : f32}
        : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>,
          tensor<3xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$scale,
                   AnyRankedTensor:$bias, AnyRankedTensor:$mean,
                   AnyRankedTensor:$variance, F32Attr:$epsilon);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `,` $scale `,` $bias `,` $mean `,` $variance "
                       "attr-dict `:` type($input) `,` type($scale) `,` "
                       "type($bias) `,` type($mean) `,` type($variance) `->` "
                       "type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"matmul", [Pure]> {
  let summary = "numpy matmul with batch broadcasting";
  let description = [{
    ONNX MatMul: 1-D operands are promoted (and the added axis removed),
    leading batch dimensions broadcast. `tf32` (f32 operands only, set by
    kiln-convert-precision{to=tf32}): each operand element is rounded to
    tf32 (to nearest, ties away from zero, 10 explicit mantissa bits) before
    the products are summed, as the tensor cores compute it.

    ```mlir
    %2 = graph.matmul %a, %b : tensor<8x128x768xf32>, tensor<768x3072xf32>
        -> tensor<8x128x3072xf32>
    %3 = graph.matmul %a, %b {tf32} : tensor<8x128x768xf32>,
        tensor<768x3072xf32> -> tensor<8x128x3072xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$lhs, AnyRankedTensor:$rhs,
                   UnitAttr:$tf32);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($output)";
  let hasVerifier = 1;
}

def Graph_GemmOp : Graph_Op<"gemm", [Pure]> {
  let summary = "alpha * op(A) * op(B) + beta * C on 2-D operands";
  let description = [{
    ONNX Gemm; `c` broadcasts to the MxN result. `tf32` as on graph.matmul:
    A and B rounded to tf32 (f32 only; C is added in f32).

    ```mlir
    %y = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32,
        trans_a = false, trans_b = true}
        : tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b,
                   Optional<AnyRankedTensor>:$c,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.0f">:$beta,
                   DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                   DefaultValuedAttr<BoolAttr, "false">:$trans_b,
                   UnitAttr:$tf32);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$a `,` $b (`,` $c^)? attr-dict `:` type($a) `,` "
                       "type($b) (`,` type($c)^)? `->` type($output)";
  let hasVerifier = 1;
}

def Graph_ConvOp : Graph_Op<"conv", [Pure]> {
  let summary = "N-d grouped convolution (NCHW, OIHW)";
  let description = [{
    `pads` holds the begin pads of every spatial axis, then the end pads.

    ```mlir
    %y = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
        dilations = array<i64: 1, 1>, group = 1 : i64}
        : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, AnyRankedTensor:$weight,
                   Optional<AnyRankedTensor>:$bias, DenseI64ArrayAttr:$strides,
                   DenseI64ArrayAttr:$pads, DenseI64ArrayAttr:$dilations,
                   I64Attr:$group);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "type($input) `,` type($weight) (`,` type($bias)^)? "
                       "`->` type($output)";
  let hasVerifier = 1;
}

class Graph_PoolOp<string mnemonic, string what> : Graph_Op<mnemonic, [Pure]> {
  let summary = what # " pooling over the spatial axes (NC...)";
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                   DenseI64ArrayAttr:$dilations,
                   DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                   DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let extraClassDefinition = Graph_VerifiedBy<"verifyPool">.verifyDef;
}

def Graph_MaxPoolOp : Graph_PoolOp<"max_pool", "max"> {
  let description = [{
    Padded positions never win. `count_include_pad` is ignored.

    ```mlir
    %y = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
        pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
        : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
}
def Graph_AveragePoolOp : Graph_PoolOp<"average_pool", "average"> {
  let description = [{
    Divides by the window size clipped to the input (plus pads when
    `count_include_pad`).

    ```mlir
    %y = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
        pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
        : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

def Graph_GatherOp : Graph_Op<"gather", [Pure]> {
  let summary = "ONNX Gather: take slices of data along axis at indices";
  let description = [{
    Result shape is `data[:axis] + indices + data[axis+1:]`; negative
    indices count from the end.

    ```mlir
    %e = graph.gather %table, %ids {axis = 0 : i64}
        : tensor<30522x768xf32>, tensor<1x128xi64> -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$data, AnyRankedTensor:$indices,
                   I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements", [Pure]> {
  let summary = "ONNX GatherElements: out[i][j] = data[idx[i][j]][j] on axis";
  let description = [{
    ```mlir
    %o = graph.gather_elements %d, %i {axis = 1 : i64}
        : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$data, AnyRankedTensor:$indices,
                   I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_GatherNDOp : Graph_Op<"gather_nd", [Pure]> {
  let summary = "ONNX GatherND: gather slices addressed by index tuples";
  let description = [{
    `indices` has shape `[b..., r..., k]`; each k-tuple addresses axes
    `batch_dims..batch_dims+k-1` of `data`. The result shape is
    `indices.shape[:-1] + data.shape[batch_dims + k:]`; negative indices
    count from the end.

    ```mlir
    %o = graph.gather_nd %d, %i {batch_dims = 0 : i64}
        : tensor<2x3x4xf32>, tensor<5x2xi64> -> tensor<5x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$data, AnyRankedTensor:$indices,
                   I64Attr:$batch_dims);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` "
                       "type($indices) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "reinterpret a tensor with another static shape";
  let description = [{
    Row-major reinterpretation; element counts must match. ONNX Reshape,
    Squeeze, Unsqueeze and Flatten all import as this op.

    ```mlir
    %1 = graph.reshape %0 : tensor<2x3xf32> -> tensor<6xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure]> {
  let summary = "permute axes: out.shape[i] = in.shape[perm[i]]";
  let description = [{
    ```mlir
    %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_ExpandOp : Graph_Op<"expand", [Pure]> {
  let summary = "broadcast a tensor to the result shape";
  let description = [{
    ONNX Expand with the target shape folded into the result type.

    ```mlir
    %1 = graph.expand %0 : tensor<3x1xf32> -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure]> {
  let summary = "join tensors along an axis";
  let description = [{
    ```mlir
    %2 = graph.concat %0, %1 {axis = 0 : i64} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_Op<"slice", [Pure]> {
  let summary = "strided slice with a start and step for every axis";
  let description = [{
    `out[i...] = in[start + i * step ...]` per axis; the result shape gives
    the count on each axis. `starts` and `steps` cover every axis (the
    frontend normalizes ONNX's partial, negative and clamped forms).

    ```mlir
    %1 = graph.slice %0 {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>}
        : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, DenseI64ArrayAttr:$starts,
                   DenseI64ArrayAttr:$steps);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TriluOp : Graph_Op<"trilu", [Pure, SameOperandsAndResultType]> {
  let summary = "keep the upper or lower triangle of the last two axes";
  let description = [{
    Upper keeps `j - i >= k`, lower keeps `j - i <= k`; the rest is zero.

    ```mlir
    %1 = graph.trilu %0 {k = 0 : i64, upper = true} : tensor<4x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$k, BoolAttr:$upper);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

def Graph_FusionOp : Graph_Op<"fusion", [IsolatedFromAbove, Pure,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a group of ops that becomes one kernel";
  let description = [{
    Made by `kiln-fuse` (compiler/transforms/Fusion.cpp): the body computes
    the results from the block arguments, which are the region's inputs in
    order; `graph.yield` names the results. The body is isolated from above,
    so a fusion region is evaluated, lowered and costed on its own.

    Kinds: `elementwise` (elementwise ops, casts and expands, each value
    indexed by the result's coordinates with numpy broadcasting: one kernel
    reading every input once per output element; with reshapes and
    transposes among them, each value is read through its strided map from
    the iteration space, dialects/graph/FusionMaps.h, and every value must
    have exactly one); `matmul` (one
    `graph.matmul` of region inputs, rows times a 2-D matrix, followed by
    such elementwise ops on its result: the product's epilogue, one kernel).
    An elementwise region may have several results, all of one shape (each
    a value also needed outside the region): one kernel writing each.

    ```mlir
    %r = graph.fusion "elementwise" (%x, %b) : (tensor<4x8xf16>, tensor<8xf16>) -> tensor<4x8xf16> {
    ^bb0(%a: tensor<4x8xf16>, %c: tensor<8xf16>):
      %0 = graph.add %a, %c : tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
      %1 = graph.relu %0 : tensor<4x8xf16> -> tensor<4x8xf16>
      graph.yield %1 : tensor<4x8xf16>
    }
    ```
  }];
  let arguments = (ins StrAttr:$kind, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The graph.yield that ends the body.
    YieldOp getYield();
  }];
}

def Graph_YieldOp : Graph_Op<"yield", [Pure, Terminator,
    HasParent<"FusionOp">]> {
  let summary = "the results of a fusion region";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* for the implicit terminator */ }]>];
}

#endif // KILN_GRAPH_OPS
