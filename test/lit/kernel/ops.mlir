// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// Every kernel op prints and parses back unchanged.
// CHECK-LABEL: func.func @roundtrip
// CHECK-SAME: (%[[X:.+]]: memref<2x8xf32> {kernel.input = 0 : i64, kernel.name = "x"}, %[[Y:.+]]: memref<16xf32> {kernel.name = "y", kernel.output = 0 : i64})
// CHECK-SAME: attributes {kernel.arena_size = 256 : i64}
// CHECK: %[[W:.+]] = kernel.weight {name = "w"} dense<2.000000e+00> : tensor<8xf32> -> memref<8xf32>
// CHECK: %[[A:.+]] = kernel.alloc {offset = 0 : i64} : memref<2x8xf32>
// CHECK: kernel.launch @mul ins(%[[X]], %[[W]] : memref<2x8xf32>, memref<8xf32>) outs(%[[A]] : memref<2x8xf32>) {block = array<i64: 256, 1, 1>, config = {op = "mul", vec = 4 : i64}, grid = array<i64: 1, 1, 1>, kind = "elementwise"}
// (smem = 0 is the default and not printed.)
// CHECK: %[[V:.+]] = kernel.alias %[[Y]] : memref<16xf32> -> memref<2x8xf32>
// CHECK: %[[R:.+]] = kernel.alias %[[A]] {offset = 32 : i64} : memref<2x8xf32> -> memref<8xf32>
// CHECK: kernel.launch @copy ins(%[[A]] : memref<2x8xf32>) outs(%[[V]] : memref<2x8xf32>)
func.func @roundtrip(%x: memref<2x8xf32> {kernel.input = 0 : i64, kernel.name = "x"},
                     %y: memref<16xf32> {kernel.output = 0 : i64, kernel.name = "y"})
    attributes {kernel.arena_size = 256 : i64} {
  %w = kernel.weight {name = "w"} dense<2.0> : tensor<8xf32> -> memref<8xf32>
  %a = kernel.alloc {offset = 0 : i64} : memref<2x8xf32>
  kernel.launch @mul ins(%x, %w : memref<2x8xf32>, memref<8xf32>) outs(%a : memref<2x8xf32>)
      {kind = "elementwise", config = {op = "mul", vec = 4 : i64}, grid = array<i64: 1, 1, 1>,
       block = array<i64: 256, 1, 1>, smem = 0 : i64}
  %v = kernel.alias %y : memref<16xf32> -> memref<2x8xf32>
  %r = kernel.alias %a {offset = 32 : i64} : memref<2x8xf32> -> memref<8xf32>
  kernel.launch @copy ins(%a : memref<2x8xf32>) outs(%v : memref<2x8xf32>)
      {kind = "elementwise", config = {op = "copy", vec = 4 : i64}, grid = array<i64: 1, 1, 1>,
       block = array<i64: 256, 1, 1>}
  return
}
