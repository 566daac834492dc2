// RUN: kiln-opt %s -split-input-file -verify-diagnostics

// A view must fit in its source.
func.func @alias_too_big(%x: memref<4xf32> {kernel.input = 0 : i64}) {
  // expected-error @+1 {{view of 16 bytes at offset 4 exceeds the source's 16 bytes}}
  %0 = kernel.alias %x {offset = 4 : i64} : memref<4xf32> -> memref<4xf32>
  return
}

// -----

// An offset between elements is not a view of them.
func.func @alias_misaligned(%x: memref<4xf32> {kernel.input = 0 : i64}) {
  // expected-error @+1 {{offset 2 must be a non-negative multiple of the element size 4}}
  %0 = kernel.alias %x {offset = 2 : i64} : memref<4xf32> -> memref<2xf32>
  return
}

// -----

// Buffers are dense row-major memrefs: no strided layouts.
func.func @alias_strided(%x: memref<4x4xf32> {kernel.input = 0 : i64}) {
  // expected-error @+1 {{must be statically shaped row-major memref}}
  %0 = kernel.alias %x : memref<4x4xf32> -> memref<4x2xf32, strided<[4, 1]>>
  return
}

// -----

func.func @alloc_negative() {
  // expected-error @+1 {{offset -256 is negative}}
  %0 = kernel.alloc {offset = -256 : i64} : memref<4xf32>
  return
}

// -----

func.func @weight_mismatch() {
  // expected-error @+1 {{value of type 'tensor<4xf32>' does not match the buffer type 'memref<8xf32>'}}
  %0 = kernel.weight dense<1.0> : tensor<4xf32> -> memref<8xf32>
  return
}

// -----

func.func @grid_rank(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{grid must have 3 entries, got 2}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1>, block = array<i64: 32, 1, 1>}
  return
}

// -----

func.func @block_too_big(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{block of 2048 threads exceeds 1024}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1024, 2, 1>}
  return
}

// -----

func.func @block_zero(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{block entries must be in [1, 1024], got 0}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 0, 1, 1>}
  return
}

// -----

func.func @grid_y(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{grid y and z must be at most 65535}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 70000, 1>, block = array<i64: 1, 1, 1>}
  return
}

// -----

func.func @block_z(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{block z must be at most 64}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 128>}
  return
}

// -----

func.func @smem(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{smem 300000 is outside [0, 232448] bytes}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>,
       smem = 300000 : i64}
  return
}

// -----

func.func @no_kind(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{requires a non-empty kind}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
      {kind = "", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>}
  return
}

// -----

// Kernels read all inputs and write all outputs at once: no in-place.
func.func @in_place(%x: memref<4xf32>) {
  // expected-error @+1 {{writes a buffer it also reads}}
  kernel.launch @k ins(%x : memref<4xf32>) outs(%x : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>}
  return
}

// -----

// ... also through views of one buffer whose bytes overlap.
func.func @in_place_view(%x: memref<8xf32>) {
  %a = kernel.alias %x {offset = 8 : i64} : memref<8xf32> -> memref<4xf32>
  %b = kernel.alias %x {offset = 16 : i64} : memref<8xf32> -> memref<4xf32>
  // expected-error @+1 {{writes a buffer it also reads}}
  kernel.launch @k ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>}
  return
}

// -----

// Disjoint views of one buffer may be read and written by one launch.
func.func @disjoint_views(%x: memref<8xf32>) {
  %a = kernel.alias %x : memref<8xf32> -> memref<4xf32>
  %b = kernel.alias %x {offset = 16 : i64} : memref<8xf32> -> memref<4xf32>
  kernel.launch @k ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
      {kind = "elementwise", config = {}, grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>}
  return
}

// -----

// (The custom form cannot even spell it; the generic one can.)
func.func @no_outputs(%x: memref<4xf32>) {
  // expected-error @+1 {{requires at least one output buffer}}
  "kernel.launch"(%x) <{name = "k", kind = "elementwise", config = {},
      grid = array<i64: 1, 1, 1>, block = array<i64: 1, 1, 1>,
      operandSegmentSizes = array<i32: 1, 0>}> : (memref<4xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{'kernel.arena_size' must be a non-negative integer on a func.func}}
func.func @arena_negative() attributes {kernel.arena_size = -1 : i64} {
  return
}

// -----

// expected-error @+1 {{unknown kernel dialect attribute 'kernel.bogus'}}
func.func @unknown_attr() attributes {kernel.bogus = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{argument #0 with 'kernel.input' must be a statically shaped row-major memref, got 'tensor<4xf32>'}}
func.func @input_not_memref(%x: tensor<4xf32> {kernel.input = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{'kernel.output' of argument #0 must be a non-negative integer}}
func.func @output_index(%x: memref<4xf32> {kernel.output = "y"}) {
  return
}

// -----

// expected-error @+1 {{'kernel.name' of argument #0 must be a string}}
func.func @name_type(%x: memref<4xf32> {kernel.name = 3 : i64}) {
  return
}

// -----

// expected-error @+1 {{unknown kernel dialect argument attribute 'kernel.bogus'}}
func.func @unknown_arg_attr(%x: memref<4xf32> {kernel.bogus = 3 : i64}) {
  return
}
