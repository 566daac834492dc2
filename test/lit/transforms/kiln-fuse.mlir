// RUN: kiln-opt %s --kiln-fuse --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-fuse --split-input-file | kiln-opt --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: kiln-opt %s --kiln-fuse=epilogues=false --split-input-file | FileCheck %s --check-prefix=NOEPI
// RUN: kiln-opt %s --kiln-fuse=multi-output=false --split-input-file | FileCheck %s --check-prefix=SINGLE
// RUN: kiln-opt %s --kiln-fuse=index-maps=false --split-input-file | FileCheck %s --check-prefix=NOMAPS
// NOEPI-NOT: graph.fusion "matmul"

// A chain becomes one region; the value x feeds two members.
// CHECK-LABEL: func.func @silu_chain
//  CHECK-NEXT:   %[[F:.*]] = graph.fusion "elementwise"(%arg0, %arg1) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16> {
//  CHECK-NEXT:   ^bb0(%[[X:.*]]: tensor<4x8xf16>, %[[Y:.*]]: tensor<4x8xf16>):
//  CHECK-NEXT:     %[[S:.*]] = graph.sigmoid %[[X]]
//  CHECK-NEXT:     %[[M:.*]] = graph.mul %[[X]], %[[S]]
//  CHECK-NEXT:     %[[A:.*]] = graph.add %[[M]], %[[Y]]
//  CHECK-NEXT:     graph.yield %[[A]] : tensor<4x8xf16>
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
// ROUNDTRIP-LABEL: func.func @silu_chain
// ROUNDTRIP: graph.fusion "elementwise"
func.func @silu_chain(%x: tensor<4x8xf16>, %y: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %0 = graph.sigmoid %x : tensor<4x8xf16> -> tensor<4x8xf16>
  %1 = graph.mul %x, %0 : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %2 = graph.add %1, %y : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  return %2 : tensor<4x8xf16>
}

// -----

// A value with a user outside (here the function's return) becomes a
// second result of the region that uses it (multi-output): one kernel
// stores %0 and %2. Without multi-output it ends a region: %0 is stored
// once and read by the region of %1..%2.
// CHECK-LABEL: func.func @used_outside
//  CHECK-NEXT:   %[[F:.*]]:2 = graph.fusion "elementwise"(%arg0) : (tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>)
//       CHECK:     %[[E:.*]] = graph.exp
//       CHECK:     %[[N:.*]] = graph.neg %[[E]]
//       CHECK:     %[[A:.*]] = graph.abs %[[N]]
//       CHECK:     graph.yield %[[E]], %[[A]]
//       CHECK:   return %[[F]]#0, %[[F]]#1
// SINGLE-LABEL: func.func @used_outside
//  SINGLE-NEXT:   %[[E:.*]] = graph.exp %arg0
//  SINGLE-NEXT:   %[[F:.*]] = graph.fusion "elementwise"(%[[E]])
//       SINGLE:     graph.neg
//       SINGLE:     graph.abs
//       SINGLE:   return %[[E]], %[[F]]
func.func @used_outside(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = graph.exp %x : tensor<16xf32> -> tensor<16xf32>
  %1 = graph.neg %0 : tensor<16xf32> -> tensor<16xf32>
  %2 = graph.abs %1 : tensor<16xf32> -> tensor<16xf32>
  return %0, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// A linear layer's bias add and GELU become its matmul's epilogue: one
// "matmul" region (constants are region inputs).
// CHECK-LABEL: func.func @bias_gelu
// NOEPI-LABEL: func.func @bias_gelu
//       NOEPI:   graph.matmul
//  NOEPI-NEXT:   graph.fusion "elementwise"
//       CHECK:   %[[C:.*]] = graph.constant
//  CHECK-NEXT:   graph.fusion "matmul"(%arg0, %arg1, %[[C]])
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.matmul
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.gelu
//  CHECK-NEXT:     graph.yield
func.func @bias_gelu(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %b = graph.constant dense<0.5> : tensor<8xf32>
  %0 = graph.matmul %x, %w : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
  %1 = graph.add %0, %b : tensor<2x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
  %2 = graph.gelu %1 {approximate = "none"} : tensor<2x8xf32> -> tensor<2x8xf32>
  return %2 : tensor<2x8xf32>
}

// -----

// A cheap op broadcast into a larger result is recomputed inside the region
// (the attention-mask pattern: 1 - mask, times a large negative, added to
// the scores).
// CHECK-LABEL: func.func @mask_broadcast
//       CHECK:   graph.fusion "elementwise"(%{{.*}}, %arg1, %{{.*}}, %arg0) : (tensor<f32>, tensor<2x1x1x8xf32>, tensor<f32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
//       CHECK:     graph.sub
//       CHECK:     graph.mul
//       CHECK:     graph.add
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return
func.func @mask_broadcast(%s: tensor<2x4x8x8xf32>, %m: tensor<2x1x1x8xf32>) -> tensor<2x4x8x8xf32> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %big = graph.constant dense<-1.0e4> : tensor<f32>
  %0 = graph.sub %one, %m : tensor<f32>, tensor<2x1x1x8xf32> -> tensor<2x1x1x8xf32>
  %1 = graph.mul %0, %big : tensor<2x1x1x8xf32>, tensor<f32> -> tensor<2x1x1x8xf32>
  %2 = graph.add %s, %1 : tensor<2x4x8x8xf32>, tensor<2x1x1x8xf32> -> tensor<2x4x8x8xf32>
  return %2 : tensor<2x4x8x8xf32>
}

