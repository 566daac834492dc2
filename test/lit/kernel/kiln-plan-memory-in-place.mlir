// RUN: kiln-opt %s -kiln-plan-memory -split-input-file | FileCheck %s

// In place: each relu of the chain a -> b -> c -> d writes over its input,
// which dies there, so all four share one slot and the arena holds one
// buffer; every launch but the first (which reads the model input) and
// the last (which writes the model output) records the pair.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {kernel.arena_size = 4096 : i64}
// CHECK: kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: kernel.launch @l0 {{.*}}config = {op = "relu", vec = 1 : i64}
// CHECK: kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: kernel.launch @l1 {{.*}}config = {in_place = array<i64: 0, 0>, op = "relu"
// CHECK: kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: kernel.launch @l2 {{.*}}in_place = array<i64: 0, 0>
// CHECK: kernel.alloc {offset = 0 : i64} : memref<1024xf32>
// CHECK: kernel.launch @l3 {{.*}}in_place = array<i64: 0, 0>
// CHECK: kernel.launch @l4 {{.*}}config = {op = "relu", vec = 1 : i64}
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

// Not in place: %a is read twice by @sq (x * x: both operands name it); %b
// is read again by @late; softmax is not elementwise; the cast changes the
// element size. @add writes over %c (dying there, its own shape), never over
// the broadcast [8] bias.
// CHECK-LABEL: func.func @not_in_place
// CHECK-NOT: in_place
// CHECK: kernel.launch @add {{.*}}in_place = array<i64: 0, 0>
// CHECK-NOT: in_place
// CHECK: return
func.func @not_in_place(%x: memref<4x8xf32> {kernel.input = 0 : i64},
                        %bias: memref<8xf32> {kernel.input = 1 : i64},
                        %y: memref<4x8xf16> {kernel.output = 0 : i64},
                        %z: memref<4x8xf32> {kernel.output = 1 : i64}) {
  %a = kernel.alloc : memref<4x8xf32>
  kernel.launch @l0 ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %b = kernel.alloc : memref<4x8xf32>
  kernel.launch @sq ins(%a, %a : memref<4x8xf32>, memref<4x8xf32>) outs(%b : memref<4x8xf32>)
      {kind = "elementwise", config = {op = "mul", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %c = kernel.alloc : memref<4x8xf32>
  kernel.launch @sm ins(%b : memref<4x8xf32>) outs(%c : memref<4x8xf32>)
      {kind = "softmax", config = {axis = 1 : i64, block_size = 32 : i64, log = false, variant = "row"},
       grid = array<i64: 4, 1, 1>, block = array<i64: 32, 1, 1>}
  %bb = kernel.alloc : memref<8xf32>
  kernel.launch @l1 ins(%bias : memref<8xf32>) outs(%bb : memref<8xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %d = kernel.alloc : memref<4x8xf32>
  kernel.launch @add ins(%c, %bb : memref<4x8xf32>, memref<8xf32>) outs(%d : memref<4x8xf32>)
      {kind = "elementwise", config = {op = "add", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %e = kernel.alloc : memref<4x8xf16>
  kernel.launch @late ins(%b, %d : memref<4x8xf32>, memref<4x8xf32>) outs(%z : memref<4x8xf32>)
      {kind = "elementwise", config = {op = "add", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  kernel.launch @cast ins(%d : memref<4x8xf32>) outs(%e : memref<4x8xf16>)
      {kind = "elementwise", config = {op = "cast", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  kernel.launch @l2 ins(%e : memref<4x8xf16>) outs(%y : memref<4x8xf16>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

// -----

// A fused launch with two dying inputs of the output's shape takes the
// first; a reshape view of a whole buffer counts as the buffer.
// CHECK-LABEL: func.func @fused_view
// CHECK-SAME: attributes {kernel.arena_size = 256 : i64}
// CHECK: kernel.launch @f {{.*}}in_place = array<i64: 0, 0>
func.func @fused_view(%x: memref<32xf32> {kernel.input = 0 : i64},
                      %y: memref<4x8xf32> {kernel.output = 0 : i64}) {
  %a = kernel.alloc : memref<32xf32>
  kernel.launch @l0 ins(%x : memref<32xf32>) outs(%a : memref<32xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %v = kernel.alias %a : memref<32xf32> -> memref<4x8xf32>
  %b = kernel.alloc : memref<4x8xf32>
  kernel.launch @f ins(%v : memref<4x8xf32>) outs(%b : memref<4x8xf32>)
      {kind = "fused_elementwise", config = {program = "t0 = neg(i0) : f32", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  kernel.launch @l1 ins(%b : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}

// End to end: the relu between two softmaxes writes over the first's output;
// its kernel's parameters for that pair are not __restrict__.
// RUN: %mkonnx -o %t.onnx 'x: f32[8,64]; a = Softmax(x, axis=-1); b = Relu(a); c = Softmax(b, axis=-1); out c'
// RUN: %kilnc %t.onnx -O2 --emit=kernel | FileCheck %s --check-prefix=MODEL
// RUN: %kilnc %t.onnx -O2 --emit=cuda | FileCheck %s --check-prefix=CUDA
// MODEL: kernel.launch {{.*}}in_place = array<i64: 0, 0>, op = "relu"
// CUDA: void {{.*}}(const float *in0, float *out0)

// -----

// A fused launch reading its input through a transposing map (explicit
// input_strides) may not write over it: other threads still read elements
// it would overwrite. The same launch reading row-major may.
// CHECK-LABEL: func.func @transposed_read
// CHECK: kernel.launch @t1 {{.*}}config = {input_strides = array<i64: 1, 16, 0, 0>
// CHECK-NOT: in_place
// CHECK: kernel.launch @t2 {{.*}}config = {in_place = array<i64: 0, 0>, input_strides = array<i64: 16, 1>
func.func @transposed_read(%x: memref<16x16xf32> {kernel.input = 0 : i64},
                           %y: memref<16x16xf32> {kernel.output = 0 : i64}) {
  %a = kernel.alloc : memref<16x16xf32>
  kernel.launch @t0 ins(%x : memref<16x16xf32>) outs(%a : memref<16x16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %b = kernel.alloc : memref<16x16xf32>
  kernel.launch @t1 ins(%a, %x : memref<16x16xf32>, memref<16x16xf32>) outs(%b : memref<16x16xf32>)
      {kind = "fused_elementwise",
       config = {input_strides = array<i64: 1, 16, 0, 0>, program = "t0 = add(i0, i1) : f32",
                 space = array<i64: 16, 16>, vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  %c = kernel.alloc : memref<16x16xf32>
  kernel.launch @t2 ins(%b : memref<16x16xf32>) outs(%c : memref<16x16xf32>)
      {kind = "fused_elementwise",
       config = {input_strides = array<i64: 16, 1>, program = "t0 = neg(i0) : f32",
                 space = array<i64: 16, 16>, vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  kernel.launch @t3 ins(%c : memref<16x16xf32>) outs(%y : memref<16x16xf32>)
      {kind = "elementwise", config = {op = "relu", vec = 1 : i64},
       grid = array<i64: 1, 1, 1>, block = array<i64: 256, 1, 1>}
  return
}
