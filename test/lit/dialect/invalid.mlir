// RUN: %kiln-opt %s -split-input-file -verify-diagnostics

// One case per verifier diagnostic of GraphOps.cpp (and per op that emits
// it), each explained. Unreachable from textual IR, so not here:
//  - "has a negative dimension in": the type parser rejects negative sizes;
//  - ConstantOp's "value type ... differs from the result type": the
//    AllTypesMatch trait reports it first (covered below in generic form).

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

// Dynamic dimensions are rejected: the graph dialect is statically shaped.
func.func @dynamic_operand(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'graph.relu' op requires statically shaped tensors, got 'tensor<?x3xf32>'}}
  %0 = graph.relu %x : tensor<?x3xf32> -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// A static operand with a dynamic result is rejected as well.
func.func @dynamic_result(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'graph.add' op requires statically shaped tensors, got 'tensor<?xf32>'}}
  %0 = graph.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Unranked tensors fail the operand type constraint (generic form: the custom
// form's parser already wants a ranked tensor).
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'graph.exp' op operand #0 must be ranked tensor of any type values}}
  %0 = "graph.exp"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// The constant's value type must be the result type (generic form; the
// custom form cannot spell a mismatch).
func.func @constant_type_mismatch() -> tensor<3xf32> {
  // expected-error @+1 {{'graph.constant' op failed to verify that all of {value, output} have same type}}
  %0 = "graph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

// -----

// Float unary ops keep the operand type.
func.func @float_unary_result_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'graph.sqrt' op result type 'tensor<4xf16>' must equal the operand type 'tensor<4xf32>'}}
  %0 = graph.sqrt %x : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Float unary ops keep the operand shape too.
func.func @float_unary_result_shape(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'graph.tanh' op result type 'tensor<2x2xf32>' must equal the operand type 'tensor<4xf32>'}}
  %0 = graph.tanh %x : tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// exp of an integer tensor is not defined here.
func.func @float_unary_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.exp' op requires a floating-point operand, got 'tensor<4xi32>'}}
  %0 = graph.exp %x : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// gelu shares the float-only rule.
func.func @gelu_int(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'graph.gelu' op requires a floating-point operand, got 'tensor<4xi64>'}}
  %0 = graph.gelu %x : tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// leaky_relu is float-only.
func.func @leaky_relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'graph.leaky_relu' op requires a floating-point operand, got 'tensor<4xi32>'}}
  %0 = graph.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// neg accepts integers but not booleans.
func.func @numeric_unary_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.neg' op requires a numeric operand, got 'tensor<4xi1>'}}
  %0 = graph.neg %x : tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// clip is numeric: a boolean operand is rejected.
