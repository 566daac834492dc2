// RUN: kiln-opt %s -kiln-fold-constants -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-fold-constants -split-input-file -verify-diagnostics -o /dev/null
// RUN: kiln-opt %s -kiln-fold-constants=max-elements=4 -split-input-file | FileCheck %s --check-prefix=LIMIT

// Broadcasting add of a row vector, then a chain: mul by a scalar and sub.
// The whole chain folds; every intermediate constant is erased, and so is
// the folded result of the unused neg.
// CHECK-LABEL: func.func @binary_broadcast_chain
// CHECK-NEXT:    %[[C:.+]] = graph.constant dense<{{\[}}[2.200000e+01, 4.400000e+01, 6.600000e+01], [2.800000e+01, 5.000000e+01, 7.200000e+01]]> : tensor<2x3xf32>
// CHECK-NEXT:    return %[[C]]
func.func @binary_broadcast_chain() -> tensor<2x3xf32> {
  %a = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = graph.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %two = graph.constant dense<2.0> : tensor<f32>
  %c = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %d = graph.mul %c, %two : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %e = graph.sub %d, %c : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %f = graph.add %e, %e : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %unused = graph.neg %f : tensor<2x3xf32> -> tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}

// -----

// Broadcasting both ways: [2,1] with [3] gives [2,3].
// CHECK-LABEL: func.func @binary_outer_broadcast
// CHECK: graph.constant dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
func.func @binary_outer_broadcast() -> tensor<2x3xf32> {
  %a = graph.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = graph.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %c = graph.add %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// Integer division truncates toward zero (ONNX/C), not toward -inf (numpy //).
// CHECK-LABEL: func.func @integer_div
// CHECK: graph.constant dense<[3, -3, -3, 3, 0]> : tensor<5xi32>
func.func @integer_div() -> tensor<5xi32> {
  %a = graph.constant dense<[7, -7, 7, -7, 1]> : tensor<5xi32>
  %b = graph.constant dense<[2, 2, -2, -2, 3]> : tensor<5xi32>
  %c = graph.div %a, %b : tensor<5xi32>, tensor<5xi32> -> tensor<5xi32>
  return %c : tensor<5xi32>
}

// -----

// i8 arithmetic wraps to the width: 100 + 100 = -56, -128 - 1 = 127 and
// -128 * -1 = -128.
// CHECK-LABEL: func.func @integer_wrap
// CHECK-DAG: graph.constant dense<[-56, 127]> : tensor<2xi8>
// CHECK-DAG: graph.constant dense<-128> : tensor<2xi8>
func.func @integer_wrap() -> (tensor<2xi8>, tensor<2xi8>) {
  %a = graph.constant dense<[100, -128]> : tensor<2xi8>
  %b = graph.constant dense<[100, -1]> : tensor<2xi8>
  %s = graph.add %a, %b : tensor<2xi8>, tensor<2xi8> -> tensor<2xi8>
  %c = graph.constant dense<[-128, 2]> : tensor<2xi8>
  %d = graph.constant dense<[-1, -64]> : tensor<2xi8>
  %m = graph.mul %c, %d : tensor<2xi8>, tensor<2xi8> -> tensor<2xi8>
  return %s, %m : tensor<2xi8>, tensor<2xi8>
}

// -----

// Unsigned compares see 200 as 200, not as -56.
// CHECK-LABEL: func.func @unsigned_compare
// CHECK: graph.constant dense<[false, true]> : tensor<2xi1>
func.func @unsigned_compare() -> tensor<2xi1> {
  %a = graph.constant dense<[200, 3]> : tensor<2xui8>
  %b = graph.constant dense<[100, 100]> : tensor<2xui8>
  %c = graph.less %a, %b : tensor<2xui8>, tensor<2xui8> -> tensor<2xi1>
  return %c : tensor<2xi1>
}

// -----

// Pow: float base with an integer exponent, and integer powers.
// CHECK-LABEL: func.func @pow
// CHECK-DAG: graph.constant dense<[8.000000e+00, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[9, 1, 0, -8]> : tensor<4xi64>
func.func @pow() -> (tensor<3xf32>, tensor<4xi64>) {
  %a = graph.constant dense<[2.0, 2.0, 5.0]> : tensor<3xf32>
  %e = graph.constant dense<[3, -2, 0]> : tensor<3xi32>
  %p = graph.pow %a, %e : tensor<3xf32>, tensor<3xi32> -> tensor<3xf32>
  %b = graph.constant dense<[3, 1, 2, -2]> : tensor<4xi64>
  %f = graph.constant dense<[2, -5, -1, 3]> : tensor<4xi64>
  %q = graph.pow %b, %f : tensor<4xi64>, tensor<4xi64> -> tensor<4xi64>
  return %p, %q : tensor<3xf32>, tensor<4xi64>
}

// -----

// Cast: float -> int truncates toward zero, saturates, NaN -> 0; -> i1 is
// != 0 (NaN is true); int -> unsigned wraps; f32 -> f16 rounds to nearest even.
// CHECK-LABEL: func.func @cast
// CHECK-DAG: graph.constant dense<[1, -1, 127, -128, 0]> : tensor<5xi8>
// CHECK-DAG: graph.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: graph.constant dense<[255, 0, 44]> : tensor<3xui8>
// CHECK-DAG: graph.constant dense<[9.997550e-02, 6.550400e+04, 0x7C00]> : tensor<3xf16>
func.func @cast() -> (tensor<5xi8>, tensor<3xi1>, tensor<3xui8>, tensor<3xf16>) {
  %f = graph.constant dense<[1.7, -1.7, 300.0, -1.0e9, 0x7FC00000]> : tensor<5xf32>
  %i = graph.cast %f : tensor<5xf32> -> tensor<5xi8>
  %g = graph.constant dense<[0.0, 2.5, 0x7FC00000]> : tensor<3xf32>
  %b = graph.cast %g : tensor<3xf32> -> tensor<3xi1>
  %n = graph.constant dense<[-1, 256, 300]> : tensor<3xi32>
  %u = graph.cast %n : tensor<3xi32> -> tensor<3xui8>
  %h = graph.constant dense<[0.1, 65519.0, 65520.0]> : tensor<3xf32>
  %k = graph.cast %h : tensor<3xf32> -> tensor<3xf16>
  return %i, %b, %u, %k : tensor<5xi8>, tensor<3xi1>, tensor<3xui8>, tensor<3xf16>
}

// -----

// f16 results are rounded after the op: 1 + 2^-11 is a tie and rounds to 1.
// CHECK-LABEL: func.func @half_rounding
// CHECK: graph.constant dense<[1.000000e+00, 1.001950e+00]> : tensor<2xf16>
func.func @half_rounding() -> tensor<2xf16> {
  %a = graph.constant dense<[1.0, 1.0]> : tensor<2xf16>
  %b = graph.constant dense<[4.8828125e-04, 1.46484375e-03]> : tensor<2xf16>
  %c = graph.add %a, %b : tensor<2xf16>, tensor<2xf16> -> tensor<2xf16>
  return %c : tensor<2xf16>
}

// -----

// Reductions: one axis with keepdims, all axes (empty list) without.
// CHECK-LABEL: func.func @reduce
// CHECK-DAG: graph.constant dense<{{\[}}[6.000000e+00], [1.500000e+01]]> : tensor<2x1xf32>
// CHECK-DAG: graph.constant dense<6> : tensor<i32>
// CHECK-DAG: graph.constant dense<[2.500000e+00, 3.500000e+00, 4.500000e+00]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[6.000000e+00, 1.200000e+02]> : tensor<2xf32>
func.func @reduce() -> (tensor<2x1xf32>, tensor<i32>, tensor<3xf32>, tensor<2xf32>) {
  %a = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %s = graph.reduce_sum %a {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
  %i = graph.constant dense<[[1, 6, -3], [4, 5, 2]]> : tensor<2x3xi32>
  %m = graph.reduce_max %i {axes = array<i64>, keepdims = false} : tensor<2x3xi32> -> tensor<i32>
  %n = graph.reduce_mean %a {axes = array<i64: 0>, keepdims = false} : tensor<2x3xf32> -> tensor<3xf32>
  %p = graph.reduce_prod %a {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> -> tensor<2xf32>
  return %s, %m, %n, %p : tensor<2x1xf32>, tensor<i32>, tensor<3xf32>, tensor<2xf32>
}

// -----

// Softmax is shifted by the row maximum, so 1000 does not overflow exp.
// CHECK-LABEL: func.func @softmax
// CHECK-DAG: graph.constant dense<{{\[}}[0.0900305733, 0.244728476, 0.665240943], [5.000000e-01, 5.000000e-01, 0.000000e+00]]> : tensor<2x3xf32>
// CHECK-DAG: graph.constant dense<[-2.40760589, -1.40760601, -0.407605976]> : tensor<3xf32>
func.func @softmax() -> (tensor<2x3xf32>, tensor<3xf32>) {
  %a = graph.constant dense<[[1.0, 2.0, 3.0], [1000.0, 1000.0, 0.0]]> : tensor<2x3xf32>
  %s = graph.softmax %a {axis = 1 : i64} : tensor<2x3xf32>
  %b = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %l = graph.log_softmax %b {axis = 0 : i64} : tensor<3xf32>
  return %s, %l : tensor<2x3xf32>, tensor<3xf32>
}

// -----

// Layer norm over the last axis with the population variance (2/3 for the
// first row) plus epsilon = 1, then scale and bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK: graph.constant dense<{{\[}}[-0.774596691, 1.000000e+00, -0.676209986], [0.000000e+00, 1.000000e+00, -3.000000e+00]]> : tensor<2x3xf32>
func.func @layer_norm() -> tensor<2x3xf32> {
  %x = graph.constant dense<[[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]]> : tensor<2x3xf32>
  %g = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = graph.constant dense<[0.0, 1.0, -3.0]> : tensor<3xf32>
  %y = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0 : f32}
      : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Matmul: a plain 2-D product, and a 1-D lhs (promoted to 1xK, axis removed)
// against a batch of matrices.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: graph.constant dense<{{\[}}[5.800000e+01, 6.400000e+01], [1.390000e+02, 1.540000e+02]]> : tensor<2x2xf32>
// CHECK-DAG: graph.constant dense<{{\[}}[3, 4], [4, 3]]> : tensor<2x2xi32>
func.func @matmul() -> (tensor<2x2xf32>, tensor<2x2xi32>) {
  %a = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = graph.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %c = graph.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %v = graph.constant dense<[1, 2]> : tensor<2xi32>
  %m = graph.constant dense<[[[1, 2], [1, 1]], [[2, 1], [1, 1]]]> : tensor<2x2x2xi32>
  %d = graph.matmul %v, %m : tensor<2xi32>, tensor<2x2x2xi32> -> tensor<2x2xi32>
  return %c, %d : tensor<2x2xf32>, tensor<2x2xi32>
}

// -----

// Gemm: alpha * A * B^T + beta * C, with C a broadcast row.
// CHECK-LABEL: func.func @gemm
// CHECK: graph.constant dense<{{\[}}[3.000000e+00, 1.000000e+01], [1.300000e+01, 3.400000e+01]]> : tensor<2x2xf32>
func.func @gemm() -> tensor<2x2xf32> {
  %a = graph.constant dense<[[1.0, 0.0], [0.0, 2.0]]> : tensor<2x2xf32>
  %b = graph.constant dense<[[1.0, 3.0], [4.0, 8.0]]> : tensor<2x2xf32>
  %c = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true}
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Gather counts negative indices from the end of the axis.
// CHECK-LABEL: func.func @gather_negative_index
// CHECK: graph.constant dense<{{\[}}[5, 6], [1, 2], [3, 4]]> : tensor<3x2xi64>
func.func @gather_negative_index() -> tensor<3x2xi64> {
  %d = graph.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %i = graph.constant dense<[-1, 0, -2]> : tensor<3xi64>
  %g = graph.gather %d, %i {axis = 0 : i64} : tensor<3x2xi64>, tensor<3xi64> -> tensor<3x2xi64>
  return %g : tensor<3x2xi64>
}

// -----

// Gather on an inner axis with 2-D indices: shape data[:1] + [1,2] + data[2:].
// CHECK-LABEL: func.func @gather_inner_axis
// CHECK: graph.constant dense<{{\[}}{{\[}}[3.000000e+00, 1.000000e+00]], {{\[}}[6.000000e+00, 4.000000e+00]]]> : tensor<2x1x2xf32>
func.func @gather_inner_axis() -> tensor<2x1x2xf32> {
  %d = graph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %i = graph.constant dense<[[2, -3]]> : tensor<1x2xi32>
  %g = graph.gather %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<1x2xi32> -> tensor<2x1x2xf32>
  return %g : tensor<2x1x2xf32>
}

// -----

// CHECK-LABEL: func.func @gather_elements
// CHECK: graph.constant dense<{{\[}}[1, 1], [4, 3]]> : tensor<2x2xi32>
func.func @gather_elements() -> tensor<2x2xi32> {
  %d = graph.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %i = graph.constant dense<[[0, 0], [1, -2]]> : tensor<2x2xi64>
  %g = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x2xi32>, tensor<2x2xi64> -> tensor<2x2xi32>
  return %g : tensor<2x2xi32>
}

// -----

// Slice with a negative step reads backwards from its start.
// CHECK-LABEL: func.func @slice_negative_step
// CHECK: graph.constant dense<{{\[}}[7, 5], [3, 1]]> : tensor<2x2xi32>
func.func @slice_negative_step() -> tensor<2x2xi32> {
  %a = graph.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi32>
  %s = graph.slice %a {starts = array<i64: 1, 3>, steps = array<i64: -1, -2>} : tensor<2x4xi32> -> tensor<2x2xi32>
  return %s : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: graph.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
func.func @concat() -> tensor<2x3xf32> {
  %a = graph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = graph.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %c = graph.concat %a, %b {axis = 1 : i64} : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: graph.constant dense<{{\[}}{{\[}}[0, 3]], {{\[}}[1, 4]], {{\[}}[2, 5]]]> : tensor<3x1x2xi32>
func.func @transpose() -> tensor<3x1x2xi32> {
  %a = graph.constant dense<[[[0, 1, 2]], [[3, 4, 5]]]> : tensor<2x1x3xi32>
  %t = graph.transpose %a {perm = array<i64: 2, 1, 0>} : tensor<2x1x3xi32> -> tensor<3x1x2xi32>
  return %t : tensor<3x1x2xi32>
}

// -----

// Expand adds leading axes and stretches size-1 ones.
// CHECK-LABEL: func.func @expand
// CHECK: graph.constant dense<{{\[}}{{\[}}[1, 1], [2, 2]], {{\[}}[1, 1], [2, 2]]]> : tensor<2x2x2xi32>
func.func @expand() -> tensor<2x2x2xi32> {
  %a = graph.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %e = graph.expand %a : tensor<2x1xi32> -> tensor<2x2x2xi32>
  return %e : tensor<2x2x2xi32>
}

// -----

// Upper keeps j - i >= k; lower keeps j - i <= k.
// CHECK-LABEL: func.func @trilu
// CHECK-DAG: graph.constant dense<{{\[}}[0, 2, 3], [0, 0, 6], [0, 0, 0]]> : tensor<3x3xi32>
// CHECK-DAG: graph.constant dense<{{\[}}[0, 0, 0], [4, 0, 0], [7, 8, 0]]> : tensor<3x3xi32>
func.func @trilu() -> (tensor<3x3xi32>, tensor<3x3xi32>) {
  %a = graph.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi32>
  %u = graph.trilu %a {k = 1 : i64, upper = true} : tensor<3x3xi32>
  %l = graph.trilu %a {k = -1 : i64, upper = false} : tensor<3x3xi32>
  return %u, %l : tensor<3x3xi32>, tensor<3x3xi32>
}

// -----

// Where broadcasts condition, x and y together.
// CHECK-LABEL: func.func @where
// CHECK: graph.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [3.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
func.func @where() -> tensor<2x2xf32> {
  %c = graph.constant dense<[true, false]> : tensor<2xi1>
  %x = graph.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %y = graph.constant dense<0.0> : tensor<f32>
  %w = graph.where %c, %x, %y : tensor<2xi1>, tensor<2x1xf32>, tensor<f32> -> tensor<2x2xf32>
  return %w : tensor<2x2xf32>
}

// -----

// Unary math, rounded to f32 after the op.
// CHECK-LABEL: func.func @unary
// CHECK-DAG: graph.constant dense<[0.000000e+00, 0.841344773, -0.158655256]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[0.000000e+00, 8.411920e-01, -0.158808008]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[5.000000e-01, 0.731058597, 0.268941432]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[0.000000e+00, 6.000000e+00, -2.000000e-02]> : tensor<3xf32>
// CHECK-DAG: graph.constant dense<[false, false, true]> : tensor<3xi1>
func.func @unary() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>) {
  %x = graph.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf32>
  %g = graph.gelu %x {approximate = "none"} : tensor<3xf32> -> tensor<3xf32>
  %t = graph.gelu %x {approximate = "tanh"} : tensor<3xf32> -> tensor<3xf32>
  %s = graph.sigmoid %x : tensor<3xf32> -> tensor<3xf32>
  %y = graph.constant dense<[0.0, 7.0, -2.0]> : tensor<3xf32>
  %c = graph.clip %y {max = 6.0} : tensor<3xf32> -> tensor<3xf32>
  %l = graph.leaky_relu %c {alpha = 0.01 : f32} : tensor<3xf32> -> tensor<3xf32>
  %n = graph.constant dense<[1.0, 0x7F800000, 0x7FC00000]> : tensor<3xf32>
  %i = graph.is_nan %n : tensor<3xf32> -> tensor<3xi1>
  return %g, %t, %s, %l, %i : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi1>
}

// -----

// A 2x2 convolution over a 3x3 image, without and with padding and stride.
// CHECK-LABEL: func.func @conv
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}{{\[}}[1.000000e+01, 1.300000e+01], [1.900000e+01, 2.200000e+01]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}{{\[}}[1.100000e+01, 1.000000e+01], [8.000000e+00, 1.000000e+01]]]]> : tensor<1x1x2x2xf32>
func.func @conv() -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %x = graph.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]]> : tensor<1x1x3x3xf32>
  %w = graph.constant dense<[[[[1.0, 0.0], [1.0, 1.0]]]]> : tensor<1x1x2x2xf32>
  %b = graph.constant dense<1.0> : tensor<1xf32>
  %y = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
      dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
  %z = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>,
      dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32> -> tensor<1x1x2x2xf32>
  return %y, %z : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// Grouped convolution: each of the two output channels sees one input channel.
