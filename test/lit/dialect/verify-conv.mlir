// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// graph.conv's shape rule per spatial axis:
// floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1.

// A stride that does not divide: floor((7 - 3) / 2) + 1 = 3.
// CHECK-LABEL: func.func @stride_floor
// CHECK: graph.conv {{.*}} : tensor<1x1x7x7xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
func.func @stride_floor(%x: tensor<1x1x7x7xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x1x7x7xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Per-axis strides, dilations and asymmetric pads (begin pads, then end pads):
// H: (8 + 1 + 0 - 2*2 - 1) / 1 + 1 = 5, W: (8 + 0 + 3 - 2 - 1) / 2 + 1 = 5.
// CHECK-LABEL: func.func @per_axis
// CHECK: graph.conv {{.*}} : tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x5x5xf32>
func.func @per_axis(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<2x6x5x5xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 2>, pads = array<i64: 1, 0, 0, 3>, dilations = array<i64: 2, 1>, group = 1 : i64} : tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<2x6x5x5xf32>
  return %0 : tensor<2x6x5x5xf32>
}

// -----

// 3-D convolution.
// CHECK-LABEL: func.func @conv3d
// CHECK: graph.conv {{.*}} : tensor<1x2x4x5x6xf32>, tensor<3x2x3x3x3xf32>, tensor<3xf32> -> tensor<1x3x2x3x4xf32>
func.func @conv3d(%x: tensor<1x2x4x5x6xf32>, %w: tensor<3x2x3x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x2x3x4xf32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1>, group = 1 : i64} : tensor<1x2x4x5x6xf32>, tensor<3x2x3x3x3xf32>, tensor<3xf32> -> tensor<1x3x2x3x4xf32>
  return %0 : tensor<1x3x2x3x4xf32>
}

// -----

// Grouped: 6 input channels in 3 groups of 2, 9 filters (3 per group).
// CHECK-LABEL: func.func @grouped
// CHECK: graph.conv {{.*}}group = 3 : i64{{.*}} : tensor<1x6x4x4xf16>, tensor<9x2x1x1xf16> -> tensor<1x9x4x4xf16>
func.func @grouped(%x: tensor<1x6x4x4xf16>, %w: tensor<9x2x1x1xf16>) -> tensor<1x9x4x4xf16> {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 3 : i64} : tensor<1x6x4x4xf16>, tensor<9x2x1x1xf16> -> tensor<1x9x4x4xf16>
  return %0 : tensor<1x9x4x4xf16>
}

// -----

func.func @filters_not_divisible(%x: tensor<1x6x4x4xf32>, %w: tensor<8x2x1x1xf32>) -> tensor<1x8x4x4xf32> {
  // 8 filters do not split into 3 groups.
  // expected-error @+1 {{channel counts do not match group 3: input has 6 channels, weight 2x8}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 3 : i64} : tensor<1x6x4x4xf32>, tensor<8x2x1x1xf32> -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

func.func @ceil_not_allowed(%x: tensor<1x1x7x7xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32> {
  // Convolutions always round down.
  // expected-error @+1 {{result shape [1,1,4,4] does not match the expected shape [1,1,3,3]}}
  %0 = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x1x7x7xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // The weight has the input's rank.
  // expected-error @+1 {{requires input and weight of one rank >= 3}}
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}