func.func @clip_bool(%x: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.clip' op requires a numeric operand, got 'tensor<4xi1>'}}
  %0 = graph.clip %x {max = 1.0} : tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// relu keeps the operand type.
func.func @numeric_unary_result(%x: tensor<4xi32>) -> tensor<4xi64> {
  // expected-error @+1 {{'graph.relu' op result type 'tensor<4xi64>' must equal the operand type 'tensor<4xi32>'}}
  %0 = graph.relu %x : tensor<4xi32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// not is only for i1.
func.func @not_float(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.not' op requires an i1 operand, got 'tensor<4xf32>'}}
  %0 = graph.not %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// not keeps the operand type.
func.func @not_result(%x: tensor<4xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{'graph.not' op result type 'tensor<2xi1>' must equal the operand type 'tensor<4xi1>'}}
  %0 = graph.not %x : tensor<4xi1> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// is_nan needs a float operand.
func.func @is_nan_int(%x: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.is_nan' op requires a floating-point operand, got 'tensor<4xi32>'}}
  %0 = graph.is_nan %x : tensor<4xi32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// is_nan keeps the shape.
func.func @is_nan_shape(%x: tensor<4xf32>) -> tensor<2xi1> {
  // expected-error @+1 {{'graph.is_nan' op result shape [2] does not match the expected shape [4]}}
  %0 = graph.is_nan %x : tensor<4xf32> -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// is_nan returns i1.
func.func @is_nan_element(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.is_nan' op result element type 'f32' does not match the expected 'i1'}}
  %0 = graph.is_nan %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cast changes the element type only.
func.func @cast_shape(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'graph.cast' op result shape [2,2] does not match the expected shape [4]}}
  %0 = graph.cast %x : tensor<4xf32> -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

// -----

// cast with a dynamic result.
func.func @cast_dynamic(%x: tensor<4xf32>) -> tensor<?xf16> {
  // expected-error @+1 {{'graph.cast' op requires statically shaped tensors, got 'tensor<?xf16>'}}
  %0 = graph.cast %x : tensor<4xf32> -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

//===----------------------------------------------------------------------===//
// Binary ops
//===----------------------------------------------------------------------===//

// -----

// Arithmetic needs one element type on both sides (no implicit promotion).
func.func @arith_mixed(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.add' op operand element types differ: 'f32' and 'f16'}}
  %0 = graph.add %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Arithmetic on booleans is rejected (use and/or/xor).
func.func @arith_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.mul' op requires numeric operands, got 'i1'}}
  %0 = graph.mul %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// The result has the operands' element type.
func.func @arith_result_element(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'graph.sub' op result element type 'f16' does not match the expected 'f32'}}
  %0 = graph.sub %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// 3 and 4 do not broadcast.
func.func @arith_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.div' op operand shapes do not broadcast: [2,3] and [4]}}
  %0 = graph.div %a, %b : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// The result must have the broadcast shape, not a larger one.
func.func @arith_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<4x2x3xf32> {
  // expected-error @+1 {{'graph.max' op result shape [4,2,3] does not match the expected shape [2,3]}}
  %0 = graph.max %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// pow rejects a boolean exponent.
func.func @pow_bool(%a: tensor<4xf32>, %b: tensor<4xi1>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.pow' op requires numeric operands}}
  %0 = graph.pow %a, %b : tensor<4xf32>, tensor<4xi1> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// pow's result has the base's element type, not the exponent's.
func.func @pow_result_element(%a: tensor<4xf32>, %b: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'graph.pow' op result element type 'i64' does not match the expected 'f32'}}
  %0 = graph.pow %a, %b : tensor<4xf32>, tensor<4xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// pow broadcasts like the others.
func.func @pow_no_broadcast(%a: tensor<3xf32>, %b: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.pow' op operand shapes do not broadcast: [3] and [2]}}
  %0 = graph.pow %a, %b : tensor<3xf32>, tensor<2xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Comparisons need one element type.
func.func @compare_mixed(%a: tensor<4xi32>, %b: tensor<4xi64>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.less' op operand element types differ: 'i32' and 'i64'}}
  %0 = graph.less %a, %b : tensor<4xi32>, tensor<4xi64> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Comparisons return i1.
func.func @compare_result(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.equal' op result element type 'f32' does not match the expected 'i1'}}
  %0 = graph.equal %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Comparisons broadcast.
func.func @compare_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xi1> {
  // expected-error @+1 {{'graph.greater_or_equal' op operand shapes do not broadcast: [2,3] and [2]}}
  %0 = graph.greater_or_equal %a, %b : tensor<2x3xf32>, tensor<2xf32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}

// -----

// Logic ops take i1 only.
func.func @logic_int(%a: tensor<4xi1>, %b: tensor<4xi8>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.and' op requires i1 operands, got 'tensor<4xi8>'}}
  %0 = graph.and %a, %b : tensor<4xi1>, tensor<4xi8> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Logic ops return i1.
func.func @logic_result(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi8> {
  // expected-error @+1 {{'graph.or' op result element type 'i8' does not match the expected 'i1'}}
  %0 = graph.or %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Logic ops broadcast.
func.func @logic_shape(%a: tensor<4xi1>, %b: tensor<1xi1>) -> tensor<1xi1> {
  // expected-error @+1 {{'graph.xor' op result shape [1] does not match the expected shape [4]}}
  %0 = graph.xor %a, %b : tensor<4xi1>, tensor<1xi1> -> tensor<1xi1>
  return %0 : tensor<1xi1>
}

// -----

// where's condition is i1.
func.func @where_condition(%c: tensor<4xf32>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.where' op requires an i1 condition}}
  %0 = graph.where %c, %x, %y : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where's branches share one element type.
func.func @where_branches(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.where' op requires x and y of one element type}}
  %0 = graph.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where's result has the branches' element type.
func.func @where_result_element(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'graph.where' op result element type 'i1' does not match the expected 'f32'}}
  %0 = graph.where %c, %x, %y : tensor<4xi1>, tensor<4xf32>, tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// All three where operands take part in the broadcast.
func.func @where_broadcast(%c: tensor<3xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.where' op operand shapes do not broadcast: [3] and [4]}}
  %0 = graph.where %c, %x, %y : tensor<3xi1>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// where is statically shaped.
func.func @where_dynamic(%c: tensor<?xi1>, %x: tensor<4xf32>, %y: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.where' op requires statically shaped tensors, got 'tensor<?xi1>'}}
  %0 = graph.where %c, %x, %y : tensor<?xi1>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// -----

// Reductions are numeric.
func.func @reduce_bool(%x: tensor<4xi1>) -> tensor<1xi1> {
  // expected-error @+1 {{'graph.reduce_sum' op requires a numeric operand}}
  %0 = graph.reduce_sum %x {axes = array<i64: 0>} : tensor<4xi1> -> tensor<1xi1>
  return %0 : tensor<1xi1>
}

// -----

// Axes are non-negative (the frontend normalizes ONNX's negative ones).
func.func @reduce_negative_axis(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_mean' op axis -1 is out of range for rank 2}}
  %0 = graph.reduce_mean %x {axes = array<i64: -1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// An axis equal to the rank is out of range.
func.func @reduce_axis_rank(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.reduce_max' op axis 2 is out of range for rank 2}}
  %0 = graph.reduce_max %x {axes = array<i64: 2>} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Axes must be sorted.
func.func @reduce_unsorted(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  // expected-error @+1 {{'graph.reduce_min' op axes must be sorted and unique}}
  %0 = graph.reduce_min %x {axes = array<i64: 2, 0>} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %0 : tensor<1x3x1xf32>
}

// -----

// Axes must be unique.
func.func @reduce_duplicate(%x: tensor<2x3xf32>) -> tensor<1x3xf32> {
  // expected-error @+1 {{'graph.reduce_prod' op axes must be sorted and unique}}
  %0 = graph.reduce_prod %x {axes = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// A reduction keeps the element type.
func.func @reduce_element(%x: tensor<2x3xf16>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op result element type 'f32' does not match the expected 'f16'}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x3xf16> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// keepdims = false drops the reduced axis; keeping it is a shape error.
func.func @reduce_keepdims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_sum' op result shape [2,1] does not match the expected shape [2]}}
  %0 = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Empty axes mean all axes.
func.func @reduce_empty_axes(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'graph.reduce_mean' op result shape [2,1] does not match the expected shape [1,1]}}
  %0 = graph.reduce_mean %x {axes = array<i64>} : tensor<2x3xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// softmax is float-only.
func.func @softmax_int(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  // expected-error @+1 {{'graph.softmax' op requires a floating-point operand}}
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// softmax's axis is non-negative.
func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.softmax' op axis -1 is out of range for rank 2}}
  %0 = graph.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// log_softmax's axis must be below the rank.
func.func @log_softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.log_softmax' op axis 2 is out of range for rank 2}}
  %0 = graph.log_softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// softmax keeps its type (SameOperandsAndResultType, generic form).
func.func @softmax_result(%x: tensor<2x3xf32>) -> tensor<2x3xf16> {
  // expected-error @+1 {{'graph.softmax' op requires the same type for all operands and results}}
  %0 = "graph.softmax"(%x) {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// layer_norm is float-only.
func.func @layer_norm_int(%x: tensor<2x8xi32>, %g: tensor<8xi32>) -> tensor<2x8xi32> {
  // expected-error @+1 {{'graph.layer_norm' op requires a floating-point input}}
  %0 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xi32>, tensor<8xi32> -> tensor<2x8xi32>
  return %0 : tensor<2x8xi32>
}

// -----

// layer_norm's axis must be below the rank.
func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.layer_norm' op axis 2 is out of range for rank 2}}
  %0 = graph.layer_norm %x, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// The scale covers the normalized axes [8], not [4].
func.func @layer_norm_scale(%x: tensor<2x8xf32>, %g: tensor<4xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.layer_norm' op scale/bias shape [4] does not broadcast to the normalized shape [8]}}
  %0 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<4xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// The bias must not broadcast the normalized shape to a larger rank.
func.func @layer_norm_bias_rank(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.layer_norm' op scale/bias shape [2,8] does not broadcast to the normalized shape [8]}}
  %0 = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// layer_norm keeps the input type.
func.func @layer_norm_result(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'graph.layer_norm' op result type must equal the input type}}
  %0 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// batch_norm needs a channel axis.
func.func @batch_norm_rank(%x: tensor<3xf32>, %p: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.batch_norm' op requires a floating-point input of rank >= 2}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// batch_norm is float-only.
func.func @batch_norm_int(%x: tensor<1x3xi32>, %p: tensor<3xi32>) -> tensor<1x3xi32> {
  // expected-error @+1 {{'graph.batch_norm' op requires a floating-point input of rank >= 2}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32> -> tensor<1x3xi32>
  return %0 : tensor<1x3xi32>
}

// -----

// Every per-channel operand has shape [C]; here the variance has [4].
func.func @batch_norm_channels(%x: tensor<1x3x2x2xf32>, %p: tensor<3xf32>, %v: tensor<4xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @+1 {{'graph.batch_norm' op expects per-channel operands of shape [3], got 'tensor<4xf32>'}}
  %0 = graph.batch_norm %x, %p, %p, %p, %v {epsilon = 1.0e-5 : f32} : tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

// batch_norm keeps the input type.
func.func @batch_norm_result(%x: tensor<1x3x2x2xf32>, %p: tensor<3xf32>) -> tensor<1x3x4xf32> {
  // expected-error @+1 {{'graph.batch_norm' op result type must equal the input type}}
  %0 = graph.batch_norm %x, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x4xf32>
  return %0 : tensor<1x3x4xf32>
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// -----

// matmul needs one element type.
func.func @matmul_mixed(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.matmul' op requires numeric operands of one element type}}
  %0 = graph.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf16> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// matmul on booleans is rejected.
func.func @matmul_bool(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) -> tensor<2x4xi1> {
  // expected-error @+1 {{'graph.matmul' op requires numeric operands of one element type}}
  %0 = graph.matmul %a, %b : tensor<2x3xi1>, tensor<3x4xi1> -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// Scalars cannot be multiplied as matrices.
func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.matmul' op requires operands of rank >= 1}}
  %0 = graph.matmul %a, %b : tensor<f32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// K of the lhs (3) must equal K of the rhs (4).
func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'graph.matmul' op contraction sizes differ: 3 and 4}}
  %0 = graph.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Batch dimensions 2 and 3 do not broadcast.
func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+1 {{'graph.matmul' op batch dimensions do not broadcast}}
  %0 = graph.matmul %a, %b : tensor<2x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

// A 1-D rhs drops the N axis from the result.
func.func @matmul_vector_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'graph.matmul' op result shape [4,1] does not match the expected shape [4]}}
  %0 = graph.matmul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// matmul keeps the element type.
func.func @matmul_element(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.matmul' op result element type 'f32' does not match the expected 'f16'}}
  %0 = graph.matmul %a, %b : tensor<2x3xf16>, tensor<3x4xf16> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// gemm is 2-D only.
func.func @gemm_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'graph.gemm' op requires 2-D A and B}}
  %0 = graph.gemm %a, %b : tensor<2x4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// gemm needs one element type.
func.func @gemm_mixed(%a: tensor<4x8xf32>, %b: tensor<8x5xf16>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'graph.gemm' op requires A and B of one element type}}
  %0 = graph.gemm %a, %b : tensor<4x8xf32>, tensor<8x5xf16> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// With trans_b the contraction axis of B is its second: 8 vs 16.
func.func @gemm_trans_b(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.gemm' op contraction sizes differ: 8 and 16}}
  %0 = graph.gemm %a, %b {trans_b = true} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// C of [4] does not broadcast to [4,16] (it would need [4,1]).
func.func @gemm_c(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'graph.gemm' op C of shape [4] does not broadcast to [4,16]}}
  %0 = graph.gemm %a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// C may not be of higher rank than the result.
func.func @gemm_c_rank(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<1x4x16xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'graph.gemm' op C of shape [1,4,16] does not broadcast to [4,16]}}
  %0 = graph.gemm %a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<1x4x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// trans_a makes M the second axis of A.
func.func @gemm_result(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'graph.gemm' op contraction sizes differ: 4 and 8}}
  %0 = graph.gemm %a, %b : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// gemm's result is MxN.
func.func @gemm_shape(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'graph.gemm' op result shape [8,16] does not match the expected shape [4,16]}}
  %0 = graph.gemm %a, %b {trans_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// gemm keeps the element type.
func.func @gemm_element(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'graph.gemm' op result element type 'f32' does not match the expected 'f16'}}
  %0 = graph.gemm %a, %b : tensor<4x8xf16>, tensor<8x16xf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// conv is float-only with one type for input and weight.
func.func @conv_mixed(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op requires floating-point input and weight of one type}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv needs N, C and at least one spatial axis.
func.func @conv_rank(%x: tensor<1x3xf32>, %w: tensor<4x3xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'graph.conv' op requires input and weight of one rank >= 3}}
  %0 = graph.conv %x, %w {strides = array<i64>, pads = array<i64>, dilations = array<i64>, group = 1 : i64} : tensor<1x3xf32>, tensor<4x3xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// pads hold begin and end pads: 4 entries for 2 spatial axes.
func.func @conv_pads(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'graph.conv' op expects strides and dilations of 2 entries and pads of 4}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// The weight's input channels times group must be the input's channels.
func.func @conv_group(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op channel counts do not match group 2: input has 4 channels, weight 4x6}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// The bias has one value per output channel.
func.func @conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op bias must have shape [4]}}
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A zero stride.
func.func @conv_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op has a non-positive stride or dilation, or a negative pad}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 0>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// A negative pad.
func.func @conv_negative_pad(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op has a non-positive stride or dilation, or a negative pad}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, -1>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// The spatial result sizes follow from the window: 8 - 3 + 1 = 6.
func.func @conv_result(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'graph.conv' op result shape [1,4,8,8] does not match the expected shape [1,4,6,6]}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// conv keeps the element type.
func.func @conv_element(%x: tensor<1x3x8x8xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'graph.conv' op result element type 'f32' does not match the expected 'f16'}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

// Average pooling is float-only.
func.func @average_pool_int(%x: tensor<1x1x4x4xi32>) -> tensor<1x1x2x2xi32> {
  // expected-error @+1 {{'graph.average_pool' op requires a floating-point operand}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xi32> -> tensor<1x1x2x2xi32>
  return %0 : tensor<1x1x2x2xi32>
}

// -----

// Max pooling takes integers but not booleans.
func.func @max_pool_bool(%x: tensor<1x1x4x4xi1>) -> tensor<1x1x2x2xi1> {
  // expected-error @+1 {{'graph.max_pool' op requires a numeric operand}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xi1> -> tensor<1x1x2x2xi1>
  return %0 : tensor<1x1x2x2xi1>
}

// -----

// Pools need N, C and spatial axes.
func.func @pool_rank(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'graph.average_pool' op requires an input of rank >= 3 (N, C, spatial...)}}
  %0 = graph.average_pool %x {kernel_shape = array<i64>, strides = array<i64>, pads = array<i64>, dilations = array<i64>} : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// One kernel size per spatial axis.
func.func @pool_kernel_entries(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'graph.max_pool' op expects kernel_shape, strides and dilations of 2 entries and pads of 4}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A zero kernel size.
func.func @pool_zero_kernel(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'graph.max_pool' op has a non-positive kernel, stride or dilation, or a negative pad}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 0>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A negative end pad.
func.func @pool_negative_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'graph.average_pool' op has a non-positive kernel, stride or dilation, or a negative pad}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, -1>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A pad as large as the window would make windows of padding only.
func.func @pool_pad_window(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'graph.max_pool' op pads must be smaller than the window}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 2, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// ceil_mode changes the expected size: 7 with kernel 2 stride 2 gives 4.
func.func @pool_ceil(%x: tensor<1x1x7x7xf32>) -> tensor<1x1x3x3xf32> {
  // expected-error @+1 {{'graph.max_pool' op result shape [1,1,3,3] does not match the expected shape [1,1,4,4]}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x1x7x7xf32> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Pools keep the element type.
func.func @pool_element(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf16> {
  // expected-error @+1 {{'graph.average_pool' op result element type 'f16' does not match the expected 'f32'}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}

//===----------------------------------------------------------------------===//
// Indexing and data movement
//===----------------------------------------------------------------------===//

// -----

// gather indices are integers (not i1, not float).
func.func @gather_indices(%d: tensor<5x4xf32>, %i: tensor<2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.gather' op requires integer indices, got 'tensor<2xf32>'}}
  %0 = graph.gather %d, %i {axis = 0 : i64} : tensor<5x4xf32>, tensor<2xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// i1 is not an index type either.
func.func @gather_bool_indices(%d: tensor<5x4xf32>, %i: tensor<2xi1>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'graph.gather' op requires integer indices, got 'tensor<2xi1>'}}
  %0 = graph.gather %d, %i {axis = 0 : i64} : tensor<5x4xf32>, tensor<2xi1> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// gather's axis must be below the data rank.
func.func @gather_axis(%d: tensor<5x4xf32>, %i: tensor<2xi64>) -> tensor<5x4xf32> {
  // expected-error @+1 {{'graph.gather' op axis 2 is out of range for rank 2}}
  %0 = graph.gather %d, %i {axis = 2 : i64} : tensor<5x4xf32>, tensor<2xi64> -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// The indices' shape replaces the gathered axis: [5] + [2,3], not [2,3] + [5].
func.func @gather_shape(%d: tensor<5x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'graph.gather' op result shape [2,3,5] does not match the expected shape [5,2,3]}}
  %0 = graph.gather %d, %i {axis = 1 : i64} : tensor<5x4xf32>, tensor<2x3xi64> -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// gather keeps the data's element type.
func.func @gather_element(%d: tensor<5x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xi64> {
  // expected-error @+1 {{'graph.gather' op result element type 'i64' does not match the expected 'f32'}}
  %0 = graph.gather %d, %i {axis = 0 : i64} : tensor<5x4xf32>, tensor<2xi64> -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

// gather_elements indices are integers.
func.func @gather_elements_indices(%d: tensor<2x3xf32>, %i: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'graph.gather_elements' op requires integer indices, got 'tensor<2x2xf32>'}}
  %0 = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// gather_elements data and indices share the rank.
func.func @gather_elements_rank(%d: tensor<2x3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.gather_elements' op requires data and indices of one rank}}
  %0 = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2xi64> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// gather_elements' axis must be below the rank.
func.func @gather_elements_axis(%d: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'graph.gather_elements' op axis -1 is out of range for rank 2}}
  %0 = graph.gather_elements %d, %i {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// gather_elements' result has the indices' shape.
func.func @gather_elements_shape(%d: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gather_elements' op result shape [2,3] does not match the expected shape [2,2]}}
  %0 = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// gather_elements keeps the data's element type.
func.func @gather_elements_element(%d: tensor<2x3xf32>, %i: tensor<2x2xi64>) -> tensor<2x2xi64> {
  // expected-error @+1 {{'graph.gather_elements' op result element type 'i64' does not match the expected 'f32'}}
  %0 = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x2xi64> -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// gather_nd indices are integers.
func.func @gather_nd_indices(%d: tensor<2x3xf32>, %i: tensor<4x2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.gather_nd' op requires integer indices, got 'tensor<4x2xf32>'}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x2xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gather_nd needs an index-tuple axis.
func.func @gather_nd_scalar_indices(%d: tensor<2x3xf32>, %i: tensor<i64>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.gather_nd' op requires data and indices of rank >= 1}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<i64> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// batch_dims must leave a non-batch axis in both operands.
func.func @gather_nd_batch_dims(%d: tensor<2x3xf32>, %i: tensor<2x1xi64>) -> tensor<2xf32> {
  // expected-error @+1 {{'graph.gather_nd' op batch_dims 2 must be below both ranks}}
  %0 = graph.gather_nd %d, %i {batch_dims = 2 : i64} : tensor<2x3xf32>, tensor<2x1xi64> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// batch_dims is never negative.
func.func @gather_nd_negative_batch_dims(%d: tensor<2x3xf32>, %i: tensor<2x1xi64>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'graph.gather_nd' op batch_dims -1 must be below both ranks}}
  %0 = graph.gather_nd %d, %i {batch_dims = -1 : i64} : tensor<2x3xf32>, tensor<2x1xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// 3-tuples address three axes, but the data has two.
func.func @gather_nd_tuple_length(%d: tensor<2x3xf32>, %i: tensor<4x3xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.gather_nd' op index tuples of length 3 do not fit data of rank 2 after 0 batch dims}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x3xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Empty index tuples are rejected.
func.func @gather_nd_empty_tuple(%d: tensor<2x3xf32>, %i: tensor<4x0xi64>) -> tensor<4x2x3xf32> {
  // expected-error @+1 {{'graph.gather_nd' op index tuples of length 0 do not fit data of rank 2 after 0 batch dims}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x0xi64> -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// Batch dimensions are shared, not broadcast: 2 vs 3.
func.func @gather_nd_batch_mismatch(%d: tensor<2x5xf32>, %i: tensor<3x1xi64>) -> tensor<3xf32> {
  // expected-error @+1 {{'graph.gather_nd' op batch dimensions of data and indices differ}}
  %0 = graph.gather_nd %d, %i {batch_dims = 1 : i64} : tensor<2x5xf32>, tensor<3x1xi64> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// The result is indices.shape[:-1] + data.shape[k:]: [4] + [3].
func.func @gather_nd_shape(%d: tensor<2x3xf32>, %i: tensor<4x1xi64>) -> tensor<4x1x3xf32> {
  // expected-error @+1 {{'graph.gather_nd' op result shape [4,1,3] does not match the expected shape [4,3]}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x1xi64> -> tensor<4x1x3xf32>
  return %0 : tensor<4x1x3xf32>
}

// -----

// gather_nd keeps the data's element type.
func.func @gather_nd_element(%d: tensor<2x3xf32>, %i: tensor<4x2xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'graph.gather_nd' op result element type 'i64' does not match the expected 'f32'}}
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x2xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// reshape never converts.
func.func @reshape_element(%x: tensor<2x3xf32>) -> tensor<6xf16> {
  // expected-error @+1 {{'graph.reshape' op must not change the element type}}
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf16>
  return %0 : tensor<6xf16>
}

// -----

// reshape keeps the element count.
func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<7xf32> {
  // expected-error @+1 {{'graph.reshape' op element counts differ: 6 and 7}}
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

// reshape is statically shaped.
func.func @reshape_dynamic(%x: tensor<2x3xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'graph.reshape' op requires statically shaped tensors, got 'tensor<?xf32>'}}
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// perm has one entry per axis.
func.func @transpose_entries(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  // expected-error @+1 {{'graph.transpose' op perm has 2 entries for an operand of rank 3}}
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return %0 : tensor<3x2x4xf32>
}

// -----

// A repeated axis is not a permutation.
func.func @transpose_repeat(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'graph.transpose' op perm is not a permutation}}
  %0 = graph.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// An axis out of range is not a permutation.
func.func @transpose_range(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'graph.transpose' op perm is not a permutation}}
  %0 = graph.transpose %x {perm = array<i64: 2, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// out.shape[i] = in.shape[perm[i]].
func.func @transpose_shape(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error @+1 {{'graph.transpose' op result shape [4,3,2] does not match the expected shape [4,2,3]}}
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// transpose keeps the element type.
func.func @transpose_element(%x: tensor<2x3xf32>) -> tensor<3x2xf16> {
  // expected-error @+1 {{'graph.transpose' op result element type 'f16' does not match the expected 'f32'}}
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf16>
  return %0 : tensor<3x2xf16>
}

// -----

// expand never converts.
func.func @expand_element(%x: tensor<3x1xf32>) -> tensor<3x4xf16> {
  // expected-error @+1 {{'graph.expand' op must not change the element type}}
  %0 = graph.expand %x : tensor<3x1xf32> -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// Only size-1 axes broadcast.
func.func @expand_shape(%x: tensor<3x2xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'graph.expand' op cannot broadcast [3,2] to [3,4]}}
  %0 = graph.expand %x : tensor<3x2xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// expand cannot shrink: the result must be the broadcast shape itself.
func.func @expand_shrink(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'graph.expand' op cannot broadcast [3,4] to [1,4]}}
  %0 = graph.expand %x : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// concat of nothing (generic form; the custom form needs an operand).
func.func @concat_empty() -> tensor<0xf32> {
  // expected-error @+1 {{'graph.concat' op requires at least one input}}
  %0 = "graph.concat"() {axis = 0 : i64} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// concat's axis must be below the rank.
func.func @concat_axis(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'graph.concat' op axis 2 is out of range for rank 2}}
  %0 = graph.concat %a, %b {axis = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

// concat inputs share the element type.
func.func @concat_element(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'graph.concat' op inputs differ in element type or rank}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// concat inputs share the rank.
func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<3x3xf32> {
  // expected-error @+1 {{'graph.concat' op inputs differ in element type or rank}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Only the concatenated axis may differ.
func.func @concat_other_axis(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'graph.concat' op inputs differ on non-concatenated axis 1}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The concatenated size is the sum: 3 + 5 = 8.
func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{'graph.concat' op result shape [2,9] does not match the expected shape [2,8]}}
  %0 = graph.concat %a, %b {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// concat keeps the element type.
func.func @concat_result_element(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'graph.concat' op result element type 'f16' does not match the expected 'f32'}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<2xf32>, tensor<2xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// slice keeps the rank (a Gather or reshape drops axes).
func.func @slice_rank(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'graph.slice' op must keep the element type and rank}}
  %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// slice keeps the element type.
func.func @slice_element(%x: tensor<4x8xf32>) -> tensor<2x8xf16> {
  // expected-error @+1 {{'graph.slice' op must keep the element type and rank}}
  %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// starts cover every axis (the frontend fills in the missing ones).
func.func @slice_starts(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.slice' op requires a start and a step for every axis}}
  %0 = graph.slice %x {starts = array<i64: 1>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// steps cover every axis.
func.func @slice_steps(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.slice' op requires a start and a step for every axis}}
  %0 = graph.slice %x {starts = array<i64: 1, 0>, steps = array<i64: 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A zero step.
func.func @slice_zero_step(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'graph.slice' op step on axis 1 is zero}}
  %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The last element read, 2 + 2*3 = 8, is past the end of axis 1.
func.func @slice_past_end(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'graph.slice' op axis 1 reads outside [0, 8): start 2, step 3, count 3}}
  %0 = graph.slice %x {starts = array<i64: 0, 2>, steps = array<i64: 1, 3>} : tensor<4x8xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A negative step that walks below 0: 1, 0, -1.
func.func @slice_below_zero(%x: tensor<4x8xf32>) -> tensor<3x8xf32> {
  // expected-error @+1 {{'graph.slice' op axis 0 reads outside [0, 4): start 1, step -1, count 3}}
  %0 = graph.slice %x {starts = array<i64: 1, 0>, steps = array<i64: -1, 1>} : tensor<4x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

// A start outside the axis (starts are normalized, never negative).
func.func @slice_negative_start(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'graph.slice' op axis 0 reads outside [0, 4): start -1, step 1, count 1}}
  %0 = graph.slice %x {starts = array<i64: -1, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// trilu works on the last two axes.
func.func @trilu_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.trilu' op requires rank >= 2}}
  %0 = graph.trilu %x {k = 0 : i64, upper = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// trilu is statically shaped.
func.func @trilu_dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'graph.trilu' op requires statically shaped tensors, got 'tensor<?x4xf32>'}}
  %0 = graph.trilu %x {k = 0 : i64, upper = true} : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// A fusion region's body takes its inputs.
func.func @fusion_arity(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.fusion' op has 1 inputs but its body takes 2 arguments}}
  %0 = graph.fusion "elementwise"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %1 = graph.add %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.fusion' op body argument #0 has type 'tensor<4xf16>' but input #0 has 'tensor<4xf32>'}}
  %0 = graph.fusion "elementwise"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    %1 = graph.cast %a : tensor<4xf16> -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_yield_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'graph.fusion' op yields 'tensor<4xf32>' but its results are 'tensor<4xf16>'}}
  %0 = graph.fusion "elementwise"(%x) : (tensor<4xf32>) -> tensor<4xf16> {
  ^bb0(%a: tensor<4xf32>):
    %1 = graph.neg %a : tensor<4xf32> -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf16>
}

// -----

func.func @fusion_kind(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.fusion' op has unknown kind 'reduction'}}
  %0 = graph.fusion "reduction"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = graph.neg %a : tensor<4xf32> -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_member(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = graph.fusion "elementwise"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    // expected-error @+1 {{'graph.matmul' op cannot be in an elementwise fusion region}}
    %1 = graph.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    graph.yield %1 : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

func.func @fusion_member_shape(%x: tensor<4x4xf32>, %y: tensor<4x1xf32>) -> tensor<4x1xf32> {
  %0 = graph.fusion "elementwise"(%x, %y) : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x1xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x1xf32>):
    // expected-error @+1 {{'graph.neg' op result shape does not broadcast to the region's result shape}}
    %1 = graph.neg %a : tensor<4x4xf32> -> tensor<4x4xf32>
    graph.yield %b : tensor<4x1xf32>
  }
  return %0 : tensor<4x1xf32>
}

// -----

// x would be read both directly and transposed: no single index map.
func.func @fusion_two_maps(%x: tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32> {
  // expected-error @+1 {{'graph.fusion' op has a value with no single index map through its reshapes and transposes}}
  %0 = graph.fusion "elementwise"(%x) : (tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32> {
  ^bb0(%a: tensor<2x4x4x8xf32>):
    %1 = graph.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x8xf32> -> tensor<2x4x4x8xf32>
    %2 = graph.add %a, %1 : tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32> -> tensor<2x4x4x8xf32>
    graph.yield %2 : tensor<2x4x4x8xf32>
  }
  return %0 : tensor<2x4x4x8xf32>
}

// -----

// A reshape the iteration space cannot be refined for: the transposed 4x6
// viewed as 6x4 (a row of the result straddles rows of the transpose's 4x6
// at offsets no axis split can follow).
func.func @fusion_unrefinable_reshape(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'graph.fusion' op has a value with no single index map through its reshapes and transposes}}
  %0 = graph.fusion "elementwise"(%x) : (tensor<6x4xf32>) -> tensor<6x4xf32> {
  ^bb0(%a: tensor<6x4xf32>):
    %1 = graph.neg %a : tensor<6x4xf32> -> tensor<6x4xf32>
    %2 = graph.transpose %1 {perm = array<i64: 1, 0>} : tensor<6x4xf32> -> tensor<4x6xf32>
    %3 = graph.reshape %2 : tensor<4x6xf32> -> tensor<6x4xf32>
    graph.yield %3 : tensor<6x4xf32>
  }
  return %0 : tensor<6x4xf32>
}

// -----

// A yield outside a fusion region.
func.func @stray_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.yield' op expects parent op 'graph.fusion'}}
  graph.yield %x : tensor<4xf32>
}

// -----

func.func @fusion_matmul_missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.fusion' op of kind 'matmul' holds no graph.matmul}}
  %0 = graph.fusion "matmul"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = graph.neg %a : tensor<4xf32> -> tensor<4xf32>
    graph.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @fusion_matmul_batched(%x: tensor<2x4x4xf32>, %y: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = graph.fusion "matmul"(%x, %y) : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  ^bb0(%a: tensor<2x4x4xf32>, %b: tensor<2x4x4xf32>):
    // expected-error @+1 {{'graph.matmul' op in a matmul region must be a float product of a matrix or batch of rows and one 2-D matrix, of the region's result type}}
    %1 = graph.matmul %a, %b : tensor<2x4x4xf32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
    %2 = graph.neg %1 : tensor<2x4x4xf32> -> tensor<2x4x4xf32>
    graph.yield %2 : tensor<2x4x4xf32>
  }
  return %0 : tensor<2x4x4xf32>
}

// -----

func.func @fusion_matmul_inner_operand(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = graph.fusion "matmul"(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %1 = graph.neg %a : tensor<4x4xf32> -> tensor<4x4xf32>
    // expected-error @+1 {{'graph.matmul' op in a matmul region must take region inputs}}
    %2 = graph.matmul %1, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %3 = graph.abs %2 : tensor<4x4xf32> -> tensor<4x4xf32>
    graph.yield %3 : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}

// -----

func.func @rms_norm_bias(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'graph.layer_norm' op with rms takes no bias}}
  %0 = graph.layer_norm %x, %g, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32, rms} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// The product and the region's result have one type (shape and dtype).
func.func @fusion_matmul_result_type(%x: tensor<4x4xf16>, %w: tensor<4x4xf16>) -> tensor<4x4xf32> {
  %0 = graph.fusion "matmul"(%x, %w) : (tensor<4x4xf16>, tensor<4x4xf16>) -> tensor<4x4xf32> {
  ^bb0(%a: tensor<4x4xf16>, %b: tensor<4x4xf16>):
    // expected-error @+1 {{'graph.matmul' op in a matmul region must be a float product of a matrix or batch of rows and one 2-D matrix, of the region's result type}}
    %1 = graph.matmul %a, %b : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
    %2 = graph.cast %1 : tensor<4x4xf16> -> tensor<4x4xf32>
    graph.yield %2 : tensor<4x4xf32>
  }
  return %0 : tensor<4x4xf32>
}
