// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Which element types each unary family accepts: float-only ops take every
// float type, numeric ops every float and integer type (not i1), logic ops
// i1 only, cast anything to anything.

// CHECK-LABEL: func.func @float_types
// CHECK: graph.exp %{{.+}} : tensor<2xbf16> -> tensor<2xbf16>
// CHECK: graph.erf %{{.+}} : tensor<2xf16> -> tensor<2xf16>
// CHECK: graph.sigmoid %{{.+}} : tensor<2xf64> -> tensor<2xf64>
// CHECK: graph.gelu %{{.+}} {approximate = "tanh"} : tensor<2xbf16> -> tensor<2xbf16>
// CHECK: graph.is_nan %{{.+}} : tensor<2xf16> -> tensor<2xi1>
func.func @float_types(%a: tensor<2xbf16>, %b: tensor<2xf16>, %c: tensor<2xf64>) -> (tensor<2xbf16>, tensor<2xf16>, tensor<2xf64>, tensor<2xbf16>, tensor<2xi1>) {
  %0 = graph.exp %a : tensor<2xbf16> -> tensor<2xbf16>
  %1 = graph.erf %b : tensor<2xf16> -> tensor<2xf16>
  %2 = graph.sigmoid %c : tensor<2xf64> -> tensor<2xf64>
  %3 = graph.gelu %a {approximate = "tanh"} : tensor<2xbf16> -> tensor<2xbf16>
  %4 = graph.is_nan %b : tensor<2xf16> -> tensor<2xi1>
  return %0, %1, %2, %3, %4 : tensor<2xbf16>, tensor<2xf16>, tensor<2xf64>, tensor<2xbf16>, tensor<2xi1>
}

// -----

// Numeric ops take every integer width, signless or unsigned.
// CHECK-LABEL: func.func @numeric_types
// CHECK: graph.abs %{{.+}} : tensor<3xi8> -> tensor<3xi8>
// CHECK: graph.neg %{{.+}} : tensor<3xi64> -> tensor<3xi64>
// CHECK: graph.relu %{{.+}} : tensor<3xbf16> -> tensor<3xbf16>
// CHECK: graph.clip %{{.+}} {max = 2.550000e+02 : f64, min = 1.000000e+00 : f64} : tensor<3xui8> -> tensor<3xui8>
func.func @numeric_types(%a: tensor<3xi8>, %b: tensor<3xi64>, %c: tensor<3xbf16>, %d: tensor<3xui8>) -> (tensor<3xi8>, tensor<3xi64>, tensor<3xbf16>, tensor<3xui8>) {
  %0 = graph.abs %a : tensor<3xi8> -> tensor<3xi8>
  %1 = graph.neg %b : tensor<3xi64> -> tensor<3xi64>
  %2 = graph.relu %c : tensor<3xbf16> -> tensor<3xbf16>
  %3 = graph.clip %d {min = 1.0, max = 255.0} : tensor<3xui8> -> tensor<3xui8>
  return %0, %1, %2, %3 : tensor<3xi8>, tensor<3xi64>, tensor<3xbf16>, tensor<3xui8>
}

// -----

func.func @float_only_unsigned(%x: tensor<3xui8>) -> tensor<3xui8> {
  // Unsigned integers are not floats.
  // expected-error @+1 {{requires a floating-point operand, got 'tensor<3xui8>'}}
  %0 = graph.log %x : tensor<3xui8> -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

func.func @relu_bool(%x: tensor<3xi1>) -> tensor<3xi1> {
  // i1 is not numeric.
  // expected-error @+1 {{requires a numeric operand, got 'tensor<3xi1>'}}
  %0 = graph.relu %x : tensor<3xi1> -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

// cast between any element types, rank 0 included.
// CHECK-LABEL: func.func @casts
// CHECK: graph.cast %{{.+}} : tensor<i1> -> tensor<bf16>
// CHECK: graph.cast %{{.+}} : tensor<bf16> -> tensor<ui8>
// CHECK: graph.cast %{{.+}} : tensor<ui8> -> tensor<f64>
func.func @casts(%x: tensor<i1>) -> tensor<f64> {
  %0 = graph.cast %x : tensor<i1> -> tensor<bf16>
  %1 = graph.cast %0 : tensor<bf16> -> tensor<ui8>
  %2 = graph.cast %1 : tensor<ui8> -> tensor<f64>
  return %2 : tensor<f64>
}

// -----

// Arithmetic works on unsigned integers too.
// CHECK-LABEL: func.func @unsigned_arith
// CHECK: graph.add %{{.+}}, %{{.+}} : tensor<4xui32>, tensor<4xui32> -> tensor<4xui32>
func.func @unsigned_arith(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = graph.add %a, %b : tensor<4xui32>, tensor<4xui32> -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

func.func @signedness_differs(%a: tensor<4xi32>, %b: tensor<4xui32>) -> tensor<4xi32> {
  // Signless and unsigned 32-bit integers are different element types.
  // expected-error @+1 {{operand element types differ: 'i32' and 'ui32'}}
  %0 = graph.add %a, %b : tensor<4xi32>, tensor<4xui32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
