// RUN: %kiln-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders and canonicalization patterns of the graph dialect: cast, reshape,
// transpose, expand, slice and concat. Each negative case says why nothing
// fires.

// A cast to the operand's own type is the operand.
// CHECK-LABEL: func.func @cast_same_type
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cast_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.cast %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Negative: a real conversion stays, and f32 -> f16 -> f32 is not an identity
// (it rounds), so the two casts are not merged.
// CHECK-LABEL: func.func @cast_round_trip_kept
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[H:.+]] = graph.cast %[[X]] : tensor<4xf32> -> tensor<4xf16>
// CHECK: %[[F:.+]] = graph.cast %[[H]] : tensor<4xf16> -> tensor<4xf32>
// CHECK: return %[[F]]
func.func @cast_round_trip_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.cast %x : tensor<4xf32> -> tensor<4xf16>
  %1 = graph.cast %0 : tensor<4xf16> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A reshape to the same type is the operand.
// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// reshape(reshape(x)) becomes one reshape from x to the final shape.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.+]] = graph.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = graph.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
  %1 = graph.reshape %0 : tensor<24xf32> -> tensor<4x6xf32>
  return %1 : tensor<4x6xf32>
}

// -----

// A chain of three reshapes collapses too.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x6xf32>)
// CHECK-NEXT: %[[R:.+]] = graph.reshape %[[X]] : tensor<2x6xf32> -> tensor<3x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_chain(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %0 = graph.reshape %x : tensor<2x6xf32> -> tensor<12xf32>
  %1 = graph.reshape %0 : tensor<12xf32> -> tensor<1x12xf32>
  %2 = graph.reshape %1 : tensor<1x12xf32> -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// Reshaping back to the original shape leaves nothing.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NOT: graph.reshape
// CHECK: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = graph.reshape %0 : tensor<6xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// The intermediate reshape stays when it has another user.
// CHECK-LABEL: func.func @reshape_of_reshape_shared
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-DAG: %[[A:.+]] = graph.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-DAG: %[[B:.+]] = graph.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[A]], %[[B]]
func.func @reshape_of_reshape_shared(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %0 = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %1 = graph.reshape %0 : tensor<6xf32> -> tensor<3x2xf32>
  return %0, %1 : tensor<6xf32>, tensor<3x2xf32>
}

// -----

// Reshaping a dense constant folds into a constant of the new type.
// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: %[[C:.+]] = graph.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_constant() -> tensor<2x2xf32> {
  %0 = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %1 = graph.reshape %0 : tensor<4xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// A splat constant reshapes to a splat.
// CHECK-LABEL: func.func @reshape_splat
// CHECK-NEXT: %[[C:.+]] = graph.constant dense<7> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @reshape_splat() -> tensor<2x3xi64> {
  %0 = graph.constant dense<7> : tensor<6xi64>
  %1 = graph.reshape %0 : tensor<6xi64> -> tensor<2x3xi64>
  return %1 : tensor<2x3xi64>
}

// -----

// Negative: a dense_resource weight is not folded into a new attribute (that
// would copy the blob); the reshape stays.
// CHECK-LABEL: func.func @reshape_resource_kept
// CHECK: %[[C:.+]] = graph.constant dense_resource<w> : tensor<4xf32>
// CHECK: %[[R:.+]] = graph.reshape %[[C]] : tensor<4xf32> -> tensor<2x2xf32>
// CHECK: return %[[R]]
func.func @reshape_resource_kept() -> tensor<2x2xf32> {
  %0 = graph.constant dense_resource<w> : tensor<4xf32>
  %1 = graph.reshape %0 : tensor<4xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x04000000000080BF0000803F0000004000004040"
    }
  }
#-}

// -----

