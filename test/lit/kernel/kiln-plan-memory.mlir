// RUN: kiln-opt %s -kiln-plan-memory=in-place=false -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-plan-memory="alignment=1024 in-place=false" -split-input-file | FileCheck %s --check-prefix=ALIGN

// A chain a -> b -> c -> d: b may reuse a's bytes only once a is dead, so
// a and c share offset 0 and b and d share the second slot. 4096-byte
// buffers; the arena holds two of them.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {kernel.arena_size = 8192 : i64}
// CHECK: %[[A:.+]] = kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: %[[B:.+]] = kernel.alloc {offset = 4096 : i64} : memref<1024xf32>
// CHECK: %[[C:.+]] = kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: %[[D:.+]] = kernel.alloc {offset = 4096 : i64} : memref<1024xf32>
// ALIGN-LABEL: func.func @chain
// ALIGN-SAME: attributes {kernel.arena_size = 8192 : i64}
func.func @chain(%x: memref<1024xf32> {kernel.input = 0 : i64},
                 %y: memref<1024xf32> {kernel.output = 0 : i64}) {
  %a = kernel.alloc : memref<1024xf32>
  kernel.launch @l0 ins(%x : memref<1024xf32>) outs(%a : memref<1024xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %b = kernel.alloc : memref<1024xf32>
  kernel.launch @l1 ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %c = kernel.alloc : memref<1024xf32>
  kernel.launch @l2 ins(%b : memref<1024xf32>) outs(%c : memref<1024xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %d = kernel.alloc : memref<1024xf32>
  kernel.launch @l3 ins(%c : memref<1024xf32>) outs(%d : memref<1024xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  kernel.launch @l4 ins(%d : memref<1024xf32>) outs(%y : memref<1024xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

// -----

// A read through a view keeps the viewed buffer alive: %a is read (as %v)
// by the last launch, so nothing may take its bytes in between. Sizes are
// rounded up to the 256-byte alignment (40 bytes take a 256-byte slot).
// CHECK-LABEL: func.func @view_extends_lifetime
// CHECK-SAME: attributes {kernel.arena_size = 768 : i64}
// CHECK: kernel.alloc {offset = 0 : i64} : memref<10xf32>
// CHECK: kernel.alloc {offset = 256 : i64} : memref<10xf32>
// CHECK: kernel.alloc {offset = 512 : i64} : memref<10xf32>
// ALIGN-LABEL: func.func @view_extends_lifetime
// ALIGN-SAME: attributes {kernel.arena_size = 3072 : i64}
// ALIGN: kernel.alloc {offset = 0 : i64} : memref<10xf32>
// ALIGN: kernel.alloc {offset = 1024 : i64} : memref<10xf32>
// ALIGN: kernel.alloc {offset = 2048 : i64} : memref<10xf32>
func.func @view_extends_lifetime(%x: memref<10xf32> {kernel.input = 0 : i64},
                                 %y: memref<2x5xf32> {kernel.output = 0 : i64}) {
  %a = kernel.alloc : memref<10xf32>
  kernel.launch @l0 ins(%x : memref<10xf32>) outs(%a : memref<10xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %v = kernel.alias %a : memref<10xf32> -> memref<2x5xf32>
  %b = kernel.alloc : memref<10xf32>
  kernel.launch @l1 ins(%a : memref<10xf32>) outs(%b : memref<10xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %c = kernel.alloc : memref<10xf32>
  kernel.launch @l2 ins(%b : memref<10xf32>) outs(%c : memref<10xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %w = kernel.alias %c : memref<10xf32> -> memref<2x5xf32>
  kernel.launch @l3 ins(%v, %w : memref<2x5xf32>, memref<2x5xf32>) outs(%y : memref<2x5xf32>)
      {kind = "elementwise", config = {op = "add", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

// -----

// Largest first: the 8 KiB buffer takes offset 0, the small ones that live
// at the same time go above it; an alloc no launch touches is erased; a
// function without buffers gets an empty arena.
// CHECK-LABEL: func.func @largest_first
// CHECK-SAME: attributes {kernel.arena_size = 8704 : i64}
// CHECK: kernel.alloc {offset = 8192 : i64} : memref<16xf32>
// CHECK: kernel.alloc {offset = 0 : i64} : memref<2048xf32>
// CHECK: kernel.alloc {offset = 8448 : i64} : memref<16xf32>
// CHECK-NOT: kernel.alloc
// CHECK-LABEL: func.func @no_buffers
// CHECK-SAME: attributes {kernel.arena_size = 0 : i64}
func.func @largest_first(%x: memref<16xf32> {kernel.input = 0 : i64},
                         %y: memref<16xf32> {kernel.output = 0 : i64}) {
  %small = kernel.alloc : memref<16xf32>
  kernel.launch @l0 ins(%x : memref<16xf32>) outs(%small : memref<16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %big = kernel.alloc : memref<2048xf32>
  %bv = kernel.alias %big : memref<2048xf32> -> memref<16xf32>
  kernel.launch @l1 ins(%small : memref<16xf32>) outs(%bv : memref<16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %small2 = kernel.alloc : memref<16xf32>
  kernel.launch @l2 ins(%bv, %small : memref<16xf32>, memref<16xf32>) outs(%small2 : memref<16xf32>)
      {kind = "elementwise", config = {op = "add", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %unused = kernel.alloc : memref<64xf32>
  kernel.launch @l3 ins(%small2 : memref<16xf32>) outs(%y : memref<16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

func.func @no_buffers(%x: memref<16xf32> {kernel.input = 0 : i64},
                      %y: memref<16xf32> {kernel.output = 0 : i64}) {
  kernel.launch @l0 ins(%x : memref<16xf32>) outs(%y : memref<16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

// -----

// Graph functions are not kernel functions: nothing to plan.
// CHECK-LABEL: func.func @graph
// CHECK-NOT: kernel.arena_size
func.func @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
