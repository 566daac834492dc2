// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// graph.gemm's shape rule: op(A) is MxK, op(B) KxN, C broadcasts to MxN.

// CHECK-LABEL: func.func @both_transposed
// CHECK: graph.gemm %{{.+}}, %{{.+}} {trans_a = true, trans_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
func.func @both_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = graph.gemm %a, %b {trans_a = true, trans_b = true} : tensor<8x4xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Every C shape that broadcasts to MxN.
// CHECK-LABEL: func.func @c_shapes
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32> -> tensor<4x16xf32>
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<1xf32> -> tensor<4x16xf32>
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK: graph.gemm {{.*}} : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
func.func @c_shapes(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c0: tensor<f32>, %c1: tensor<1xf32>,
                    %c2: tensor<16xf32>, %c3: tensor<4x1xf32>, %c4: tensor<1x16xf32>, %c5: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = graph.gemm %a, %b, %c0 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<f32> -> tensor<4x16xf32>
  %1 = graph.gemm %a, %b, %c1 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<1xf32> -> tensor<4x16xf32>
  %2 = graph.gemm %a, %b, %c2 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %3 = graph.gemm %a, %b, %c3 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x1xf32> -> tensor<4x16xf32>
  %4 = graph.gemm %a, %b, %c4 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<1x16xf32> -> tensor<4x16xf32>
  %5 = graph.gemm %a, %b, %c5 : tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

func.func @c_transposed(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x4xf32>) -> tensor<4x16xf32> {
  // C is not transposed with the operands.
  // expected-error @+1 {{C of shape [16,4] does not broadcast to [4,16]}}
  %0 = graph.gemm %a, %b, %c : tensor<4x8xf32>, tensor<8x16xf32>, tensor<16x4xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @trans_a_result(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // With trans_a, M is A's second axis (4), not its first.
  // expected-error @+1 {{result shape [8,16] does not match the expected shape [4,16]}}
  %0 = graph.gemm %a, %b {trans_a = true} : tensor<8x4xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @tf32_i32(%a: tensor<4x8xi32>, %b: tensor<8x16xi32>) -> tensor<4x16xi32> {
  // Integer products have no tf32 rounding.
  // expected-error @+1 {{tf32 requires f32 operands, not 'i32'}}
  %0 = graph.gemm %a, %b {tf32} : tensor<4x8xi32>, tensor<8x16xi32> -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}
