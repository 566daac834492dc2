// RUN: %kiln-opt %s -kiln-graph-O0 -split-input-file | FileCheck %s

// -kiln-graph-O0 is the import-only pipeline: on graph IR it changes nothing
// (no canonicalization, no folding, no dead-code removal).

// Negative: foldable constants, a cancelling transpose pair and a dead op
// all stay, in order.
// CHECK-LABEL: func.func @unchanged
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK: %[[A:.+]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[B:.+]] = graph.constant dense<[3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<3xf32>
// CHECK: %[[S:.+]] = graph.add %[[A]], %[[B]]
// CHECK: %[[T:.+]] = graph.transpose %[[X]]
// CHECK: %[[U:.+]] = graph.transpose %[[T]]
// CHECK: %[[R:.+]] = graph.add %[[U]], %[[S]]
// CHECK: graph.exp %[[X]]
// CHECK: return %[[R]]
func.func @unchanged(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
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

// Negative: identity ops that canonicalize would fold are kept too.
// CHECK-LABEL: func.func @identities_kept
// CHECK: graph.reshape %{{.+}} : tensor<4xf32> -> tensor<4xf32>
// CHECK: graph.cast %{{.+}} : tensor<4xf32> -> tensor<4xf32>
func.func @identities_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.reshape %x : tensor<4xf32> -> tensor<4xf32>
  %1 = graph.cast %0 : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
