// RUN: %kiln-opt %s -canonicalize | FileCheck %s

// Every graph op is Pure: an unused result lets the op be erased. (Passes
// rely on this to drop dead code and to reorder ops freely.)

// CHECK-LABEL: func.func @all_dead
// CHECK-NEXT: return %{{.+}} : tensor<2x3xf32>
// CHECK-NEXT: }
func.func @all_dead(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %b: tensor<2x3xi1>, %i: tensor<2xi64>,
                    %img: tensor<1x3x4x4xf32>, %w: tensor<2x3x3x3xf32>, %p: tensor<3xf32>, %m: tensor<3x4xf32>,
                    %x_idx: tensor<2x3xi64>, %nd: tensor<4x2xi64>) -> tensor<2x3xf32> {
  %c = graph.constant dense<1.0> : tensor<2x3xf32>
  %u0 = graph.sqrt %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u1 = graph.reciprocal %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u2 = graph.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u3 = graph.log %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u4 = graph.erf %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u5 = graph.tanh %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u6 = graph.sigmoid %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u7 = graph.sin %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u8 = graph.cos %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u9 = graph.floor %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u10 = graph.ceil %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u11 = graph.neg %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u12 = graph.abs %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u13 = graph.relu %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u14 = graph.gelu %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %u15 = graph.leaky_relu %x {alpha = 0.1 : f32} : tensor<2x3xf32> -> tensor<2x3xf32>
  %u16 = graph.clip %x {max = 1.0} : tensor<2x3xf32> -> tensor<2x3xf32>
  %u17 = graph.not %b : tensor<2x3xi1> -> tensor<2x3xi1>
  %u18 = graph.is_nan %x : tensor<2x3xf32> -> tensor<2x3xi1>
  %u19 = graph.cast %x : tensor<2x3xf32> -> tensor<2x3xf16>
  %b0 = graph.add %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b1 = graph.sub %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b2 = graph.mul %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b3 = graph.div %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b4 = graph.max %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b5 = graph.min %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b6 = graph.pow %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %b7 = graph.equal %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %b8 = graph.less %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %b9 = graph.less_or_equal %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %b10 = graph.greater %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %b11 = graph.greater_or_equal %x, %v : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xi1>
  %b12 = graph.and %b, %b : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %b13 = graph.or %b, %b : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %b14 = graph.xor %b, %b : tensor<2x3xi1>, tensor<2x3xi1> -> tensor<2x3xi1>
  %w0 = graph.where %b, %x, %v : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %r0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %r1 = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %r2 = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %r3 = graph.reduce_min %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %r4 = graph.reduce_prod %x {axes = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x1xf32>
  %s0 = graph.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  %s1 = graph.log_softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  %n0 = graph.layer_norm %x, %v, %v {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %n1 = graph.batch_norm %img, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  %k0 = graph.matmul %x, %m : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %k1 = graph.gemm %x, %m : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %k2 = graph.conv %img, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x2x2xf32>
  %k3 = graph.max_pool %img {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  %k4 = graph.average_pool %img {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x2x2xf32>
  %g0 = graph.gather %x, %i {axis = 1 : i64} : tensor<2x3xf32>, tensor<2xi64> -> tensor<2x2xf32>
  %g1 = graph.gather_elements %x, %x_idx {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  %g2 = graph.gather_nd %x, %nd {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x2xi64> -> tensor<4xf32>
  %d0 = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %d1 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %d2 = graph.expand %v : tensor<3xf32> -> tensor<4x3xf32>
  %d3 = graph.concat %x, %x {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  %d4 = graph.slice %x {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : tensor<2x3xf32> -> tensor<1x3xf32>
  %d5 = graph.trilu %x {k = 0 : i64, upper = true} : tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}
