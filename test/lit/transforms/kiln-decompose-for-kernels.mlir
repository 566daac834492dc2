// RUN: kiln-opt %s -kiln-decompose-for-kernels -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-decompose-for-kernels -kiln-fold-constants -split-input-file | FileCheck %s --check-prefix=FOLD

// gather_nd with pairs into a 2x3x4 tensor: the pair (i, j) becomes the row
// i*3 + j of data reshaped to 6x4, negative components wrapped first.
// CHECK-LABEL: func.func @pairs
// CHECK-SAME: (%[[D:.+]]: tensor<2x3x4xf32>, %[[I:.+]]: tensor<5x2xi64>)
// CHECK-DAG: %[[DIMS:.+]] = graph.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-DAG: %[[STR:.+]] = graph.constant dense<[3, 1]> : tensor<2xi64>
// CHECK: %[[NEG:.+]] = graph.less %[[I]], %{{.+}} : tensor<5x2xi64>, tensor<i64> -> tensor<5x2xi1>
// CHECK: %[[SH:.+]] = graph.add %[[I]], %[[DIMS]]
// CHECK: %[[W:.+]] = graph.where %[[NEG]], %[[SH]], %[[I]]
// CHECK: %[[M:.+]] = graph.mul %[[W]], %[[STR]]
// CHECK: %[[L:.+]] = graph.reduce_sum %[[M]] {axes = array<i64: 1>, keepdims = false} : tensor<5x2xi64> -> tensor<5xi64>
// CHECK: %[[F:.+]] = graph.reshape %[[D]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: graph.gather %[[F]], %[[L]] {axis = 0 : i64} : tensor<6x4xf32>, tensor<5xi64> -> tensor<5x4xf32>
// CHECK-NOT: graph.gather_nd
func.func @pairs(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x4xf32> {
  %r = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x3x4xf32>, tensor<5x2xi64> -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----

// The decomposition computes what gather_nd computes: folded on constants
// both give rows 4,5 (tuple (1,0)) and 2,3 (tuple (0,-1)).
// FOLD-LABEL: func.func @same_values
// FOLD: graph.constant dense<{{\[\[}}4, 5], [2, 3]]> : tensor<2x2xi64>
func.func @same_values() -> tensor<2x2xi64> {
  %d = graph.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi64>
  %i = graph.constant dense<[[1, 0], [0, -1]]> : tensor<2x2xi64>
  %r = graph.gather_nd %d, %i {batch_dims = 0 : i64} : tensor<2x2x2xi64>, tensor<2x2xi64> -> tensor<2x2xi64>
  return %r : tensor<2x2xi64>
}

// -----

// batch_dims > 0 has no decomposition yet: the op stays (and lowering then
// reports that it has no kernel).
// CHECK-LABEL: func.func @batched
// CHECK: graph.gather_nd
func.func @batched(%d: tensor<2x3x4xf32>, %i: tensor<2x1xi64>) -> tensor<2x4xf32> {
  %r = graph.gather_nd %d, %i {batch_dims = 1 : i64} : tensor<2x3x4xf32>, tensor<2x1xi64> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
