// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// transpose: perm is a permutation of the operand's axes and
// out.shape[i] = in.shape[perm[i]]. concat: one rank and element type, equal
// sizes except on the axis, where they add up.

// Rank 0 and rank 1 have one permutation each.
// CHECK-LABEL: func.func @transpose_small_ranks
// CHECK: graph.transpose %{{.+}} {perm = array<i64>} : tensor<f32> -> tensor<f32>
// CHECK: graph.transpose %{{.+}} {perm = array<i64: 0>} : tensor<3xf32> -> tensor<3xf32>
func.func @transpose_small_ranks(%s: tensor<f32>, %v: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %0 = graph.transpose %s {perm = array<i64>} : tensor<f32> -> tensor<f32>
  %1 = graph.transpose %v {perm = array<i64: 0>} : tensor<3xf32> -> tensor<3xf32>
  return %0, %1 : tensor<f32>, tensor<3xf32>
}

// -----

// A rank-5 permutation (out.shape[i] = in.shape[perm[i]], not the inverse).
// CHECK-LABEL: func.func @transpose_rank5
// CHECK: graph.transpose %{{.+}} {perm = array<i64: 4, 2, 0, 3, 1>} : tensor<2x3x4x5x6xf32> -> tensor<6x4x2x5x3xf32>
func.func @transpose_rank5(%x: tensor<2x3x4x5x6xf32>) -> tensor<6x4x2x5x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 4, 2, 0, 3, 1>} : tensor<2x3x4x5x6xf32> -> tensor<6x4x2x5x3xf32>
  return %0 : tensor<6x4x2x5x3xf32>
}

// -----

func.func @transpose_inverse_perm(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  // [2,0,1] gives [4,2,3]; [3,4,2] would be the inverse permutation's shape.
  // expected-error @+1 {{result shape [3,4,2] does not match the expected shape [4,2,3]}}
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

// Many inputs, one of them empty along the axis.
// CHECK-LABEL: func.func @concat_many
// CHECK: graph.concat %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {axis = 1 : i64} : tensor<2x1xi64>, tensor<2x0xi64>, tensor<2x3xi64>, tensor<2x1xi64> -> tensor<2x5xi64>
func.func @concat_many(%a: tensor<2x1xi64>, %b: tensor<2x0xi64>, %c: tensor<2x3xi64>, %d: tensor<2x1xi64>) -> tensor<2x5xi64> {
  %0 = graph.concat %a, %b, %c, %d {axis = 1 : i64} : tensor<2x1xi64>, tensor<2x0xi64>, tensor<2x3xi64>, tensor<2x1xi64> -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

func.func @concat_rank0(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2xf32> {
  // Scalars have no axis to concatenate on (reshape them to [1] first).
  // expected-error @+1 {{axis 0 is out of range for rank 0}}
  %0 = graph.concat %a, %b {axis = 0 : i64} : tensor<f32>, tensor<f32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concat_third_input(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<1x3xf32>) -> tensor<5x3xf32> {
  // Every input counts, not only the first two: 2 + 2 + 1 = 5 along axis 1
  // would need matching axis-0 sizes.
  // expected-error @+1 {{inputs differ on non-concatenated axis 0}}
  %0 = graph.concat %a, %b, %c {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x3xf32> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
