// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Gather-family shape rules.

// A scalar index on the last axis removes it.
// CHECK-LABEL: func.func @gather_last_axis_scalar
// CHECK: graph.gather %{{.+}}, %{{.+}} {axis = 2 : i64} : tensor<2x3x4xf32>, tensor<i32> -> tensor<2x3xf32>
func.func @gather_last_axis_scalar(%d: tensor<2x3x4xf32>, %i: tensor<i32>) -> tensor<2x3xf32> {
  %0 = graph.gather %d, %i {axis = 2 : i64} : tensor<2x3x4xf32>, tensor<i32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Rank-2 indices in the middle: [2] + [5,6] + [4].
// CHECK-LABEL: func.func @gather_middle
// CHECK: graph.gather %{{.+}}, %{{.+}} {axis = 1 : i64} : tensor<2x3x4xi1>, tensor<5x6xi64> -> tensor<2x5x6x4xi1>
func.func @gather_middle(%d: tensor<2x3x4xi1>, %i: tensor<5x6xi64>) -> tensor<2x5x6x4xi1> {
  %0 = graph.gather %d, %i {axis = 1 : i64} : tensor<2x3x4xi1>, tensor<5x6xi64> -> tensor<2x5x6x4xi1>
  return %0 : tensor<2x5x6x4xi1>
}

// -----

// Indices may be any integer width, signed or not.
// CHECK-LABEL: func.func @gather_index_types
// CHECK: graph.gather %{{.+}}, %{{.+}} {axis = 0 : i64} : tensor<5xf32>, tensor<2xi8> -> tensor<2xf32>
// CHECK: graph.gather %{{.+}}, %{{.+}} {axis = 0 : i64} : tensor<5xf32>, tensor<2xui16> -> tensor<2xf32>
func.func @gather_index_types(%d: tensor<5xf32>, %a: tensor<2xi8>, %b: tensor<2xui16>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = graph.gather %d, %a {axis = 0 : i64} : tensor<5xf32>, tensor<2xi8> -> tensor<2xf32>
  %1 = graph.gather %d, %b {axis = 0 : i64} : tensor<5xf32>, tensor<2xui16> -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

func.func @gather_rank0_data(%d: tensor<f32>, %i: tensor<i64>) -> tensor<f32> {
  // Rank-0 data has no axis to gather from.
  // expected-error @+1 {{axis 0 is out of range for rank 0}}
  %0 = graph.gather %d, %i {axis = 0 : i64} : tensor<f32>, tensor<i64> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// gather_elements: the result has the indices' shape, which may be larger
// than the data's on the gathered axis and smaller on the others.
// CHECK-LABEL: func.func @gather_elements_shapes
// CHECK: graph.gather_elements %{{.+}}, %{{.+}} {axis = 0 : i64} : tensor<2x5xf32>, tensor<7x3xi64> -> tensor<7x3xf32>
func.func @gather_elements_shapes(%d: tensor<2x5xf32>, %i: tensor<7x3xi64>) -> tensor<7x3xf32> {
  %0 = graph.gather_elements %d, %i {axis = 0 : i64} : tensor<2x5xf32>, tensor<7x3xi64> -> tensor<7x3xf32>
  return %0 : tensor<7x3xf32>
}

// -----

// gather_nd, full tuples: [4] + [] = [4].
// CHECK-LABEL: func.func @gather_nd_full
// CHECK: graph.gather_nd %{{.+}}, %{{.+}} {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x2xi64> -> tensor<4xf32>
func.func @gather_nd_full(%d: tensor<2x3xf32>, %i: tensor<4x2xi64>) -> tensor<4xf32> {
  %0 = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3xf32>, tensor<4x2xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gather_nd with one batch axis and 1-tuples: [2,5] + [4] (data axis 2 kept).
// CHECK-LABEL: func.func @gather_nd_batch
// CHECK: graph.gather_nd %{{.+}}, %{{.+}} {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi32> -> tensor<2x5x4xf32>
func.func @gather_nd_batch(%d: tensor<2x3x4xf32>, %i: tensor<2x5x1xi32>) -> tensor<2x5x4xf32> {
  %0 = graph.gather_nd %d, %i {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi32> -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

func.func @gather_nd_batch_result(%d: tensor<2x3x4xf32>, %i: tensor<2x5x1xi32>) -> tensor<2x5x3x4xf32> {
  // The addressed axis (3) is consumed by the tuple, only axis 2 remains.
  // expected-error @+1 {{result shape [2,5,3,4] does not match the expected shape [2,5,4]}}
  %0 = graph.gather_nd %d, %i {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x5x1xi32> -> tensor<2x5x3x4xf32>
  return %0 : tensor<2x5x3x4xf32>
}