// CHECK-LABEL: func.func @conv_groups
// CHECK: graph.constant dense<{{\[}}{{\[}}[3.000000e+00, 5.000000e+00], [-3.000000e+01, -5.000000e+01]]]> : tensor<1x2x2xf32>
func.func @conv_groups() -> tensor<1x2x2xf32> {
  %x = graph.constant dense<[[[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]]]> : tensor<1x2x3xf32>
  %w = graph.constant dense<[[[1.0, 1.0]], [[-1.0, -1.0]]]> : tensor<2x1x2xf32>
  %y = graph.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>,
      dilations = array<i64: 1>, group = 2 : i64}
      : tensor<1x2x3xf32>, tensor<2x1x2xf32> -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

// -----

// Max pooling; average pooling with a pad divides by the taps inside the
// input unless count_include_pad.
// CHECK-LABEL: func.func @pool
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}{{\[}}[6.000000e+00, 8.000000e+00], [1.400000e+01, 1.600000e+01]]]]> : tensor<1x1x2x2xf32>
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}[1.000000e+00, 2.500000e+00, 4.000000e+00]]]> : tensor<1x1x3xf32>
// CHECK-DAG: graph.constant dense<{{\[}}{{\[}}[5.000000e-01, 2.500000e+00, 2.000000e+00]]]> : tensor<1x1x3xf32>
func.func @pool() -> (tensor<1x1x2x2xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>) {
  %x = graph.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0],
                               [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]]]> : tensor<1x1x4x4xf32>
  %m = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %v = graph.constant dense<[[[1.0, 2.0, 3.0, 4.0]]]> : tensor<1x1x4xf32>
  %a = graph.average_pool %v {kernel_shape = array<i64: 2>, strides = array<i64: 2>,
      pads = array<i64: 1, 1>, dilations = array<i64: 1>}
      : tensor<1x1x4xf32> -> tensor<1x1x3xf32>
  %b = graph.average_pool %v {kernel_shape = array<i64: 2>, strides = array<i64: 2>,
      pads = array<i64: 1, 1>, dilations = array<i64: 1>, count_include_pad = true}
      : tensor<1x1x4xf32> -> tensor<1x1x3xf32>
  return %m, %a, %b : tensor<1x1x2x2xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>
}

