// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s
// RUN: %kiln-opt %s --mlir-print-op-generic | %kiln-opt | FileCheck %s

// Every graph op parses, prints in its assembly format, and parses again
// (also through the generic form). Attributes equal to their default value
// are not printed.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<i64>, tensor<2x2xi1>, tensor<3xf16>) {
  // CHECK: graph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: graph.constant dense<7> : tensor<i64>
  %1 = graph.constant dense<7> : tensor<i64>
  // CHECK: graph.constant dense<true> : tensor<2x2xi1>
  %2 = graph.constant dense<true> : tensor<2x2xi1>
  // CHECK: graph.constant dense_resource<blob> : tensor<3xf16>
  %3 = graph.constant dense_resource<blob> : tensor<3xf16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<i64>, tensor<2x2xi1>, tensor<3xf16>
}

// CHECK-LABEL: func.func @float_unary
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
func.func @float_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[A:.+]] = graph.sqrt %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %a = graph.sqrt %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[B:.+]] = graph.reciprocal %[[A]] : tensor<4xf32> -> tensor<4xf32>
  %b = graph.reciprocal %a : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[C:.+]] = graph.exp %[[B]] : tensor<4xf32> -> tensor<4xf32>
  %c = graph.exp %b : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[D:.+]] = graph.log %[[C]] : tensor<4xf32> -> tensor<4xf32>
  %d = graph.log %c : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[E:.+]] = graph.erf %[[D]] : tensor<4xf32> -> tensor<4xf32>
  %e = graph.erf %d : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[F:.+]] = graph.tanh %[[E]] : tensor<4xf32> -> tensor<4xf32>
  %f = graph.tanh %e : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[G:.+]] = graph.sigmoid %[[F]] : tensor<4xf32> -> tensor<4xf32>
  %g = graph.sigmoid %f : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[H:.+]] = graph.sin %[[G]] : tensor<4xf32> -> tensor<4xf32>
  %h = graph.sin %g : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[I:.+]] = graph.cos %[[H]] : tensor<4xf32> -> tensor<4xf32>
  %i = graph.cos %h : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[J:.+]] = graph.floor %[[I]] : tensor<4xf32> -> tensor<4xf32>
  %j = graph.floor %i : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[K:.+]] = graph.ceil %[[J]] : tensor<4xf32> -> tensor<4xf32>
  %k = graph.ceil %j : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[L:.+]] = graph.gelu %[[K]] : tensor<4xf32> -> tensor<4xf32>
  %l = graph.gelu %k {approximate = "none"} : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[M:.+]] = graph.gelu %[[L]] {approximate = "tanh"} : tensor<4xf32> -> tensor<4xf32>
  %m = graph.gelu %l {approximate = "tanh"} : tensor<4xf32> -> tensor<4xf32>
  // CHECK: %[[N:.+]] = graph.leaky_relu %[[M]] {alpha = 0.00999999977 : f32} : tensor<4xf32> -> tensor<4xf32>
  %n = graph.leaky_relu %m {alpha = 0.01 : f32} : tensor<4xf32> -> tensor<4xf32>
  // CHECK: return %[[N]]
  return %n : tensor<4xf32>
}

// CHECK-LABEL: func.func @numeric_unary
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xi32>, %[[Y:.+]]: tensor<f16>)
func.func @numeric_unary(%x: tensor<2x3xi32>, %y: tensor<f16>) -> (tensor<2x3xi32>, tensor<f16>) {
  // CHECK: %[[A:.+]] = graph.neg %[[X]] : tensor<2x3xi32> -> tensor<2x3xi32>
  %a = graph.neg %x : tensor<2x3xi32> -> tensor<2x3xi32>
  // CHECK: %[[B:.+]] = graph.abs %[[A]] : tensor<2x3xi32> -> tensor<2x3xi32>
  %b = graph.abs %a : tensor<2x3xi32> -> tensor<2x3xi32>
  // CHECK: %[[C:.+]] = graph.relu %[[B]] : tensor<2x3xi32> -> tensor<2x3xi32>
  %c = graph.relu %b : tensor<2x3xi32> -> tensor<2x3xi32>
  // CHECK: %[[D:.+]] = graph.clip %[[C]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<2x3xi32> -> tensor<2x3xi32>
  %d = graph.clip %c {min = 0.0, max = 6.0} : tensor<2x3xi32> -> tensor<2x3xi32>
  // CHECK: %[[E:.+]] = graph.clip %[[Y]] {max = 1.000000e+00 : f64} : tensor<f16> -> tensor<f16>
  %e = graph.clip %y {max = 1.0} : tensor<f16> -> tensor<f16>
  // CHECK: %[[F:.+]] = graph.clip %[[E]] : tensor<f16> -> tensor<f16>
  %f = graph.clip %e : tensor<f16> -> tensor<f16>
  // CHECK: return %[[D]], %[[F]]
  return %d, %f : tensor<2x3xi32>, tensor<f16>
}

