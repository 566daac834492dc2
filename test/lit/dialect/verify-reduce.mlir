// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Reductions: sorted unique axes (empty = all), keepdims keeps size-1 axes.

// CHECK-LABEL: func.func @all_axes_listed
// CHECK: graph.reduce_sum %{{.+}} {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
func.func @all_axes_listed(%x: tensor<2x3x4xf32>) -> tensor<f32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 0, 1, 2>, keepdims = false} : tensor<2x3x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A rank-0 operand with no axes reduces nothing and keeps rank 0.
// CHECK-LABEL: func.func @scalar
// CHECK: graph.reduce_prod %{{.+}} {axes = array<i64>} : tensor<i32> -> tensor<i32>
func.func @scalar(%x: tensor<i32>) -> tensor<i32> {
  %0 = graph.reduce_prod %x {axes = array<i64>} : tensor<i32> -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// max and min are defined on i1 (any / all).
// CHECK-LABEL: func.func @bool_max_min
// CHECK: graph.reduce_max %{{.+}} {axes = array<i64: 1>} : tensor<2x3xi1> -> tensor<2x1xi1>
// CHECK: graph.reduce_min %{{.+}} {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi1> -> tensor<3xi1>
func.func @bool_max_min(%x: tensor<2x3xi1>) -> (tensor<2x1xi1>, tensor<3xi1>) {
  %0 = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x3xi1> -> tensor<2x1xi1>
  %1 = graph.reduce_min %x {axes = array<i64: 0>, keepdims = false} : tensor<2x3xi1> -> tensor<3xi1>
  return %0, %1 : tensor<2x1xi1>, tensor<3xi1>
}

// -----

func.func @bool_mean(%x: tensor<2x3xi1>) -> tensor<2x1xi1> {
  // A mean of booleans is not defined.
  // expected-error @+1 {{requires a numeric operand}}
  %0 = graph.reduce_mean %x {axes = array<i64: 1>} : tensor<2x3xi1> -> tensor<2x1xi1>
  return %0 : tensor<2x1xi1>
}

// -----

func.func @bool_prod(%x: tensor<2x3xi1>) -> tensor<2x1xi1> {
  // Nor is a product.
  // expected-error @+1 {{requires a numeric operand}}
  %0 = graph.reduce_prod %x {axes = array<i64: 1>} : tensor<2x3xi1> -> tensor<2x1xi1>
  return %0 : tensor<2x1xi1>
}

// -----

// Reducing a zero-size axis is allowed (the identity of the reduction).
// CHECK-LABEL: func.func @zero_size
// CHECK: graph.reduce_sum %{{.+}} {axes = array<i64: 1>} : tensor<3x0xf32> -> tensor<3x1xf32>
func.func @zero_size(%x: tensor<3x0xf32>) -> tensor<3x1xf32> {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<3x0xf32> -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

func.func @keepdims_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  // keepdims (the default) keeps every reduced axis as 1.
  // expected-error @+1 {{result shape [] does not match the expected shape [1,1]}}
  %0 = graph.reduce_max %x {axes = array<i64>} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