// -----

// Ceil mode adds a last window that starts inside the input.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK: graph.constant dense<{{\[}}{{\[}}[2.000000e+00, 4.000000e+00, 5.000000e+00]]]> : tensor<1x1x3xf32>
func.func @max_pool_ceil() -> tensor<1x1x3xf32> {
  %v = graph.constant dense<[[[1.0, 2.0, 3.0, 4.0, 5.0]]]> : tensor<1x1x5xf32>
  %m = graph.max_pool %v {kernel_shape = array<i64: 2>, strides = array<i64: 2>,
      pads = array<i64: 0, 0>, dilations = array<i64: 1>, ceil_mode = true}
      : tensor<1x1x5xf32> -> tensor<1x1x3xf32>
  return %m : tensor<1x1x3xf32>
}

// -----

// Batch norm per channel (axis 1).
// CHECK-LABEL: func.func @batch_norm
// CHECK: graph.constant dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 3.000000e+00]]]> : tensor<1x2x2xf32>
func.func @batch_norm() -> tensor<1x2x2xf32> {
  %x = graph.constant dense<[[[1.0, 2.0], [4.0, 8.0]]]> : tensor<1x2x2xf32>
  %s = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %b = graph.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %m = graph.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v = graph.constant dense<[1.0, 16.0]> : tensor<2xf32>
  %y = graph.batch_norm %x, %s, %b, %m, %v {epsilon = 0.0 : f32}
      : tensor<1x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

// -----

// Constants stored as dense_resource blobs (raw little-endian; f16 as 16-bit
// patterns, i1 one byte each) fold like dense ones.
// CHECK-LABEL: func.func @resource_operands
// CHECK-DAG: graph.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf16>
// CHECK-DAG: graph.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: graph.constant dense<[2, -4]> : tensor<2xi32>
func.func @resource_operands() -> (tensor<2xf16>, tensor<3xi1>, tensor<2xi32>) {
  %h = graph.constant dense_resource<half_blob> : tensor<2xf16>
  %n = graph.neg %h : tensor<2xf16> -> tensor<2xf16>
  %b = graph.constant dense_resource<bool_blob> : tensor<3xi1>
  %nb = graph.not %b : tensor<3xi1> -> tensor<3xi1>
  %i = graph.constant dense_resource<int_blob> : tensor<2xi32>
  %d = graph.add %i, %i : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>
  return %n, %nb, %d : tensor<2xf16>, tensor<3xi1>, tensor<2xi32>
}

{-#
  dialect_resources: {
    builtin: {
      half_blob: "0x02000000003C00C0",
      bool_blob: "0x01000000000101",
      int_blob: "0x0400000001000000FEFFFFFF"
    }
  }
#-}

// -----

// Negative case: %arg0 is not a constant, so the add cannot fold; the
// constant it uses must survive.
// CHECK-LABEL: func.func @non_constant_operand
// CHECK:         %[[C:.+]] = graph.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK:         graph.add %arg0, %[[C]]
func.func @non_constant_operand(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %c = graph.constant dense<1.0> : tensor<2xf32>
  %r = graph.add %arg0, %c : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Negative case: index 3 is out of range for an axis of size 3. The gather
// stays (a GPU kernel would read out of bounds; the evaluator refuses) and
// the pass warns instead of folding.
// CHECK-LABEL: func.func @gather_out_of_range
// CHECK:         graph.gather
func.func @gather_out_of_range() -> tensor<1xf32> {
  %d = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = graph.constant dense<[3]> : tensor<1xi64>
  // expected-warning @+1 {{not folded: index 3 (element 0 of the indices) is out of range for axis 0 of size 3}}
  %g = graph.gather %d, %i {axis = 0 : i64} : tensor<3xf32>, tensor<1xi64> -> tensor<1xf32>
  return %g : tensor<1xf32>
}

// -----

// max-elements: with the limit at 4 the 2x3 result is not materialized and
// the transpose stays; the 2-element reduction under it still folds.
// CHECK-LABEL: func.func @max_elements
// CHECK-NOT:     graph.transpose
// LIMIT-LABEL: func.func @max_elements
// LIMIT:         graph.transpose
// LIMIT:         graph.constant dense<[6, 15]> : tensor<2xi32>
func.func @max_elements() -> (tensor<3x2xi32>, tensor<2xi32>) {
  %a = graph.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %t = graph.transpose %a {perm = array<i64: 1, 0>} : tensor<2x3xi32> -> tensor<3x2xi32>
  %s = graph.reduce_sum %a {axes = array<i64: 1>, keepdims = false} : tensor<2x3xi32> -> tensor<2xi32>
  return %t, %s : tensor<3x2xi32>, tensor<2xi32>
}

// -----

// gather_nd picks rows by index pairs; a negative index counts from the end.
// CHECK-LABEL: func.func @gather_nd
func.func @gather_nd() -> tensor<2x2xi64> {
  %d = graph.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi64>
  %i = graph.constant dense<[[1, 0], [0, -1]]> : tensor<2x2xi64>
  %r = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
  // CHECK: graph.constant dense<{{\[\[}}4, 5], [2, 3]]> : tensor<2x2xi64>
  return %r : tensor<2x2xi64>
}
