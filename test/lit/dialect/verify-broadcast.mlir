// RUN: %kiln-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// Numpy broadcasting in the binary ops' verifier: right-aligned, size 1
// stretches, missing leading axes count as 1; the result is the broadcast
// shape exactly.

// CHECK-LABEL: func.func @rank_zero_both
// CHECK: graph.add %{{.+}}, %{{.+}} : tensor<f32>, tensor<f32> -> tensor<f32>
func.func @rank_zero_both(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = graph.add %a, %b : tensor<f32>, tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @stretch_both_sides
// CHECK: graph.mul %{{.+}}, %{{.+}} : tensor<4x1x6xf32>, tensor<5x1xf32> -> tensor<4x5x6xf32>
func.func @stretch_both_sides(%a: tensor<4x1x6xf32>, %b: tensor<5x1xf32>) -> tensor<4x5x6xf32> {
  %0 = graph.mul %a, %b : tensor<4x1x6xf32>, tensor<5x1xf32> -> tensor<4x5x6xf32>
  return %0 : tensor<4x5x6xf32>
}

// -----

// A zero-size axis broadcasts against 1 (numpy gives size 0).
// CHECK-LABEL: func.func @zero_size
// CHECK: graph.sub %{{.+}}, %{{.+}} : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
func.func @zero_size(%a: tensor<0x3xf32>, %b: tensor<1x3xf32>) -> tensor<0x3xf32> {
  %0 = graph.sub %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// The larger operand may be on either side.
// CHECK-LABEL: func.func @rhs_larger
// CHECK: graph.div %{{.+}}, %{{.+}} : tensor<3xi32>, tensor<2x2x3xi32> -> tensor<2x2x3xi32>
func.func @rhs_larger(%a: tensor<3xi32>, %b: tensor<2x2x3xi32>) -> tensor<2x2x3xi32> {
  %0 = graph.div %a, %b : tensor<3xi32>, tensor<2x2x3xi32> -> tensor<2x2x3xi32>
  return %0 : tensor<2x2x3xi32>
}

// -----

// Broadcasting never drops the operands' unit axes: [1,1] and [1] give [1,1].
// CHECK-LABEL: func.func @unit_axes_kept
// CHECK: graph.min %{{.+}}, %{{.+}} : tensor<1x1xf16>, tensor<1xf16> -> tensor<1x1xf16>
func.func @unit_axes_kept(%a: tensor<1x1xf16>, %b: tensor<1xf16>) -> tensor<1x1xf16> {
  %0 = graph.min %a, %b : tensor<1x1xf16>, tensor<1xf16> -> tensor<1x1xf16>
  return %0 : tensor<1x1xf16>
}

// -----

func.func @unit_axes_dropped(%a: tensor<1x1xf16>, %b: tensor<1xf16>) -> tensor<1xf16> {
  // A result that drops a unit axis is not the broadcast shape.
  // expected-error @+1 {{result shape [1] does not match the expected shape [1,1]}}
  %0 = graph.min %a, %b : tensor<1x1xf16>, tensor<1xf16> -> tensor<1xf16>
  return %0 : tensor<1xf16>
}

// -----

func.func @zero_against_two(%a: tensor<0xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  // 0 and 2 do not broadcast (only 1 stretches).
  // expected-error @+1 {{operand shapes do not broadcast: [0] and [2]}}
  %0 = graph.add %a, %b : tensor<0xf32>, tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @left_aligned(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // Shapes are aligned on the right: [2] lines up with 3, not with 2.
  // expected-error @+1 {{operand shapes do not broadcast: [2,3] and [2]}}
  %0 = graph.add %a, %b : tensor<2x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Comparisons and logic ops broadcast the same way.
// CHECK-LABEL: func.func @compare_and_logic
// CHECK: graph.less_or_equal %{{.+}}, %{{.+}} : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xi1>
// CHECK: graph.xor %{{.+}}, %{{.+}} : tensor<3x4xi1>, tensor<i1> -> tensor<3x4xi1>
func.func @compare_and_logic(%a: tensor<3x1xf32>, %b: tensor<4xf32>, %c: tensor<i1>) -> tensor<3x4xi1> {
  %0 = graph.less_or_equal %a, %b : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xi1>
  %1 = graph.xor %0, %c : tensor<3x4xi1>, tensor<i1> -> tensor<3x4xi1>
  return %1 : tensor<3x4xi1>
}

// -----

// Equality of booleans is a comparison like any other.
// CHECK-LABEL: func.func @equal_bool
// CHECK: graph.equal %{{.+}}, %{{.+}} : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
func.func @equal_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = graph.equal %a, %b : tensor<4xi1>, tensor<4xi1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// pow may raise f16 to an i64 power with broadcasting.
// CHECK-LABEL: func.func @pow_mixed
// CHECK: graph.pow %{{.+}}, %{{.+}} : tensor<2x1xf16>, tensor<3xi64> -> tensor<2x3xf16>
func.func @pow_mixed(%a: tensor<2x1xf16>, %b: tensor<3xi64>) -> tensor<2x3xf16> {
  %0 = graph.pow %a, %b : tensor<2x1xf16>, tensor<3xi64> -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// where broadcasts all three operands: [2,1,1], [1,3,1] and [4] give [2,3,4].
// CHECK-LABEL: func.func @where_three_way
// CHECK: graph.where %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x1x1xi1>, tensor<1x3x1xi64>, tensor<4xi64> -> tensor<2x3x4xi64>
func.func @where_three_way(%c: tensor<2x1x1xi1>, %x: tensor<1x3x1xi64>, %y: tensor<4xi64>) -> tensor<2x3x4xi64> {
  %0 = graph.where %c, %x, %y : tensor<2x1x1xi1>, tensor<1x3x1xi64>, tensor<4xi64> -> tensor<2x3x4xi64>
  return %0 : tensor<2x3x4xi64>
}

// -----

// where's branches may be i1 themselves.
// CHECK-LABEL: func.func @where_bool_branches
// CHECK: graph.where %{{.+}}, %{{.+}}, %{{.+}} : tensor<4xi1>, tensor<4xi1>, tensor<i1> -> tensor<4xi1>
func.func @where_bool_branches(%c: tensor<4xi1>, %x: tensor<4xi1>, %y: tensor<i1>) -> tensor<4xi1> {
  %0 = graph.where %c, %x, %y : tensor<4xi1>, tensor<4xi1>, tensor<i1> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
