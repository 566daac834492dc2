// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Default-valued attributes: when absent the verifier uses the default (so
// the shapes must match it), and when equal to it they are not printed.

// gemm without attributes is alpha = beta = 1, no transposes.
// CHECK-LABEL: func.func @gemm_defaults
// CHECK: graph.gemm %{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
func.func @gemm_defaults(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = graph.gemm %a, %b {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @gemm_missing_trans(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // Without trans_b, B of [16,8] contracts on 16.
  // expected-error @+1 {{contraction sizes differ: 8 and 16}}
  %0 = graph.gemm %a, %b : tensor<4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// keepdims defaults to true.
// CHECK-LABEL: func.func @reduce_default_keepdims
// CHECK: graph.reduce_sum %{{.+}} {axes = array<i64: 0>} : tensor<3x4xf32> -> tensor<1x4xf32>
func.func @reduce_default_keepdims(%x: tensor<3x4xf32>) -> tensor<1x4xf32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 0>} : tensor<3x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @reduce_missing_keepdims(%x: tensor<3x4xf32>) -> tensor<4xf32> {
  // Dropping the axis needs keepdims = false spelled out.
  // expected-error @+1 {{result shape [4] does not match the expected shape [1,4]}}
  %0 = graph.reduce_sum %x {axes = array<i64: 0>} : tensor<3x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ceil_mode and count_include_pad default to false; gelu to "none".
// CHECK-LABEL: func.func @pool_and_gelu_defaults
// CHECK: graph.average_pool %{{.+}} {dilations = array<i64: 1>, kernel_shape = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x1x7xf32> -> tensor<1x1x3xf32>
// CHECK: graph.gelu %{{.+}} : tensor<1x1x3xf32> -> tensor<1x1x3xf32>
func.func @pool_and_gelu_defaults(%x: tensor<1x1x7xf32>) -> tensor<1x1x3xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, ceil_mode = false, count_include_pad = false} : tensor<1x1x7xf32> -> tensor<1x1x3xf32>
  %1 = graph.gelu %0 {approximate = "none"} : tensor<1x1x3xf32> -> tensor<1x1x3xf32>
  return %1 : tensor<1x1x3xf32>
}

// -----

func.func @pool_missing_ceil(%x: tensor<1x1x7xf32>) -> tensor<1x1x4xf32> {
  // Without ceil_mode, 7 with kernel 2 stride 2 gives 3.
  // expected-error @+1 {{result shape [1,1,4] does not match the expected shape [1,1,3]}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 1>} : tensor<1x1x7xf32> -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

func.func @required_attribute(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // axis has no default.
  // expected-error @+1 {{requires attribute 'axis'}}
  %0 = graph.softmax %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @required_alpha(%x: tensor<2xf32>) -> tensor<2xf32> {
  // leaky_relu's alpha has no default in the dialect (the frontend writes ONNX's 0.01).
  // expected-error @+1 {{requires attribute 'alpha'}}
  %0 = graph.leaky_relu %x : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
