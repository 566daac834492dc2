// RUN: kiln-opt %s -kiln-raise-norms -split-input-file | FileCheck %s

// HF Llama's form: pow, mean, add eps, sqrt, div(1, s), mul x, mul weight.
// CHECK-LABEL: func.func @hf_llama
//  CHECK-NEXT:   %[[R:.*]] = graph.layer_norm %arg0, %arg1 {axis = 2 : i64, epsilon = 9.99999997E-7 : f32, rms} : tensor<1x8x64xf32>, tensor<64xf32> -> tensor<1x8x64xf32>
//  CHECK-NEXT:   return %[[R]]
func.func @hf_llama(%x: tensor<1x8x64xf32>, %w: tensor<64xf32>) -> tensor<1x8x64xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %0 = graph.pow %x, %two : tensor<1x8x64xf32>, tensor<f32> -> tensor<1x8x64xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 2>} : tensor<1x8x64xf32> -> tensor<1x8x1xf32>
  %2 = graph.add %1, %eps : tensor<1x8x1xf32>, tensor<f32> -> tensor<1x8x1xf32>
  %3 = graph.sqrt %2 : tensor<1x8x1xf32> -> tensor<1x8x1xf32>
  %4 = graph.div %one, %3 : tensor<f32>, tensor<1x8x1xf32> -> tensor<1x8x1xf32>
  %5 = graph.mul %x, %4 : tensor<1x8x64xf32>, tensor<1x8x1xf32> -> tensor<1x8x64xf32>
  %6 = graph.mul %w, %5 : tensor<64xf32>, tensor<1x8x64xf32> -> tensor<1x8x64xf32>
  return %6 : tensor<1x8x64xf32>
}

// -----

// x * x, reciprocal, weight on the right; f16 (epsilon is the f16 constant's value).
// CHECK-LABEL: func.func @mul_reciprocal
//  CHECK-NEXT:   graph.layer_norm %arg0, %arg1 {axis = 1 : i64, epsilon = 1.00135803E-5 : f32, rms} : tensor<4x32xf16>, tensor<32xf16> -> tensor<4x32xf16>
func.func @mul_reciprocal(%x: tensor<4x32xf16>, %w: tensor<32xf16>) -> tensor<4x32xf16> {
  %eps = graph.constant dense<1.0e-5> : tensor<f16>
  %0 = graph.mul %x, %x : tensor<4x32xf16>, tensor<4x32xf16> -> tensor<4x32xf16>
  %1 = graph.reduce_mean %0 {axes = array<i64: 1>} : tensor<4x32xf16> -> tensor<4x1xf16>
  %2 = graph.add %eps, %1 : tensor<f16>, tensor<4x1xf16> -> tensor<4x1xf16>
  %3 = graph.sqrt %2 : tensor<4x1xf16> -> tensor<4x1xf16>
  %4 = graph.reciprocal %3 : tensor<4x1xf16> -> tensor<4x1xf16>
  %5 = graph.mul %4, %x : tensor<4x1xf16>, tensor<4x32xf16> -> tensor<4x32xf16>
  %6 = graph.mul %5, %w : tensor<4x32xf16>, tensor<32xf16> -> tensor<4x32xf16>
  return %6 : tensor<4x32xf16>
}

// -----

// x / sqrt(...), with a [1, 1, 64] weight (viewed as its [64] vector).
// CHECK-LABEL: func.func @div_form
//  CHECK-NEXT:   %[[W:.*]] = graph.reshape %arg1 : tensor<1x1x64xf32> -> tensor<64xf32>
//  CHECK-NEXT:   graph.layer_norm %arg0, %[[W]] {{.*}}rms}
func.func @div_form(%x: tensor<2x3x64xf32>, %w: tensor<1x1x64xf32>) -> tensor<2x3x64xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %0 = graph.pow %x, %two : tensor<2x3x64xf32>, tensor<f32> -> tensor<2x3x64xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 2>} : tensor<2x3x64xf32> -> tensor<2x3x1xf32>
  %2 = graph.add %1, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
  %3 = graph.sqrt %2 : tensor<2x3x1xf32> -> tensor<2x3x1xf32>
  %4 = graph.div %x, %3 : tensor<2x3x64xf32>, tensor<2x3x1xf32> -> tensor<2x3x64xf32>
  %5 = graph.mul %4, %w : tensor<2x3x64xf32>, tensor<1x1x64xf32> -> tensor<2x3x64xf32>
  return %5 : tensor<2x3x64xf32>
}

// -----

