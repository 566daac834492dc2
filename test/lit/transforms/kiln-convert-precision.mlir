// RUN: kiln-opt %s -kiln-convert-precision -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-convert-precision=to=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: kiln-opt %s -kiln-convert-precision=to=tf32 -split-input-file | FileCheck %s --check-prefix=TF32
// RUN: not kiln-opt %s -kiln-convert-precision=to=f8 -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// f32 inputs are cast on entry, results cast back; weights are rounded and
// saturated (the f32 lowest value becomes f16's -65504, not -inf); integer
// and i1 tensors are untouched. The mask computed from integers is
// index-derived: it stays f32 (with an f32 copy of its constant) and is
// clipped to f16's range where it meets the converted add.
// CHECK-LABEL: func.func @mask(%arg0: tensor<2x8xf32>, %arg1: tensor<2x8xi64>) -> tensor<2x8xf32>
//  CHECK-DAG:   %[[X:.*]] = graph.cast %arg0 : tensor<2x8xf32> -> tensor<2x8xf16>
//  CHECK-DAG:   %[[BIG:.*]] = graph.constant dense<-3.40282347E+38> : tensor<f32>
//  CHECK-DAG:   %[[THIRD:.*]] = graph.constant dense<3.332520e-01> : tensor<f16>
//      CHECK:   %[[M:.*]] = graph.cast %arg1 : tensor<2x8xi64> -> tensor<2x8xf32>
//      CHECK:   %[[MB:.*]] = graph.mul %[[M]], %[[BIG]] : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
//      CHECK:   %[[C:.*]] = graph.clip %[[MB]] {max = 6.550400e+04 : f64, min = -6.550400e+04 : f64}
//      CHECK:   graph.cast %[[C]] : tensor<2x8xf32> -> tensor<2x8xf16>
//      CHECK:   %[[R:.*]] = graph.cast %{{.*}} : tensor<2x8xf16> -> tensor<2x8xf32>
//      CHECK:   return %[[R]] : tensor<2x8xf32>
// BF16-LABEL: func.func @mask
//  BF16-DAG:   graph.clip %{{.*}} {max = 3.3895313892515355E+38 : f64, min = -3.3895313892515355E+38 : f64}
//      BF16:   return %{{.*}} : tensor<2x8xf32>
// BAD: 'to' must be f16, bf16 or tf32, not 'f8'
func.func @mask(%x: tensor<2x8xf32>, %m: tensor<2x8xi64>) -> tensor<2x8xf32> {
  %big = graph.constant dense<-3.40282347e+38> : tensor<f32>
  %third = graph.constant dense<0.333333343> : tensor<f32>
  %0 = graph.cast %m : tensor<2x8xi64> -> tensor<2x8xf32>
  %1 = graph.mul %0, %big : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %2 = graph.mul %x, %third : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = graph.add %1, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %3 : tensor<2x8xf32>
}

// -----

// A model already in f16 is left as it is; an f32 result computed from
// integers gains one cast back.
// CHECK-LABEL: func.func @already_f16
//  CHECK-NEXT:   graph.relu %arg0 : tensor<4xf16> -> tensor<4xf16>
//  CHECK-NEXT:   return
func.func @already_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = graph.relu %x : tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Fusion regions follow: their block arguments take their inputs' new types.
// CHECK-LABEL: func.func @region
//      CHECK:   graph.fusion "elementwise"(%{{.*}}) : (tensor<4xf16>) -> tensor<4xf16> {
// CHECK-NEXT:   ^bb0(%{{.*}}: tensor<4xf16>):
// CHECK-NEXT:     graph.neg %{{.*}} : tensor<4xf16> -> tensor<4xf16>
func.func @region(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.fusion "elementwise"(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = graph.neg %a : tensor<4xf32> -> tensor<4xf32>
    %2 = graph.abs %1 : tensor<4xf32> -> tensor<4xf32>
    graph.yield %2 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// to=tf32: every tensor stays f32 and the weight keeps its f32 value (not
// rounded to tf32, whose ulp at 1 is 2^-10); f32 matmuls and gemms, inside
// fusion regions too, are marked tf32, the rest (the add) untouched. An f16
// matmul has no tf32 form and stays as it is.
// TF32-LABEL: func.func @tf32(%arg0: tensor<2x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<2x8xf16>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf16>)
//       TF32:   %[[W:.*]] = graph.constant dense<1.00000012> : tensor<8x4xf32>
//       TF32:   %[[MM:.*]] = graph.matmul %arg0, %[[W]] {tf32} : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
//       TF32:   graph.gemm %arg0, %arg1 {tf32, trans_b = true} : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
//       TF32:   graph.fusion "matmul"
//       TF32:     graph.matmul %{{.*}}, %{{.*}} {tf32} : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
//       TF32:     graph.add %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
//       TF32:   graph.matmul %arg2, %{{.*}} : tensor<2x8xf16>, tensor<8x2xf16> -> tensor<2x2xf16>
//   TF32-NOT:   tf32
//       TF32:   return
func.func @tf32(%x: tensor<2x8xf32>, %b: tensor<4x8xf32>, %h: tensor<2x8xf16>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf16>) {
  %w = graph.constant dense<1.00000012> : tensor<8x4xf32>
  %hw = graph.constant dense<1.0> : tensor<8x2xf16>
  %0 = graph.matmul %x, %w : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %1 = graph.gemm %x, %b {trans_b = true} : tensor<2x8xf32>, tensor<4x8xf32> -> tensor<2x4xf32>
  %2 = graph.fusion "matmul"(%x, %w, %1) : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x8xf32>, %bw: tensor<8x4xf32>, %r: tensor<2x4xf32>):
    %3 = graph.matmul %a, %bw : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
    %4 = graph.add %3, %r : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
    graph.yield %4 : tensor<2x4xf32>
  }
  %5 = graph.matmul %h, %hw : tensor<2x8xf16>, tensor<8x2xf16> -> tensor<2x2xf16>
  return %0, %2, %5 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x2xf16>
}
