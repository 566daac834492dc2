// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Pooling output sizes: floor (or with ceil_mode ceil) of
// (in + pads - dilation * (kernel - 1) - 1) / stride, plus 1; with ceil_mode
// a last window that would start in the end padding is dropped.

// ceil_mode: 5 + 1 + 1 pads, kernel 2, stride 2: ceil(5/2) + 1 = 4 windows,
// but the 4th starts at 6 >= 5 + 1 (in the end pad), so 3.
// CHECK-LABEL: func.func @ceil_drops_pad_window
// CHECK: graph.max_pool {{.*}} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
func.func @ceil_drops_pad_window(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x1x5x5xf32> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// ceil_mode where the extra window does start inside the input: 6, kernel 3,
// stride 2: floor gives 2, ceil 3.
// CHECK-LABEL: func.func @ceil_extra_window
// CHECK: graph.average_pool {{.*}} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
func.func @ceil_extra_window(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

func.func @floor_without_ceil(%x: tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  // Without ceil_mode the same pool has 2 windows per axis.
  // expected-error @+1 {{result shape [1,2,3,3] does not match the expected shape [1,2,2,2]}}
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x2x6x6xf32> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Dilation: kernel 2 with dilation 3 spans 4; 9 - 4 + 1 = 6.
// CHECK-LABEL: func.func @dilated
// CHECK: graph.max_pool {{.*}} : tensor<1x1x9xf32> -> tensor<1x1x6xf32>
func.func @dilated(%x: tensor<1x1x9xf32>) -> tensor<1x1x6xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 3>} : tensor<1x1x9xf32> -> tensor<1x1x6xf32>
  return %0 : tensor<1x1x6xf32>
}

// -----

// A pad of kernel - 1 is the largest allowed: 4 + 2 + 2 - 3 + 1 = 6.
// CHECK-LABEL: func.func @largest_pad
// CHECK: graph.max_pool {{.*}} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
func.func @largest_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x6x6xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}

// -----

// Integer max pooling is allowed (max is defined on integers).
// CHECK-LABEL: func.func @int_max_pool
// CHECK: graph.max_pool {{.*}} : tensor<1x3x4x4xi8> -> tensor<1x3x2x2xi8>
func.func @int_max_pool(%x: tensor<1x3x4x4xi8>) -> tensor<1x3x2x2xi8> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x4x4xi8> -> tensor<1x3x2x2xi8>
  return %0 : tensor<1x3x2x2xi8>
}

// -----

func.func @batch_and_channels(%x: tensor<2x3x4x4xf32>) -> tensor<1x3x2x2xf32> {
  // N and C pass through unchanged.
  // expected-error @+1 {{result shape [1,3,2,2] does not match the expected shape [2,3,2,2]}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<2x3x4x4xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

func.func @dilated_pad_window(%x: tensor<1x1x8xf32>) -> tensor<1x1x8xf32> {
  // The window is kernel * dilation wide for the pad limit: 2 * 2 = 4, so a
  // pad of 4 is too large.
  // expected-error @+1 {{pads must be smaller than the window}}
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 1>, pads = array<i64: 0, 4>, dilations = array<i64: 2>} : tensor<1x1x8xf32> -> tensor<1x1x8xf32>
  return %0 : tensor<1x1x8xf32>
}