// Not raised: the statistic is used twice; the mean is over another axis;
// the square is of another value.
// CHECK-LABEL: func.func @not_rms
//   CHECK-NOT:   rms
//       CHECK:   return
func.func @not_rms(%x: tensor<4x32xf32>, %y: tensor<4x32xf32>, %w: tensor<32xf32>)
    -> (tensor<4x32xf32>, tensor<4x1xf32>, tensor<4x32xf32>) {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-6> : tensor<f32>
  %0 = graph.pow %x, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %1 = graph.reduce_mean %0 {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %2 = graph.add %1, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %3 = graph.sqrt %2 : tensor<4x1xf32> -> tensor<4x1xf32>
  %4 = graph.div %x, %3 : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %5 = graph.mul %4, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  %p = graph.pow %y, %two : tensor<4x32xf32>, tensor<f32> -> tensor<4x32xf32>
  %m = graph.reduce_mean %p {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %a = graph.add %m, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %s = graph.sqrt %a : tensor<4x1xf32> -> tensor<4x1xf32>
  %d = graph.div %x, %s : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %o = graph.mul %d, %w : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
  return %5, %2, %o : tensor<4x32xf32>, tensor<4x1xf32>, tensor<4x32xf32>
}

// -----

// Layer norm written out (torch.onnx below opset 17): mean, subtract, pow 2,
// mean, add eps, sqrt, divide, scale, bias; the centered value feeds the
// square and the division. One layer_norm with the bias (not an RMSNorm of
// the centered value).
// CHECK-LABEL: func.func @layer_norm_written_out
//  CHECK-NEXT:   %[[R:.*]] = graph.layer_norm %arg0, %arg1, %arg2 {axis = 2 : i64, epsilon = 9.99999996E-13 : f32} : tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
//  CHECK-NEXT:   return %[[R]]
func.func @layer_norm_written_out(%x: tensor<2x8x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x8x64xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<1.0e-12> : tensor<f32>
  %0 = graph.reduce_mean %x {axes = array<i64: 2>} : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %1 = graph.sub %x, %0 : tensor<2x8x64xf32>, tensor<2x8x1xf32> -> tensor<2x8x64xf32>
  %2 = graph.pow %1, %two : tensor<2x8x64xf32>, tensor<f32> -> tensor<2x8x64xf32>
  %3 = graph.reduce_mean %2 {axes = array<i64: 2>} : tensor<2x8x64xf32> -> tensor<2x8x1xf32>
  %4 = graph.add %3, %eps : tensor<2x8x1xf32>, tensor<f32> -> tensor<2x8x1xf32>
  %5 = graph.sqrt %4 : tensor<2x8x1xf32> -> tensor<2x8x1xf32>
  %6 = graph.div %1, %5 : tensor<2x8x64xf32>, tensor<2x8x1xf32> -> tensor<2x8x64xf32>
  %7 = graph.mul %6, %g : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
  %8 = graph.add %7, %b : tensor<2x8x64xf32>, tensor<64xf32> -> tensor<2x8x64xf32>
  return %8 : tensor<2x8x64xf32>
}

// -----

// Mul(d, d) as the square, the scale on the left, no bias: layer_norm
// without one.
// CHECK-LABEL: func.func @layer_norm_no_bias
//  CHECK-NEXT:   graph.layer_norm %arg0, %arg1 {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : tensor<4x32xf32>, tensor<32xf32> -> tensor<4x32xf32>
//  CHECK-NEXT:   return
func.func @layer_norm_no_bias(%x: tensor<4x32xf32>, %g: tensor<32xf32>) -> tensor<4x32xf32> {
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %0 = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %2 = graph.mul %1, %1 : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  %3 = graph.reduce_mean %2 {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %4 = graph.add %eps, %3 : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %5 = graph.sqrt %4 : tensor<4x1xf32> -> tensor<4x1xf32>
  %6 = graph.div %1, %5 : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %7 = graph.mul %g, %6 : tensor<32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  return %7 : tensor<4x32xf32>
}

// -----

// The centered value has a third user, so no layer norm: the centering
// stays a kernel, and what follows it is the RMSNorm of the centered value
// (the same numbers).
// CHECK-LABEL: func.func @layer_norm_centered_escapes
//       CHECK:   %[[D:.*]] = graph.sub %arg0
//  CHECK-NEXT:   %[[N:.*]] = graph.layer_norm %[[D]], %arg1 {{.*}}rms}
//  CHECK-NEXT:   return %[[N]], %[[D]]
func.func @layer_norm_centered_escapes(%x: tensor<4x32xf32>, %g: tensor<32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
  %eps = graph.constant dense<1.0e-5> : tensor<f32>
  %0 = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %1 = graph.sub %x, %0 : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %2 = graph.mul %1, %1 : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  %3 = graph.reduce_mean %2 {axes = array<i64: 1>} : tensor<4x32xf32> -> tensor<4x1xf32>
  %4 = graph.add %eps, %3 : tensor<f32>, tensor<4x1xf32> -> tensor<4x1xf32>
  %5 = graph.sqrt %4 : tensor<4x1xf32> -> tensor<4x1xf32>
  %6 = graph.div %1, %5 : tensor<4x32xf32>, tensor<4x1xf32> -> tensor<4x32xf32>
  %7 = graph.mul %g, %6 : tensor<32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
  return %7, %1 : tensor<4x32xf32>, tensor<4x32xf32>
}

// -----

// Softmax written out in its stable form over axis 1 of 3.
// CHECK-LABEL: func.func @softmax_stable
//  CHECK-NEXT:   %[[S:.*]] = graph.softmax %arg0 {axis = 1 : i64} : tensor<2x16x4xf32>
//  CHECK-NEXT:   return %[[S]]
func.func @softmax_stable(%x: tensor<2x16x4xf32>) -> tensor<2x16x4xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x16x4xf32> -> tensor<2x1x4xf32>
  %1 = graph.sub %x, %0 : tensor<2x16x4xf32>, tensor<2x1x4xf32> -> tensor<2x16x4xf32>
  %2 = graph.exp %1 : tensor<2x16x4xf32> -> tensor<2x16x4xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>} : tensor<2x16x4xf32> -> tensor<2x1x4xf32>
  %4 = graph.div %2, %3 : tensor<2x16x4xf32>, tensor<2x1x4xf32> -> tensor<2x16x4xf32>
  return %4 : tensor<2x16x4xf32>
}

// -----

// Without the max shift; f16.
// CHECK-LABEL: func.func @softmax_plain
//  CHECK-NEXT:   %[[S:.*]] = graph.softmax %arg0 {axis = 1 : i64} : tensor<3x32xf16>
//  CHECK-NEXT:   return %[[S]]
func.func @softmax_plain(%x: tensor<3x32xf16>) -> tensor<3x32xf16> {
  %0 = graph.exp %x : tensor<3x32xf16> -> tensor<3x32xf16>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : tensor<3x32xf16> -> tensor<3x1xf16>
  %2 = graph.div %0, %1 : tensor<3x32xf16>, tensor<3x1xf16> -> tensor<3x32xf16>
  return %2 : tensor<3x32xf16>
}

// -----

// Log-softmax, stable form.
// CHECK-LABEL: func.func @log_softmax
//  CHECK-NEXT:   %[[S:.*]] = graph.log_softmax %arg0 {axis = 1 : i64} : tensor<3x32xf32>
//  CHECK-NEXT:   return %[[S]]
func.func @log_softmax(%x: tensor<3x32xf32>) -> tensor<3x32xf32> {
  %0 = graph.reduce_max %x {axes = array<i64: 1>} : tensor<3x32xf32> -> tensor<3x1xf32>
  %1 = graph.sub %x, %0 : tensor<3x32xf32>, tensor<3x1xf32> -> tensor<3x32xf32>
  %2 = graph.exp %1 : tensor<3x32xf32> -> tensor<3x32xf32>
  %3 = graph.reduce_sum %2 {axes = array<i64: 1>} : tensor<3x32xf32> -> tensor<3x1xf32>
  %4 = graph.log %3 : tensor<3x1xf32> -> tensor<3x1xf32>
  %5 = graph.sub %1, %4 : tensor<3x32xf32>, tensor<3x1xf32> -> tensor<3x32xf32>
  return %5 : tensor<3x32xf32>
}

// -----

// A max over another axis than the sum's is not the softmax's shift: it
// stays, and the softmax is of the shifted value.
// CHECK-LABEL: func.func @other_axis_shift
//       CHECK:   %[[D:.*]] = graph.sub %arg0
//  CHECK-NEXT:   %[[S:.*]] = graph.softmax %[[D]] {axis = 1 : i64}
//  CHECK-NEXT:   return %[[S]]
func.func @other_axis_shift(%y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %3 = graph.reduce_max %y {axes = array<i64: 0>} : tensor<4x8xf32> -> tensor<1x8xf32>
  %4 = graph.sub %y, %3 : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  %5 = graph.exp %4 : tensor<4x8xf32> -> tensor<4x8xf32>
  %6 = graph.reduce_sum %5 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %7 = graph.div %5, %6 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// Not raised: exp(x) is also returned; the sum drops its axis.
// CHECK-LABEL: func.func @not_softmax
//   CHECK-NOT:   graph.softmax
//       CHECK:   return
func.func @not_softmax(%x: tensor<3x32xf32>, %z: tensor<4x8xf32>)
    -> (tensor<3x32xf32>, tensor<3x32xf32>, tensor<4x8xf32>) {
  %0 = graph.exp %x : tensor<3x32xf32> -> tensor<3x32xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : tensor<3x32xf32> -> tensor<3x1xf32>
  %2 = graph.div %0, %1 : tensor<3x32xf32>, tensor<3x1xf32> -> tensor<3x32xf32>
  %8 = graph.exp %z : tensor<4x8xf32> -> tensor<4x8xf32>
  %9 = graph.reduce_sum %8 {axes = array<i64: 1>, keepdims = false} : tensor<4x8xf32> -> tensor<4xf32>
  %10 = graph.reshape %9 : tensor<4xf32> -> tensor<4x1xf32>
  %11 = graph.div %8, %10 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %2, %0, %11 : tensor<3x32xf32>, tensor<3x32xf32>, tensor<4x8xf32>
}
