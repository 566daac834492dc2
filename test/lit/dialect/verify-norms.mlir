// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// layer_norm normalizes axes axis..rank-1 with scale/bias broadcasting to
// them; batch_norm takes per-channel vectors for axis 1; softmax and
// log_softmax normalize one axis; trilu needs two axes.

// axis 0 normalizes everything; the scale broadcasts from [1,8] and [8].
// CHECK-LABEL: func.func @layer_norm_axis0
// CHECK: graph.layer_norm %{{.+}}, %{{.+}}, %{{.+}} {axis = 0 : i64, epsilon = 9.99999974E-6 : f32} : tensor<4x8xf32>, tensor<1x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
func.func @layer_norm_axis0(%x: tensor<4x8xf32>, %g: tensor<1x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.layer_norm %x, %g, %b {axis = 0 : i64, epsilon = 1.0e-5 : f32} : tensor<4x8xf32>, tensor<1x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A scalar scale broadcasts to any normalized shape; bf16 data.
// CHECK-LABEL: func.func @layer_norm_scalar_scale
// CHECK: graph.layer_norm %{{.+}}, %{{.+}} {axis = 1 : i64, epsilon = 1.000000e-03 : f32} : tensor<2x3x4xbf16>, tensor<bf16> -> tensor<2x3x4xbf16>
func.func @layer_norm_scalar_scale(%x: tensor<2x3x4xbf16>, %g: tensor<bf16>) -> tensor<2x3x4xbf16> {
  %0 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-3 : f32} : tensor<2x3x4xbf16>, tensor<bf16> -> tensor<2x3x4xbf16>
  return %0 : tensor<2x3x4xbf16>
}

// -----

func.func @layer_norm_scale_too_wide(%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  // With axis 2 only [4] is normalized; a [3,4] scale covers a batch axis.
  // expected-error @+1 {{scale/bias shape [3,4] does not broadcast to the normalized shape [4]}}
  %0 = graph.layer_norm %x, %g {axis = 2 : i64, epsilon = 1.0e-5 : f32} : tensor<2x3x4xf32>, tensor<3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// batch_norm on rank 2 and rank 5.
// CHECK-LABEL: func.func @batch_norm_ranks
// CHECK: graph.batch_norm {{.*}} : tensor<4x3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16> -> tensor<4x3xf16>
// CHECK: graph.batch_norm {{.*}} : tensor<1x2x3x4x5xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64> -> tensor<1x2x3x4x5xf64>
func.func @batch_norm_ranks(%a: tensor<4x3xf16>, %p: tensor<3xf16>, %b: tensor<1x2x3x4x5xf64>, %q: tensor<2xf64>) -> (tensor<4x3xf16>, tensor<1x2x3x4x5xf64>) {
  %0 = graph.batch_norm %a, %p, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<4x3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3xf16> -> tensor<4x3xf16>
  %1 = graph.batch_norm %b, %q, %q, %q, %q {epsilon = 1.0e-5 : f32} : tensor<1x2x3x4x5xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64> -> tensor<1x2x3x4x5xf64>
  return %0, %1 : tensor<4x3xf16>, tensor<1x2x3x4x5xf64>
}

// -----

func.func @batch_norm_broadcast_param(%x: tensor<1x3x2x2xf32>, %p: tensor<3xf32>, %s: tensor<1xf32>) -> tensor<1x3x2x2xf32> {
  // Per-channel operands are exactly [C]; a broadcastable [1] is not enough.
  // expected-error @+1 {{expects per-channel operands of shape [3], got 'tensor<1xf32>'}}
  %0 = graph.batch_norm %x, %s, %p, %p, %p {epsilon = 1.0e-5 : f32} : tensor<1x3x2x2xf32>, tensor<1xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

// softmax on rank 1 and on the first of four axes; f16 log_softmax.
// CHECK-LABEL: func.func @softmax_axes
// CHECK: graph.softmax %{{.+}} {axis = 0 : i64} : tensor<7xf32>
// CHECK: graph.log_softmax %{{.+}} {axis = 0 : i64} : tensor<2x3x4x5xf16>
func.func @softmax_axes(%v: tensor<7xf32>, %t: tensor<2x3x4x5xf16>) -> (tensor<7xf32>, tensor<2x3x4x5xf16>) {
  %0 = graph.softmax %v {axis = 0 : i64} : tensor<7xf32>
  %1 = graph.log_softmax %t {axis = 0 : i64} : tensor<2x3x4x5xf16>
  return %0, %1 : tensor<7xf32>, tensor<2x3x4x5xf16>
}

// -----

func.func @softmax_rank0(%x: tensor<f32>) -> tensor<f32> {
  // A scalar has no axis.
  // expected-error @+1 {{axis 0 is out of range for rank 0}}
  %0 = graph.softmax %x {axis = 0 : i64} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// trilu on non-square matrices, batches and integers; any k.
// CHECK-LABEL: func.func @trilu_shapes
// CHECK: graph.trilu %{{.+}} {k = 100 : i64, upper = true} : tensor<3x5xf32>
// CHECK: graph.trilu %{{.+}} {k = -2 : i64, upper = false} : tensor<2x2x6x4xi64>
func.func @trilu_shapes(%a: tensor<3x5xf32>, %b: tensor<2x2x6x4xi64>) -> (tensor<3x5xf32>, tensor<2x2x6x4xi64>) {
  %0 = graph.trilu %a {k = 100 : i64, upper = true} : tensor<3x5xf32>
  %1 = graph.trilu %b {k = -2 : i64, upper = false} : tensor<2x2x6x4xi64>
  return %0, %1 : tensor<3x5xf32>, tensor<2x2x6x4xi64>
}