// -----

// An expensive op broadcast by more than max-expensive-recompute (8) stays
// outside: exp of 8 values feeding 512 outputs would be computed 64 times.
// CHECK-LABEL: func.func @expensive_broadcast
//  CHECK-NEXT:   %[[E:.*]] = graph.exp %arg1
//  CHECK-NEXT:   %[[A:.*]] = graph.add %arg0, %[[E]]
//  CHECK-NEXT:   return %[[A]]
func.func @expensive_broadcast(%s: tensor<64x8xf32>, %v: tensor<8xf32>) -> tensor<64x8xf32> {
  %0 = graph.exp %v : tensor<8xf32> -> tensor<8xf32>
  %1 = graph.add %s, %0 : tensor<64x8xf32>, tensor<8xf32> -> tensor<64x8xf32>
  return %1 : tensor<64x8xf32>
}

// -----

// Casts, compares, where and expand fuse; a value used twice inside a
// region (%5 below, by both operands of one add) is still inside.
// CHECK-LABEL: func.func @mixed_types
//       CHECK:   graph.fusion "elementwise"(%arg0, %arg1)
//       CHECK:     graph.cast
//       CHECK:     graph.greater
//       CHECK:     graph.expand
//       CHECK:     graph.where
//       CHECK:   graph.fusion "elementwise"(%arg1)
//       CHECK:     graph.relu
//       CHECK:     graph.add
//       CHECK:     graph.expand
func.func @mixed_types(%x: tensor<4x8xf16>, %t: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = graph.cast %x : tensor<4x8xf16> -> tensor<4x8xf32>
  %1 = graph.greater %0, %t : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xi1>
  %2 = graph.expand %t : tensor<8xf32> -> tensor<4x8xf32>
  %3 = graph.where %1, %0, %2 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = graph.relu %t : tensor<8xf32> -> tensor<8xf32>
  %5 = graph.add %4, %4 : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  %6 = graph.expand %5 : tensor<8xf32> -> tensor<4x8xf32>
  return %3, %6 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A lone elementwise op stays an op (a region would save no launch).
// CHECK-LABEL: func.func @single
//  CHECK-NEXT:   graph.relu
//  CHECK-NEXT:   return
func.func @single(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = graph.relu %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Rows of a batched activation times a weight, plus bias and residual: one
// region. The residual has the product's shape, the bias is a row vector.
// CHECK-LABEL: func.func @ffn_residual
//  CHECK-NEXT:   graph.fusion "matmul"(%arg0, %arg1, %arg2, %arg3)
//       CHECK:     graph.matmul
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.add
//  CHECK-NEXT:     graph.yield
func.func @ffn_residual(%x: tensor<2x8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf16>, %r: tensor<2x8x32xf16>) -> tensor<2x8x32xf16> {
  %0 = graph.matmul %x, %w : tensor<2x8x16xf16>, tensor<16x32xf16> -> tensor<2x8x32xf16>
  %1 = graph.add %0, %b : tensor<2x8x32xf16>, tensor<32xf16> -> tensor<2x8x32xf16>
  %2 = graph.add %1, %r : tensor<2x8x32xf16>, tensor<2x8x32xf16> -> tensor<2x8x32xf16>
  return %2 : tensor<2x8x32xf16>
}

// -----

// An epilogue operand that is neither a scalar, a row vector nor the
// product's shape (a per-row scale) keeps the matmul outside; the two
// elementwise ops still fuse. A product with two users is not an epilogue's.
// A batched matmul (B with batch axes) is not an epilogue producer.
// CHECK-LABEL: func.func @not_epilogues
//       CHECK:   %[[A:.*]] = graph.matmul %arg0, %arg1
//  CHECK-NEXT:   graph.fusion "elementwise"(%[[A]], %arg2, %arg3)
//       CHECK:   %[[B:.*]] = graph.matmul %arg0, %arg1
//  CHECK-NEXT:   graph.neg %[[B]]
//  CHECK-NEXT:   graph.abs %[[B]]
//       CHECK:   %[[Q:.*]] = graph.matmul %arg4, %arg5
//  CHECK-NEXT:   graph.relu %[[Q]]
func.func @not_epilogues(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %s: tensor<8x1xf32>, %b: tensor<32xf32>,
                         %q: tensor<2x8x16xf32>, %k: tensor<2x16x8xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x8x8xf32>) {
  %0 = graph.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = graph.mul %0, %s : tensor<8x32xf32>, tensor<8x1xf32> -> tensor<8x32xf32>
  %2 = graph.add %1, %b : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  %3 = graph.matmul %x, %w : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %4 = graph.neg %3 : tensor<8x32xf32> -> tensor<8x32xf32>
  %5 = graph.abs %3 : tensor<8x32xf32> -> tensor<8x32xf32>
  %6 = graph.matmul %q, %k : tensor<2x8x16xf32>, tensor<2x16x8xf32> -> tensor<2x8x8xf32>
  %7 = graph.relu %6 : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  return %2, %4, %5, %7 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<2x8x8xf32>
}

// -----

// A region whose result has another dtype (a cast after the bias add, as
// --precision leaves before an f32 output) or another rank (a bias of shape
// 1x1x32 adds a leading axis) keeps its matmul outside: the epilogue writes
// the product's type.
// CHECK-LABEL: func.func @epilogue_result_type
//       CHECK:   %[[A:.*]] = graph.matmul
//  CHECK-NEXT:   graph.fusion "elementwise"(%[[A]], %arg2)
//       CHECK:   %[[B:.*]] = graph.matmul
//  CHECK-NEXT:   graph.fusion "elementwise"(%[[B]], %arg3)
func.func @epilogue_result_type(%x: tensor<8x16xf16>, %w: tensor<16x32xf16>, %b: tensor<32xf16>,
                                %c: tensor<1x1x32xf16>) -> (tensor<8x32xf32>, tensor<1x8x32xf16>) {
  %0 = graph.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf16>
  %1 = graph.add %0, %b : tensor<8x32xf16>, tensor<32xf16> -> tensor<8x32xf16>
  %2 = graph.cast %1 : tensor<8x32xf16> -> tensor<8x32xf32>
  %3 = graph.matmul %x, %w : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf16>
  %4 = graph.add %3, %c : tensor<8x32xf16>, tensor<1x1x32xf16> -> tensor<1x8x32xf16>
  %5 = graph.relu %4 : tensor<1x8x32xf16> -> tensor<1x8x32xf16>
  return %2, %5 : tensor<8x32xf32>, tensor<1x8x32xf16>
}

// -----

// Multi-output with the order against it: %0's other user (the reduction)
// comes before the region's last result and feeds it, so the region would
// depend on its own result: %0 stays a kernel of its own.
// CHECK-LABEL: func.func @shared_before_end
//  CHECK-NEXT:   %[[E:.*]] = graph.exp %arg0
//  CHECK-NEXT:   %[[S:.*]] = graph.reduce_sum %[[E]]
//  CHECK-NEXT:   graph.fusion "elementwise"(%[[E]], %[[S]])
func.func @shared_before_end(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = graph.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = graph.reduce_sum %0 {axes = array<i64: 1>} : tensor<4x8xf32> -> tensor<4x1xf32>
  %2 = graph.mul %0, %1 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %3 = graph.neg %2 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Results of different shapes do not share a kernel: %0 ([4, 1]) is also
// returned, and the region's result is [4, 8].
// CHECK-LABEL: func.func @shapes_differ
//  CHECK-NEXT:   %[[E:.*]] = graph.exp %arg1
//  CHECK-NEXT:   graph.fusion "elementwise"(%arg0, %[[E]])
func.func @shapes_differ(%x: tensor<4x8xf32>, %b: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) {
  %0 = graph.exp %b : tensor<4x1xf32> -> tensor<4x1xf32>
  %1 = graph.add %x, %0 : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %2 = graph.neg %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %2 : tensor<4x1xf32>, tensor<4x8xf32>
}

// -----

// Reshapes and transposes join as index maps: SiLU, split into heads,
// heads transposed (the innermost axis stays innermost), times y.
// CHECK-LABEL: func.func @split_heads
//  CHECK-NEXT:   %[[F:.*]] = graph.fusion "elementwise"(%arg0, %arg1)
//  CHECK-NEXT:   ^bb0
//  CHECK-NEXT:     graph.sigmoid
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.reshape
//  CHECK-NEXT:     graph.transpose
//  CHECK-NEXT:     graph.mul
//  CHECK-NEXT:     graph.yield
//  CHECK-NEXT:   }
//  CHECK-NEXT:   return %[[F]]
// NOMAPS-LABEL: func.func @split_heads
//  NOMAPS-NEXT:   graph.fusion "elementwise"(%arg0)
//       NOMAPS:   graph.reshape
//  NOMAPS-NEXT:   graph.transpose
//  NOMAPS-NEXT:   graph.mul
func.func @split_heads(%x: tensor<2x64x256xf16>, %y: tensor<2x8x64x32xf16>) -> tensor<2x8x64x32xf16> {
  %0 = graph.sigmoid %x : tensor<2x64x256xf16> -> tensor<2x64x256xf16>
  %1 = graph.mul %x, %0 : tensor<2x64x256xf16>, tensor<2x64x256xf16> -> tensor<2x64x256xf16>
  %2 = graph.reshape %1 : tensor<2x64x256xf16> -> tensor<2x64x8x32xf16>
  %3 = graph.transpose %2 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x8x32xf16> -> tensor<2x8x64x32xf16>
  %4 = graph.mul %3, %y : tensor<2x8x64x32xf16>, tensor<2x8x64x32xf16> -> tensor<2x8x64x32xf16>
  return %4 : tensor<2x8x64x32xf16>
}

// -----

// A transpose that moves the innermost axis (strided reads) stays outside;
// a reshape alone is a view, no region.
// CHECK-LABEL: func.func @inner_transpose_stays
//  CHECK-NEXT:   graph.exp
//  CHECK-NEXT:   graph.transpose
//  CHECK-NEXT:   graph.reshape
//  CHECK-NEXT:   graph.relu
//  CHECK-NEXT:   return
func.func @inner_transpose_stays(%x: tensor<64x48xf32>) -> tensor<3072xf32> {
  %0 = graph.exp %x : tensor<64x48xf32> -> tensor<64x48xf32>
  %1 = graph.transpose %0 {perm = array<i64: 1, 0>} : tensor<64x48xf32> -> tensor<48x64xf32>
  %2 = graph.reshape %1 : tensor<48x64xf32> -> tensor<3072xf32>
  %3 = graph.relu %2 : tensor<3072xf32> -> tensor<3072xf32>
  return %3 : tensor<3072xf32>
}
