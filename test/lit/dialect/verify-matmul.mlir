// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// graph.matmul's shape rule (numpy matmul): 1-D operands are promoted and
// the added axis removed again, batch axes broadcast.

// CHECK-LABEL: func.func @dot
// CHECK: graph.matmul %{{.+}}, %{{.+}} : tensor<5xf32>, tensor<5xf32> -> tensor<f32>
func.func @dot(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<f32> {
  %0 = graph.matmul %a, %b : tensor<5xf32>, tensor<5xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A vector against a batch of matrices: the batch stays, M is dropped.
// CHECK-LABEL: func.func @vector_batch
// CHECK: graph.matmul %{{.+}}, %{{.+}} : tensor<8xf32>, tensor<2x8x5xf32> -> tensor<2x5xf32>
func.func @vector_batch(%a: tensor<8xf32>, %b: tensor<2x8x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.matmul %a, %b : tensor<8xf32>, tensor<2x8x5xf32> -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// A batch of matrices against a vector: N is dropped.
// CHECK-LABEL: func.func @batch_vector
// CHECK: graph.matmul %{{.+}}, %{{.+}} : tensor<3x2x4x8xi32>, tensor<8xi32> -> tensor<3x2x4xi32>
func.func @batch_vector(%a: tensor<3x2x4x8xi32>, %b: tensor<8xi32>) -> tensor<3x2x4xi32> {
  %0 = graph.matmul %a, %b : tensor<3x2x4x8xi32>, tensor<8xi32> -> tensor<3x2x4xi32>
  return %0 : tensor<3x2x4xi32>
}

// -----

// Batch axes broadcast from both sides and in rank.
// CHECK-LABEL: func.func @batch_broadcast
// CHECK: graph.matmul %{{.+}}, %{{.+}} : tensor<2x1x4x8xf16>, tensor<3x8x5xf16> -> tensor<2x3x4x5xf16>
func.func @batch_broadcast(%a: tensor<2x1x4x8xf16>, %b: tensor<3x8x5xf16>) -> tensor<2x3x4x5xf16> {
  %0 = graph.matmul %a, %b : tensor<2x1x4x8xf16>, tensor<3x8x5xf16> -> tensor<2x3x4x5xf16>
  return %0 : tensor<2x3x4x5xf16>
}

// -----

// K = 0 is a valid (all-zero) product.
// CHECK-LABEL: func.func @empty_k
// CHECK: graph.matmul %{{.+}}, %{{.+}} : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
func.func @empty_k(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.matmul %a, %b : tensor<2x0xf32>, tensor<0x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dot_kept_axis(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<1xf32> {
  // The promoted axes of two vectors are both removed: the result is rank 0.
  // expected-error @+1 {{result shape [1] does not match the expected shape []}}
  %0 = graph.matmul %a, %b : tensor<5xf32>, tensor<5xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @vector_batch_keeps_m(%a: tensor<8xf32>, %b: tensor<2x8x5xf32>) -> tensor<2x1x5xf32> {
  // The lhs's promoted M axis is removed.
  // expected-error @+1 {{result shape [2,1,5] does not match the expected shape [2,5]}}
  %0 = graph.matmul %a, %b : tensor<8xf32>, tensor<2x8x5xf32> -> tensor<2x1x5xf32>
  return %0 : tensor<2x1x5xf32>
}

// -----

func.func @vector_k(%a: tensor<8xf32>, %b: tensor<5x8xf32>) -> tensor<5xf32> {
  // A vector lhs contracts with the rhs's second-to-last axis (5), not its last.
  // expected-error @+1 {{contraction sizes differ: 8 and 5}}
  %0 = graph.matmul %a, %b : tensor<8xf32>, tensor<5x8xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

// tf32 (kilnc --precision=tf32) rounds f32 operands; it round-trips.
// CHECK-LABEL: func.func @tf32
// CHECK: graph.matmul %{{.+}}, %{{.+}} {tf32} : tensor<2x4x8xf32>, tensor<8x5xf32> -> tensor<2x4x5xf32>
func.func @tf32(%a: tensor<2x4x8xf32>, %b: tensor<8x5xf32>) -> tensor<2x4x5xf32> {
  %0 = graph.matmul %a, %b {tf32} : tensor<2x4x8xf32>, tensor<8x5xf32> -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @tf32_f16(%a: tensor<4x8xf16>, %b: tensor<8x5xf16>) -> tensor<4x5xf16> {
  // f16 operands have no tf32 rounding.
  // expected-error @+1 {{tf32 requires f32 operands, not 'f16'}}
  %0 = graph.matmul %a, %b {tf32} : tensor<4x8xf16>, tensor<8x5xf16> -> tensor<4x5xf16>
  return %0 : tensor<4x5xf16>
}
