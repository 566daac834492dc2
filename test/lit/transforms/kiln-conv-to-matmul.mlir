// RUN: kiln-opt %s -kiln-conv-to-matmul -split-input-file | FileCheck %s

// A 1x1 convolution with a bias: per image W [8, 4] times the image as a
// [4, 36] matrix, W broadcast over the images, the bias an [8, 1] column.
// CHECK-LABEL: func.func @bias
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x6x6xf16>, %[[W:.+]]: tensor<8x4x1x1xf16>, %[[B:.+]]: tensor<8xf16>)
// CHECK: %[[XM:.+]] = graph.reshape %[[X]] : tensor<2x4x6x6xf16> -> tensor<2x4x36xf16>
// CHECK: %[[WM:.+]] = graph.reshape %[[W]] : tensor<8x4x1x1xf16> -> tensor<8x4xf16>
// CHECK: %[[P:.+]] = graph.matmul %[[WM]], %[[XM]] : tensor<8x4xf16>, tensor<2x4x36xf16> -> tensor<2x8x36xf16>
// CHECK: %[[BC:.+]] = graph.reshape %[[B]] : tensor<8xf16> -> tensor<8x1xf16>
// CHECK: %[[S:.+]] = graph.add %[[P]], %[[BC]] : tensor<2x8x36xf16>, tensor<8x1xf16> -> tensor<2x8x36xf16>
// CHECK: graph.reshape %[[S]] : tensor<2x8x36xf16> -> tensor<2x8x6x6xf16>
// CHECK-NOT: graph.conv
func.func @bias(%x: tensor<2x4x6x6xf16>, %w: tensor<8x4x1x1xf16>, %b: tensor<8xf16>) -> tensor<2x8x6x6xf16> {
  %y = graph.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<2x4x6x6xf16>, tensor<8x4x1x1xf16>, tensor<8xf16> -> tensor<2x8x6x6xf16>
  return %y : tensor<2x8x6x6xf16>
}

// -----

// Strides of 2 (bf16, no bias): every second row and column first
// (ceil(7 / 2) = 4 of each).
// CHECK-LABEL: func.func @strided
// CHECK: %[[S:.+]] = graph.slice %{{.+}} {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<1x4x7x7xbf16> -> tensor<1x4x4x4xbf16>
// CHECK: graph.reshape %[[S]] : tensor<1x4x4x4xbf16> -> tensor<1x4x16xbf16>
// CHECK: graph.matmul {{.+}} : tensor<8x4xbf16>, tensor<1x4x16xbf16> -> tensor<1x8x16xbf16>
// CHECK-NOT: graph.add
// CHECK: graph.reshape {{.+}} : tensor<1x8x16xbf16> -> tensor<1x8x4x4xbf16>
func.func @strided(%x: tensor<1x4x7x7xbf16>, %w: tensor<8x4x1x1xbf16>) -> tensor<1x8x4x4xbf16> {
  %y = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x4x7x7xbf16>, tensor<8x4x1x1xbf16> -> tensor<1x8x4x4xbf16>
  return %y : tensor<1x8x4x4xbf16>
}

// -----

// Kept: overlapping windows (3x3, strides 1), padded, grouped and f32
// convolutions.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: graph.conv
// CHECK-NOT: graph.matmul
func.func @kept(%x: tensor<1x4x6x6xf16>, %w3: tensor<8x4x3x3xf16>, %w1: tensor<8x4x1x1xf16>,
                %wg: tensor<8x2x1x1xf16>, %xf: tensor<1x4x6x6xf32>, %wf: tensor<8x4x1x1xf32>)
    -> (tensor<1x8x4x4xf16>, tensor<1x8x8x8xf16>, tensor<1x8x6x6xf16>, tensor<1x8x6x6xf32>) {
  %a = graph.conv %x, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x4x6x6xf16>, tensor<8x4x3x3xf16> -> tensor<1x8x4x4xf16>
  %b = graph.conv %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x4x6x6xf16>, tensor<8x4x1x1xf16> -> tensor<1x8x8x8xf16>
  %c = graph.conv %x, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : tensor<1x4x6x6xf16>, tensor<8x2x1x1xf16> -> tensor<1x8x6x6xf16>
  %d = graph.conv %xf, %wf {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x4x6x6xf32>, tensor<8x4x1x1xf32> -> tensor<1x8x6x6xf32>
  return %a, %b, %c, %d : tensor<1x8x4x4xf16>, tensor<1x8x8x8xf16>, tensor<1x8x6x6xf16>, tensor<1x8x6x6xf32>
}

// -----

// Patches (kernel 2x2 = strides, as ViT's patch embedding): the 4 covered
// rows of 5 sliced, each image as [C, OH, KH, OW, KW] transposed to
// [C, KH, KW, OH, OW], i.e. [C * 4, OH * OW] windows as columns.
// CHECK-LABEL: func.func @patches
// CHECK: %[[S:.+]] = graph.slice %{{.+}} {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 1, 1>} : tensor<1x3x5x4xf16> -> tensor<1x3x4x4xf16>
// CHECK: %[[R:.+]] = graph.reshape %[[S]] : tensor<1x3x4x4xf16> -> tensor<1x3x2x2x2x2xf16>
// CHECK: %[[T:.+]] = graph.transpose %[[R]] {perm = array<i64: 0, 1, 3, 5, 2, 4>} : tensor<1x3x2x2x2x2xf16> -> tensor<1x3x2x2x2x2xf16>
// CHECK: %[[C:.+]] = graph.reshape %[[T]] : tensor<1x3x2x2x2x2xf16> -> tensor<1x12x4xf16>
// CHECK: graph.matmul {{.+}}, %[[C]] : tensor<8x12xf16>, tensor<1x12x4xf16> -> tensor<1x8x4xf16>
// CHECK-NOT: graph.conv
func.func @patches(%x: tensor<1x3x5x4xf16>, %w: tensor<8x3x2x2xf16>) -> tensor<1x8x2x2xf16> {
  %y = graph.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : tensor<1x3x5x4xf16>, tensor<8x3x2x2xf16> -> tensor<1x8x2x2xf16>
  return %y : tensor<1x8x2x2xf16>
}