// An identity permutation is the operand.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// transpose(transpose(x, p1), p2) is transpose(x, p1[p2]):
// p1 = [1,2,0], p2 = [1,2,0] give [2,0,1].
// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.+]] = graph.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<3x4x2xf32> -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// Order matters in the composition: p1 = [0,2,1,3], p2 = [1,0,2,3] give
// [2,0,1,3], not [1,2,0,3].
// CHECK-LABEL: func.func @transpose_compose_order
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT: %[[T:.+]] = graph.transpose %[[X]] {perm = array<i64: 2, 0, 1, 3>} : tensor<2x3x4x5xf32> -> tensor<4x2x3x5xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose_order(%x: tensor<2x3x4x5xf32>) -> tensor<4x2x3x5xf32> {
  %0 = graph.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x4x3x5xf32> -> tensor<4x2x3x5xf32>
  return %1 : tensor<4x2x3x5xf32>
}

// -----

// Inverse permutations cancel out completely.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
// CHECK-NOT: graph.transpose
// CHECK: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 2, 0>} : tensor<4x2x3xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// A transpose that only moves size-1 axes keeps the data order: a reshape.
// CHECK-LABEL: func.func @transpose_unit_axes
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4xf32>)
// CHECK-NOT: graph.transpose
// CHECK: %[[R:.+]] = graph.reshape %[[X]] : tensor<1x3x4xf32> -> tensor<3x1x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_unit_axes(%x: tensor<1x3x4xf32>) -> tensor<3x1x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<1x3x4xf32> -> tensor<3x1x4xf32>
  return %0 : tensor<3x1x4xf32>
}

// -----

// Several unit axes moving around the non-unit ones, which keep their order.
// CHECK-LABEL: func.func @transpose_unit_axes_many
// CHECK-SAME: (%[[X:.+]]: tensor<1x5x1x6xf32>)
// CHECK: graph.reshape %[[X]] : tensor<1x5x1x6xf32> -> tensor<5x1x6x1xf32>
// CHECK-NOT: graph.transpose
func.func @transpose_unit_axes_many(%x: tensor<1x5x1x6xf32>) -> tensor<5x1x6x1xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 0, 3, 2>} : tensor<1x5x1x6xf32> -> tensor<5x1x6x1xf32>
  return %0 : tensor<5x1x6x1xf32>
}

// -----

// Negative: this transpose swaps the two non-unit axes (3 and 4), which
// reorders the data, so it is not a reshape.
// CHECK-LABEL: func.func @transpose_moves_data
// CHECK-SAME: (%[[X:.+]]: tensor<1x3x4xf32>)
// CHECK: %[[T:.+]] = graph.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : tensor<1x3x4xf32> -> tensor<4x1x3xf32>
// CHECK-NOT: graph.reshape
func.func @transpose_moves_data(%x: tensor<1x3x4xf32>) -> tensor<4x1x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<1x3x4xf32> -> tensor<4x1x3xf32>
  return %0 : tensor<4x1x3xf32>
}

// -----

// Negative: a plain matrix transpose (no unit axes) stays.
// CHECK-LABEL: func.func @transpose_matrix_kept
// CHECK: graph.transpose %{{.+}} {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
func.func @transpose_matrix_kept(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A transpose of unit axes whose result feeds a reshape: both become one reshape.
// CHECK-LABEL: func.func @transpose_unit_then_reshape
// CHECK-SAME: (%[[X:.+]]: tensor<1x8xf32>)
// CHECK-NEXT: %[[R:.+]] = graph.reshape %[[X]] : tensor<1x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_unit_then_reshape(%x: tensor<1x8xf32>) -> tensor<2x4xf32> {
  %0 = graph.transpose %x {perm = array<i64: 1, 0>} : tensor<1x8xf32> -> tensor<8x1xf32>
  %1 = graph.reshape %0 : tensor<8x1xf32> -> tensor<2x4xf32>
  return %1 : tensor<2x4xf32>
}

// -----