// CHECK-LABEL: func.func @bool_and_cast
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xi1>)
func.func @bool_and_cast(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf16>, tensor<4xi64>) {
  // CHECK: %[[N:.+]] = graph.not %[[B]] : tensor<4xi1> -> tensor<4xi1>
  %n = graph.not %b : tensor<4xi1> -> tensor<4xi1>
  // CHECK: %[[I:.+]] = graph.is_nan %[[X]] : tensor<4xf32> -> tensor<4xi1>
  %i = graph.is_nan %x : tensor<4xf32> -> tensor<4xi1>
  // CHECK: %[[H:.+]] = graph.cast %[[X]] : tensor<4xf32> -> tensor<4xf16>
  %h = graph.cast %x : tensor<4xf32> -> tensor<4xf16>
  // CHECK: %[[L:.+]] = graph.cast %[[B]] : tensor<4xi1> -> tensor<4xi64>
  %l = graph.cast %b : tensor<4xi1> -> tensor<4xi64>
  // CHECK: return %[[N]], %[[I]], %[[H]], %[[L]]
  return %n, %i, %h, %l : tensor<4xi1>, tensor<4xi1>, tensor<4xf16>, tensor<4xi64>
}

// CHECK-LABEL: func.func @arith_binary
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<3xf32>, %[[E:.+]]: tensor<i32>)
func.func @arith_binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %e: tensor<i32>) -> tensor<2x3xf32> {
  // CHECK: %[[R0:.+]] = graph.add %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R1:.+]] = graph.sub %[[B]], %[[R0]] : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = graph.sub %b, %0 : tensor<3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R2:.+]] = graph.mul %[[R1]], %[[R0]] : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = graph.mul %1, %0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R3:.+]] = graph.div %[[R2]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %3 = graph.div %2, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R4:.+]] = graph.max %[[R3]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %4 = graph.max %3, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R5:.+]] = graph.min %[[R4]], %[[B]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %5 = graph.min %4, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  // CHECK: %[[R6:.+]] = graph.pow %[[R5]], %[[E]] : tensor<2x3xf32>, tensor<i32> -> tensor<2x3xf32>
  %6 = graph.pow %5, %e : tensor<2x3xf32>, tensor<i32> -> tensor<2x3xf32>
  // CHECK: return %[[R6]]
  return %6 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @compare_and_logic
// CHECK-SAME: (%[[A:.+]]: tensor<4x1xi64>, %[[B:.+]]: tensor<5xi64>)
func.func @compare_and_logic(%a: tensor<4x1xi64>, %b: tensor<5xi64>) -> tensor<4x5xi1> {
  // CHECK: %[[EQ:.+]] = graph.equal %[[A]], %[[B]] : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  %eq = graph.equal %a, %b : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  // CHECK: %[[LT:.+]] = graph.less %[[A]], %[[B]] : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  %lt = graph.less %a, %b : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  // CHECK: %[[LE:.+]] = graph.less_or_equal %[[A]], %[[B]] : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  %le = graph.less_or_equal %a, %b : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  // CHECK: %[[GT:.+]] = graph.greater %[[A]], %[[B]] : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  %gt = graph.greater %a, %b : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  // CHECK: %[[GE:.+]] = graph.greater_or_equal %[[A]], %[[B]] : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  %ge = graph.greater_or_equal %a, %b : tensor<4x1xi64>, tensor<5xi64> -> tensor<4x5xi1>
  // CHECK: %[[AND:.+]] = graph.and %[[EQ]], %[[LT]] : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  %and = graph.and %eq, %lt : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  // CHECK: %[[OR:.+]] = graph.or %[[AND]], %[[LE]] : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  %or = graph.or %and, %le : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  // CHECK: %[[XOR:.+]] = graph.xor %[[OR]], %[[GT]] : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  %xor = graph.xor %or, %gt : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  // CHECK: %[[R:.+]] = graph.and %[[XOR]], %[[GE]]
  %r = graph.and %xor, %ge : tensor<4x5xi1>, tensor<4x5xi1> -> tensor<4x5xi1>
  return %r : tensor<4x5xi1>
}

// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[C:.+]]: tensor<4x1xi1>, %[[X:.+]]: tensor<3xf32>, %[[Y:.+]]: tensor<f32>)
func.func @where(%c: tensor<4x1xi1>, %x: tensor<3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  // CHECK: graph.where %[[C]], %[[X]], %[[Y]] : tensor<4x1xi1>, tensor<3xf32>, tensor<f32> -> tensor<4x3xf32>
  %0 = graph.where %c, %x, %y : tensor<4x1xi1>, tensor<3xf32>, tensor<f32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3x1xf32>, tensor<1x1x1xf32>) {
  // CHECK: graph.reduce_sum %[[X]] {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %0 = graph.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  // CHECK: graph.reduce_mean %[[X]] {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = graph.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<3xf32>
  // CHECK: graph.reduce_max %[[X]] {axes = array<i64>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
  %2 = graph.reduce_max %x {axes = array<i64>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
  // CHECK: graph.reduce_min %[[X]] {axes = array<i64: 2>} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  %3 = graph.reduce_min %x {axes = array<i64: 2>} : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
  // CHECK: graph.reduce_prod %[[X]] {axes = array<i64>} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  %4 = graph.reduce_prod %x {axes = array<i64>} : tensor<2x3x4xf32> -> tensor<1x1x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2x1x4xf32>, tensor<3xf32>, tensor<f32>, tensor<2x3x1xf32>, tensor<1x1x1xf32>
}

// CHECK-LABEL: func.func @normalizations
// CHECK-SAME: (%[[X:.+]]: tensor<2x8xf32>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>, %[[I:.+]]: tensor<1x3x4x4xf32>, %[[P:.+]]: tensor<3xf32>)
func.func @normalizations(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>, %i: tensor<1x3x4x4xf32>, %p: tensor<3xf32>)
    -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x3x4x4xf32>) {
  // CHECK: graph.softmax %[[X]] {axis = 1 : i64} : tensor<2x8xf32>
  %0 = graph.softmax %x {axis = 1 : i64} : tensor<2x8xf32>
  // CHECK: graph.log_softmax %[[X]] {axis = 0 : i64} : tensor<2x8xf32>
  %1 = graph.log_softmax %x {axis = 0 : i64} : tensor<2x8xf32>
  // CHECK: graph.layer_norm %[[X]], %[[G]], %[[B]] {axis = 1 : i64, epsilon = 9.99999974E-6 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %2 = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  // CHECK: graph.layer_norm %[[X]], %[[G]] {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %3 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-3 : f32} : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  // CHECK: graph.batch_norm %[[I]], %[[P]], %[[P]], %[[P]], %[[P]] {epsilon = 9.99999974E-6 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  %4 = graph.batch_norm %i, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @contractions
// CHECK-SAME: (%[[A:.+]]: tensor<8x128x768xf32>, %[[W:.+]]: tensor<768x64xf32>, %[[M:.+]]: tensor<4x8xf32>, %[[N:.+]]: tensor<16x8xf32>, %[[C:.+]]: tensor<16xf32>)
func.func @contractions(%a: tensor<8x128x768xf32>, %w: tensor<768x64xf32>, %m: tensor<4x8xf32>, %n: tensor<16x8xf32>, %c: tensor<16xf32>)
    -> (tensor<8x128x64xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  // CHECK: graph.matmul %[[A]], %[[W]] : tensor<8x128x768xf32>, tensor<768x64xf32> -> tensor<8x128x64xf32>
  %0 = graph.matmul %a, %w : tensor<8x128x768xf32>, tensor<768x64xf32> -> tensor<8x128x64xf32>
  // CHECK: graph.gemm %[[M]], %[[N]], %[[C]] {alpha = 5.000000e-01 : f32, beta = 2.000000e+00 : f32, trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %1 = graph.gemm %m, %n, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = false, trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
  // CHECK: graph.gemm %[[M]], %[[N]] {trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  %2 = graph.gemm %m, %n {alpha = 1.0 : f32, trans_b = true} : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0, %1, %2 : tensor<8x128x64xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// CHECK-LABEL: func.func @conv_and_pools
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>, %[[B:.+]]: tensor<4xf32>)
func.func @conv_and_pools(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>)
    -> (tensor<1x4x8x8xf32>, tensor<1x4x6x6xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>) {
  // CHECK: graph.conv %[[X]], %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<1x4x8x8xf32>
  // CHECK: graph.conv %[[X]], %[[W]] {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  %1 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  // CHECK: graph.max_pool %[[X]] {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %2 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  // CHECK: graph.average_pool %[[X]] {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %3 = graph.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  return %0, %1, %2, %3 : tensor<1x4x8x8xf32>, tensor<1x4x6x6xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>
}

// CHECK-LABEL: func.func @indexing
// CHECK-SAME: (%[[T:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<1x8xi64>, %[[D:.+]]: tensor<2x3xf32>, %[[I:.+]]: tensor<2x2xi32>)
func.func @indexing(%t: tensor<100x16xf32>, %ids: tensor<1x8xi64>, %d: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> (tensor<1x8x16xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  // CHECK: graph.gather %[[T]], %[[IDS]] {axis = 0 : i64} : tensor<100x16xf32>, tensor<1x8xi64> -> tensor<1x8x16xf32>
  %0 = graph.gather %t, %ids {axis = 0 : i64} : tensor<100x16xf32>, tensor<1x8xi64> -> tensor<1x8x16xf32>
  // CHECK: graph.gather_elements %[[D]], %[[I]] {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
  %1 = graph.gather_elements %d, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x2xi32> -> tensor<2x2xf32>
  // CHECK: graph.gather_nd %[[D]], %[[I]] {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<2x2xi32> -> tensor<2xf32>
  %2 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<2x2xi32> -> tensor<2xf32>
  return %0, %1, %2 : tensor<1x8x16xf32>, tensor<2x2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>, %[[Y:.+]]: tensor<1x3xf32>, %[[S:.+]]: tensor<3x1xf32>, %[[Q:.+]]: tensor<4x4xf32>)
func.func @data_movement(%x: tensor<2x3xf32>, %y: tensor<1x3xf32>, %s: tensor<3x1xf32>, %q: tensor<4x4xf32>)
    -> (tensor<6xf32>, tensor<3x2xf32>, tensor<2x3x4xf32>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<4x4xf32>) {
  // CHECK: graph.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: graph.transpose %[[X]] {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: graph.expand %[[S]] : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %2 = graph.expand %s : tensor<3x1xf32> -> tensor<2x3x4xf32>
  // CHECK: graph.concat %[[X]], %[[Y]] {axis = 0 : i64} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  %3 = graph.concat %x, %y {axis = 0 : i64} : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<3x3xf32>
  // CHECK: graph.slice %[[X]] {starts = array<i64: 1, 2>, steps = array<i64: -1, -2>} : tensor<2x3xf32> -> tensor<2x2xf32>
  %4 = graph.slice %x {starts = array<i64: 1, 2>, steps = array<i64: -1, -2>} : tensor<2x3xf32> -> tensor<2x2xf32>
  // CHECK: graph.trilu %[[Q]] {k = -1 : i64, upper = false} : tensor<4x4xf32>
  %5 = graph.trilu %q {k = -1 : i64, upper = false} : tensor<4x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6xf32>, tensor<3x2xf32>, tensor<2x3x4xf32>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<4x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x02000000003C00400042"
    }
  }
#-}
