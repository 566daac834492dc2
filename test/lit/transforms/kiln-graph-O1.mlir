// RUN: %kiln-opt %s -kiln-graph-O1 -split-input-file | FileCheck %s
// RUN: %kiln-opt %s -kiln-graph-O2 -split-input-file | FileCheck %s --check-prefix=O2

// -kiln-graph-O1 canonicalizes and folds constants; -kiln-graph-O2 does at
// least the same.

// Constants fold, the transpose pair cancels, the dead op goes.
// CHECK-LABEL: func.func @cleanup
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[C:.+]] = graph.constant dense<[4.000000e+00, 6.000000e+00, 8.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[R:.+]] = graph.add %[[X]], %[[C]] : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: return %[[R]]
// O2-LABEL: func.func @cleanup
// O2-NOT: graph.transpose
// O2-NOT: graph.exp
// O2: graph.constant dense<[4.000000e+00, 6.000000e+00, 8.000000e+00]> : tensor<3xf32>
// O2-NOT: graph.transpose
func.func @cleanup(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = graph.constant dense<[3.0, 4.0, 5.0]> : tensor<3xf32>
  %s = graph.add %a, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %t = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  %u = graph.transpose %t {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %r = graph.add %u, %s : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %dead = graph.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Folding then canonicalization compose: the reshape of a folded constant
// becomes a constant of the new shape.
// CHECK-LABEL: func.func @fold_then_reshape
// CHECK-NEXT: %[[C:.+]] = graph.constant dense<{{\[\[}}2.000000e+00, 4.000000e+00], [6.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_then_reshape() -> tensor<2x2xf32> {
  %a = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = graph.add %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %r = graph.reshape %s : tensor<4xf32> -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Negative: work on arguments stays.
// CHECK-LABEL: func.func @real_work
// CHECK: graph.matmul
// CHECK: graph.softmax
func.func @real_work(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %1 = graph.softmax %0 {axis = 1 : i64} : tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}