// An expand to the operand's own type is the operand.
// CHECK-LABEL: func.func @expand_same_type
// CHECK-SAME: (%[[X:.+]]: tensor<3x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @expand_same_type(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.expand %x : tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Expanding a splat constant is a splat of the result type.
// CHECK-LABEL: func.func @expand_splat
// CHECK-NEXT: %[[C:.+]] = graph.constant dense<1.500000e+00> : tensor<2x3x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @expand_splat() -> tensor<2x3x4xf32> {
  %0 = graph.constant dense<1.5> : tensor<3x1xf32>
  %1 = graph.expand %0 : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Negative: a non-splat constant is not materialized at the larger size.
// CHECK-LABEL: func.func @expand_dense_kept
// CHECK: %[[C:.+]] = graph.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[E:.+]] = graph.expand %[[C]] : tensor<3xf32> -> tensor<4x3xf32>
// CHECK: return %[[E]]
func.func @expand_dense_kept() -> tensor<4x3xf32> {
  %0 = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %1 = graph.expand %0 : tensor<3xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// Negative: a real broadcast of an argument stays.
// CHECK-LABEL: func.func @expand_kept
// CHECK: graph.expand %{{.+}} : tensor<3x1xf32> -> tensor<3x4xf32>
func.func @expand_kept(%x: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %0 = graph.expand %x : tensor<3x1xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// An identity slice (all starts 0, all steps 1, same type) is the operand.
// CHECK-LABEL: func.func @slice_identity
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @slice_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Negative: a reversal has the operand's type but is not the identity.
// CHECK-LABEL: func.func @slice_reverse_kept
// CHECK: graph.slice %{{.+}} {starts = array<i64: 0, 7>, steps = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4x8xf32>
func.func @slice_reverse_kept(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.slice %x {starts = array<i64: 0, 7>, steps = array<i64: 1, -1>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Negative: a prefix slice (start 0, step 1) changes the type, so it stays.
// CHECK-LABEL: func.func @slice_prefix_kept
// CHECK: graph.slice %{{.+}} {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
func.func @slice_prefix_kept(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A concat of one operand is the operand.
// CHECK-LABEL: func.func @concat_single
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @concat_single(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.concat %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Negative: a concat of two operands does real work.
// CHECK-LABEL: func.func @concat_two_kept
// CHECK: graph.concat %{{.+}}, %{{.+}} {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
func.func @concat_two_kept(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %0 = graph.concat %x, %x {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Identical constants are merged and unused ops (all graph ops are pure) go
// (the splats broadcast as one rank-0 constant: @bert_padding_mask below).
// CHECK-LABEL: func.func @constants_and_dead_ops
// CHECK-SAME: (%[[X:.+]]: tensor<3xf32>)
// CHECK: %[[C:.+]] = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NOT: graph.constant
// CHECK-NOT: graph.exp
// CHECK: %[[A:.+]] = graph.add %[[X]], %[[C]]
// CHECK: %[[M:.+]] = graph.mul %[[A]], %[[C]]
// CHECK: return %[[M]]
func.func @constants_and_dead_ops(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c0 = graph.constant dense<2.0> : tensor<3xf32>
  %c1 = graph.constant dense<2.0> : tensor<3xf32>
  %dead = graph.exp %x : tensor<3xf32> -> tensor<3xf32>
  %0 = graph.add %x, %c0 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %1 = graph.mul %0, %c1 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// Negative: canonicalize does not evaluate arithmetic on constants (that is
// -kiln-fold-constants' job), so the add of two constants stays.
// CHECK-LABEL: func.func @no_constant_arith
// CHECK: graph.add
func.func @no_constant_arith() -> tensor<2xf32> {
  %a = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %0 = graph.add %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Broadcasting elementwise ops run on their operands' narrow forms: the
// padding mask HF's BERT builds as where(and(true[1,1,S,1], pad[B,1,1,S]),
// 0, lowest) stays [B,1,1,S] (one expand at the end, absorbed by the add
// of the scores), instead of a materialized [B,1,S,S].
// CHECK-LABEL: func.func @bert_padding_mask
// CHECK-SAME: (%[[S:.+]]: tensor<2x3x4x4xf32>, %[[PAD:.+]]: tensor<2x1x1x4xi1>)
// CHECK-DAG: %[[ZERO:.+]] = graph.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[LOW:.+]] = graph.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK: %[[W:.+]] = graph.where %[[PAD]], %[[ZERO]], %[[LOW]] : tensor<2x1x1x4xi1>, tensor<f32>, tensor<f32> -> tensor<2x1x1x4xf32>
// CHECK-NEXT: %[[A:.+]] = graph.add %[[S]], %[[W]] : tensor<2x3x4x4xf32>, tensor<2x1x1x4xf32> -> tensor<2x3x4x4xf32>
// CHECK-NEXT: return %[[A]]
func.func @bert_padding_mask(%s: tensor<2x3x4x4xf32>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x3x4x4xf32> {
  %t = graph.constant dense<true> : tensor<1x1x4x1xi1>
  %z = graph.constant dense<0.0> : tensor<f32>
  %l = graph.constant dense<-3.40282347E+38> : tensor<f32>
  %m = graph.and %t, %pad : tensor<1x1x4x1xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %e = graph.expand %m : tensor<2x1x4x4xi1> -> tensor<2x1x4x4xi1>
  %w = graph.where %e, %z, %l : tensor<2x1x4x4xi1>, tensor<f32>, tensor<f32> -> tensor<2x1x4x4xf32>
  %a = graph.add %s, %w : tensor<2x3x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x3x4x4xf32>
  return %a : tensor<2x3x4x4xf32>
}

// -----

// A splat operand broadcasts as a scalar: mul(expand(x), splat) is computed
// on x's shape and expanded once.
// CHECK-LABEL: func.func @expand_sinks_past_splat
// CHECK-SAME: (%[[X:.+]]: tensor<1x4xf32>)
// CHECK: %[[C:.+]] = graph.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[M:.+]] = graph.mul %[[X]], %[[C]] : tensor<1x4xf32>, tensor<f32> -> tensor<1x4xf32>
// CHECK: %[[E:.+]] = graph.expand %[[M]] : tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK: return %[[E]]
func.func @expand_sinks_past_splat(%x: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %c = graph.constant dense<2.0> : tensor<3x4xf32>
  %e = graph.expand %x : tensor<1x4xf32> -> tensor<3x4xf32>
  %m = graph.mul %e, %c : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %m : tensor<3x4xf32>
}

// -----

// or(x, false) is x; and(x, false) is no identity and stays (its operand
// x spans the result, so there is nothing to narrow either).
// CHECK-LABEL: func.func @or_false
// CHECK-SAME: (%[[X:.+]]: tensor<2x4xi1>)
// CHECK: %[[F:.+]] = graph.constant dense<false> : tensor<i1>
// CHECK: %[[A:.+]] = graph.and %[[X]], %[[F]] : tensor<2x4xi1>, tensor<i1> -> tensor<2x4xi1>
// CHECK: return %[[X]], %[[A]]
func.func @or_false(%x: tensor<2x4xi1>) -> (tensor<2x4xi1>, tensor<2x4xi1>) {
  %f = graph.constant dense<false> : tensor<i1>
  %o = graph.or %x, %f : tensor<2x4xi1>, tensor<i1> -> tensor<2x4xi1>
  %a = graph.and %x, %f : tensor<2x4xi1>, tensor<i1> -> tensor<2x4xi1>
  return %o, %a : tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// Negative: an expand feeding an op that does not broadcast (softmax
// normalizes along the expanded axis) stays.
// CHECK-LABEL: func.func @expand_into_softmax_kept
// CHECK: %[[E:.+]] = graph.expand
// CHECK: graph.softmax %[[E]]
func.func @expand_into_softmax_kept(%x: tensor<3x1xf32>) -> tensor<3x4xf32> {
  %e = graph.expand %x : tensor<3x1xf32> -> tensor<3x4xf32>
  %s = graph.softmax %e {axis = 1 : i64} : tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
