// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// reshape keeps the element count; expand's result is the broadcast of the
// operand to it.

// To and from rank 0.
// CHECK-LABEL: func.func @reshape_rank0
// CHECK: graph.reshape %{{.+}} : tensor<f32> -> tensor<1x1x1xf32>
// CHECK: graph.reshape %{{.+}} : tensor<1x1x1xf32> -> tensor<f32>
func.func @reshape_rank0(%x: tensor<f32>) -> tensor<f32> {
  %0 = graph.reshape %x : tensor<f32> -> tensor<1x1x1xf32>
  %1 = graph.reshape %0 : tensor<1x1x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// Zero-size tensors of any shape have zero elements.
// CHECK-LABEL: func.func @reshape_empty
// CHECK: graph.reshape %{{.+}} : tensor<0x5xi64> -> tensor<3x0x2xi64>
func.func @reshape_empty(%x: tensor<0x5xi64>) -> tensor<3x0x2xi64> {
  %0 = graph.reshape %x : tensor<0x5xi64> -> tensor<3x0x2xi64>
  return %0 : tensor<3x0x2xi64>
}

// -----

func.func @reshape_empty_vs_one(%x: tensor<0x5xf32>) -> tensor<1xf32> {
  // Zero elements do not fill one.
  // expected-error @+1 {{element counts differ: 0 and 1}}
  %0 = graph.reshape %x : tensor<0x5xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// expand: a scalar to any shape, and rank growth with unit axes on the inside.
// CHECK-LABEL: func.func @expand_shapes
// CHECK: graph.expand %{{.+}} : tensor<f32> -> tensor<2x3xf32>
// CHECK: graph.expand %{{.+}} : tensor<1x3x1xi1> -> tensor<4x2x3x5xi1>
func.func @expand_shapes(%s: tensor<f32>, %m: tensor<1x3x1xi1>) -> (tensor<2x3xf32>, tensor<4x2x3x5xi1>) {
  %0 = graph.expand %s : tensor<f32> -> tensor<2x3xf32>
  %1 = graph.expand %m : tensor<1x3x1xi1> -> tensor<4x2x3x5xi1>
  return %0, %1 : tensor<2x3xf32>, tensor<4x2x3x5xi1>
}

// -----

func.func @expand_lower_rank(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // The result may not have a lower rank than the operand.
  // expected-error @+1 {{cannot broadcast [2,3] to [3]}}
  %0 = graph.expand %x : tensor<2x3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @expand_zero(%x: tensor<1x3xf32>) -> tensor<0x3xf32> {
  // Size 1 broadcasts to 0 as well (numpy semantics).
  %0 = graph.expand %x : tensor<1x3xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}
// CHECK-LABEL: func.func @expand_zero
// CHECK: graph.expand %{{.+}} : tensor<1x3xf32> -> tensor<0x3xf32>
