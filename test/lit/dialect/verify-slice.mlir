// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// graph.slice reads start + i * step for i < count on every axis; all reads
// must be inside the axis, and a count of 0 reads nothing.

// The last read is exactly dim - 1: 1 + 3 * 2 = 7 on an axis of 8.
// CHECK-LABEL: func.func @last_element
// CHECK: graph.slice %{{.+}} {starts = array<i64: 1>, steps = array<i64: 2>} : tensor<8xf32> -> tensor<4xf32>
func.func @last_element(%x: tensor<8xf32>) -> tensor<4xf32> {
  %0 = graph.slice %x {starts = array<i64: 1>, steps = array<i64: 2>} : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @one_past(%x: tensor<8xf32>) -> tensor<4xf32> {
  // One more step would read 8.
  // expected-error @+1 {{axis 0 reads outside [0, 8): start 2, step 2, count 4}}
  %0 = graph.slice %x {starts = array<i64: 2>, steps = array<i64: 2>} : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A reversal down to element 0: 7, 5, 3, 1 and 6, 3, 0.
// CHECK-LABEL: func.func @reverse_to_zero
// CHECK: graph.slice %{{.+}} {starts = array<i64: 7, 6>, steps = array<i64: -2, -3>} : tensor<8x7xf32> -> tensor<4x3xf32>
func.func @reverse_to_zero(%x: tensor<8x7xf32>) -> tensor<4x3xf32> {
  %0 = graph.slice %x {starts = array<i64: 7, 6>, steps = array<i64: -2, -3>} : tensor<8x7xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// An empty result reads nothing, so its start is not checked.
// CHECK-LABEL: func.func @empty
// CHECK: graph.slice %{{.+}} {starts = array<i64: 9, 0>, steps = array<i64: 1, 1>} : tensor<8x2xf32> -> tensor<0x2xf32>
func.func @empty(%x: tensor<8x2xf32>) -> tensor<0x2xf32> {
  %0 = graph.slice %x {starts = array<i64: 9, 0>, steps = array<i64: 1, 1>} : tensor<8x2xf32> -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}

// -----

// A step of 1 from 0 cannot read 9 elements of an axis of 8.
func.func @too_many(%x: tensor<8xf32>) -> tensor<9xf32> {
  // expected-error @+1 {{axis 0 reads outside [0, 8): start 0, step 1, count 9}}
  %0 = graph.slice %x {starts = array<i64: 0>, steps = array<i64: 1>} : tensor<8xf32> -> tensor<9xf32>
  return %0 : tensor<9xf32>
}

// -----

// A rank-0 slice has no starts and no steps.
// CHECK-LABEL: func.func @rank0
// CHECK: graph.slice %{{.+}} {starts = array<i64>, steps = array<i64>} : tensor<f32> -> tensor<f32>
func.func @rank0(%x: tensor<f32>) -> tensor<f32> {
  %0 = graph.slice %x {starts = array<i64>, steps = array<i64>} : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}
