// RUN: kiln-opt %s -kiln-raise-gelu -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-graph-O2 -split-input-file | FileCheck %s --check-prefix=O2

// BERT (torchscript): x * (1 + erf(x / sqrt(2))) * 0.5 (approximate "none",
// the default, is not printed).
// CHECK-LABEL: func.func @erf_torchscript
//  CHECK-NEXT:   %[[G:.*]] = graph.gelu %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
//  CHECK-NEXT:   return %[[G]]
// O2-LABEL: func.func @erf_torchscript
//  O2-NEXT:   graph.gelu %arg0
func.func @erf_torchscript(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sq2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sq2 : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %1 = graph.erf %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = graph.add %1, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = graph.mul %x, %2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = graph.mul %3, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// torch.onnx dynamo: x * (0.5 * (1 + erf(x * (1/sqrt(2))))), f16 constants.
// CHECK-LABEL: func.func @erf_dynamo_f16
//  CHECK-NEXT:   graph.gelu %arg0 : tensor<4x8xf16>
func.func @erf_dynamo_f16(%x: tensor<4x8xf16>) -> tensor<4x8xf16> {
  %r = graph.constant dense<0.7071> : tensor<f16>
  %one = graph.constant dense<1.0> : tensor<f16>
  %half = graph.constant dense<0.5> : tensor<f16>
  %0 = graph.mul %x, %r : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
  %1 = graph.erf %0 : tensor<4x8xf16> -> tensor<4x8xf16>
  %2 = graph.add %one, %1 : tensor<f16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %3 = graph.mul %half, %2 : tensor<f16>, tensor<4x8xf16> -> tensor<4x8xf16>
  %4 = graph.mul %x, %3 : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
  return %4 : tensor<4x8xf16>
}

// -----

// GPT-2: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK-LABEL: func.func @tanh_gpt2
//  CHECK-NEXT:   graph.gelu %arg0 {approximate = "tanh"}
//  CHECK-NEXT:   return
func.func @tanh_gpt2(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = graph.constant dense<0.5> : tensor<f32>
  %three = graph.constant dense<3.0> : tensor<f32>
  %k = graph.constant dense<4.471500e-02> : tensor<f32>
  %c = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %0 = graph.mul %x, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %1 = graph.pow %x, %three : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %2 = graph.mul %1, %k : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = graph.add %x, %2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = graph.mul %3, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %5 = graph.tanh %4 : tensor<4x8xf32> -> tensor<4x8xf32>
  %6 = graph.add %5, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %7 = graph.mul %0, %6 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// Negative: another constant (0.04 is not 0.044715) is not GELU.
// CHECK-LABEL: func.func @tanh_wrong_constant
//  CHECK-NOT: graph.gelu
//      CHECK: graph.tanh
func.func @tanh_wrong_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %half = graph.constant dense<0.5> : tensor<f32>
  %three = graph.constant dense<3.0> : tensor<f32>
  %k = graph.constant dense<4.0e-02> : tensor<f32>
  %c = graph.constant dense<0.797884583> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %0 = graph.mul %x, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %1 = graph.pow %x, %three : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %2 = graph.mul %1, %k : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = graph.add %x, %2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = graph.mul %3, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %5 = graph.tanh %4 : tensor<4x8xf32> -> tensor<4x8xf32>
  %6 = graph.add %5, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %7 = graph.mul %0, %6 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %7 : tensor<4x8xf32>
}

// -----

// Negative: erf's result is also returned, so the chain cannot go.
// CHECK-LABEL: func.func @erf_shared
//  CHECK-NOT: graph.gelu
func.func @erf_shared(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %sq2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %0 = graph.div %x, %sq2 : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %1 = graph.erf %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = graph.add %1, %one : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %3 = graph.mul %x, %2 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %4 = graph.mul %3, %half : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  return %4, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
