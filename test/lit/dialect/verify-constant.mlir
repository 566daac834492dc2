// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// graph.constant holds any static ElementsAttr whose type is the result type.

// CHECK-LABEL: func.func @kinds
// CHECK: graph.constant dense<> : tensor<0xf32>
// CHECK: graph.constant dense<1.500000e+00> : tensor<bf16>
// CHECK: graph.constant dense<[true, false]> : tensor<2xi1>
// CHECK: graph.constant dense<-1> : tensor<2x3x4xi8>
// CHECK: graph.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xui16>
func.func @kinds() -> (tensor<0xf32>, tensor<bf16>, tensor<2xi1>, tensor<2x3x4xi8>, tensor<2x2xui16>) {
  %0 = graph.constant dense<> : tensor<0xf32>
  %1 = graph.constant dense<1.5> : tensor<bf16>
  %2 = graph.constant dense<[true, false]> : tensor<2xi1>
  %3 = graph.constant dense<-1> : tensor<2x3x4xi8>
  %4 = graph.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xui16>
  return %0, %1, %2, %3, %4 : tensor<0xf32>, tensor<bf16>, tensor<2xi1>, tensor<2x3x4xi8>, tensor<2x2xui16>
}

// -----

// A dense_resource keeps its blob through a round trip.
// CHECK-LABEL: func.func @resource
// CHECK: graph.constant dense_resource<weights> : tensor<2xf32>
// CHECK: dialect_resources
// CHECK: weights: "0x040000000000803F00000040"
func.func @resource() -> tensor<2xf32> {
  %0 = graph.constant dense_resource<weights> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @not_elements() -> tensor<2xf32> {
  // The value must be an elements attribute.
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "graph.constant"() {value = 1.0 : f32} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @unranked_result() -> tensor<*xf32> {
  // The result is a ranked tensor.
  // expected-error @+1 {{result #0 must be ranked tensor of any type values}}
  %0 = "graph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
