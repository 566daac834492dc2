// RUN: kiln-opt %s -kiln-lower-to-kernel -split-input-file | FileCheck %s

// An elementwise op with broadcasting: the result is written straight into
// the output buffer; the f32 rows of 64 get 4-wide vector accesses.
// CHECK-LABEL: func.func @broadcast_add
// CHECK-SAME: (%[[X:.+]]: memref<4x64xf32> {kernel.input = 0 : i64, kernel.name = "x"}, %[[B:.+]]: memref<64xf32> {kernel.input = 1 : i64}, %[[Y:.+]]: memref<4x64xf32> {kernel.name = "y", kernel.output = 0 : i64})
// CHECK-NOT: kernel.alloc
// CHECK: kernel.launch @add ins(%[[X]], %[[B]] : memref<4x64xf32>, memref<64xf32>) outs(%[[Y]] : memref<4x64xf32>)
// CHECK-SAME: block = array<i64: 256, 1, 1>, config = {op = "add", vec = 4 : i64}, grid = array<i64: 1, 1, 1>, kind = "elementwise"
// CHECK-NEXT: return
func.func @broadcast_add(%x: tensor<4x64xf32> {graph.name = "x"}, %b: tensor<64xf32>)
    -> (tensor<4x64xf32> {graph.name = "y"}) {
  %0 = graph.add %x, %b : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// A chain: the intermediate gets an alloc (no offset before planning); the
// launch takes its name from the ONNX node; a reshape is a view, and the
// value it views is bound to the output through a reverse view.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.+]]: memref<2x8xf32> {kernel.input = 0 : i64}, %[[Y:.+]]: memref<16xf32> {kernel.output = 0 : i64})
// CHECK: %[[T:.+]] = kernel.alloc : memref<2x8xf32>
// CHECK: kernel.launch @relu_node ins(%[[X]] : memref<2x8xf32>) outs(%[[T]] : memref<2x8xf32>)
// CHECK: %[[V:.+]] = kernel.alias %[[Y]] : memref<16xf32> -> memref<2x8xf32>
// CHECK: kernel.launch @exp ins(%[[T]] : memref<2x8xf32>) outs(%[[V]] : memref<2x8xf32>)
// CHECK-NOT: kernel.launch
func.func @chain(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  %0 = graph.relu %x : tensor<2x8xf32> -> tensor<2x8xf32> loc("relu.node")
  %1 = graph.exp %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = graph.reshape %1 : tensor<2x8xf32> -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// Outputs that cannot be bound get copies: an input returned as is, a
// weight, a value returned twice, a view at an offset (a contiguous slice).
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[X:[^:]+]]: memref<4x6xf32> {kernel.input = 0 : i64}, %[[O0:[^:]+]]: memref<4x6xf32> {kernel.output = 0 : i64}, %[[O1:[^:]+]]: memref<4x6xf32> {kernel.output = 1 : i64}, %[[O2:[^:]+]]: memref<4x6xf32> {kernel.output = 2 : i64}, %[[O3:[^:]+]]: memref<4x6xf32> {kernel.output = 3 : i64}, %[[O4:[^:]+]]: memref<2x6xf32> {kernel.output = 4 : i64})
// CHECK: %[[W:.+]] = kernel.weight dense<1.000000e+00> : tensor<4x6xf32> -> memref<4x6xf32>
// CHECK: kernel.launch @neg ins(%[[X]] : memref<4x6xf32>) outs(%[[O2]] : memref<4x6xf32>)
// CHECK: %[[S:.+]] = kernel.alias %[[O2]] {offset = 24 : i64} : memref<4x6xf32> -> memref<2x6xf32>
// CHECK: kernel.launch @copy_to_output ins(%[[X]] : memref<4x6xf32>) outs(%[[O0]] : memref<4x6xf32>) {{.*}}config = {op = "copy", vec = 4 : i64}
// CHECK: kernel.launch @copy_to_output_1 ins(%[[W]] : memref<4x6xf32>) outs(%[[O1]] : memref<4x6xf32>)
// CHECK: kernel.launch @copy_to_output_2 ins(%[[O2]] : memref<4x6xf32>) outs(%[[O3]] : memref<4x6xf32>)
// CHECK: kernel.launch @copy_to_output_3 ins(%[[S]] : memref<2x6xf32>) outs(%[[O4]] : memref<2x6xf32>)
// CHECK-NEXT: return
func.func @copies(%x: tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>,
                                            tensor<4x6xf32>, tensor<2x6xf32>) {
  %w = graph.constant dense<1.0> : tensor<4x6xf32>
  %n = graph.neg %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %s = graph.slice %n {starts = array<i64: 1, 0>, steps = array<i64: 1, 1>} : tensor<4x6xf32> -> tensor<2x6xf32>
  return %x, %w, %n, %n, %s : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<2x6xf32>
}

// -----

// A strided slice is a launch; a slice of whole trailing rows is a view at
// its byte offset (f16: 2 bytes per element).
// CHECK-LABEL: func.func @slices
// CHECK: kernel.launch @slice ins(%{{.+}} : memref<4x8xf16>) outs(%{{.+}} : memref<4x3xf16>)
// CHECK-SAME: config = {starts = array<i64: 0, 7>, steps = array<i64: 1, -2>, vec = 1 : i64}, grid = array<i64: 1, 1, 1>, kind = "slice"
// CHECK: kernel.alias %{{.+}} {offset = 32 : i64} : memref<4x8xf16> -> memref<2x8xf16>
func.func @slices(%x: tensor<4x8xf16>) -> (tensor<4x3xf16>, tensor<2x8xf16>) {
  %0 = graph.slice %x {starts = array<i64: 0, 7>, steps = array<i64: 1, -2>} : tensor<4x8xf16> -> tensor<4x3xf16>
  %1 = graph.slice %x {starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : tensor<4x8xf16> -> tensor<2x8xf16>
  %2 = graph.exp %1 : tensor<2x8xf16> -> tensor<2x8xf16>
  return %0, %2 : tensor<4x3xf16>, tensor<2x8xf16>
}

// -----

// matmul: 1-D operands become matrices through views; a batched A times one
// B folds the batch into M (one 12x8 by 8x16 product); f16 takes the tensor
// core path.
// CHECK-LABEL: func.func @matmuls
// CHECK-SAME: (%[[V:[^:]+]]: memref<8xf32> {kernel.input = 0 : i64}, %[[B:[^:]+]]: memref<8x16xf32> {kernel.input = 1 : i64}, %[[A:[^:]+]]: memref<3x4x8xf16> {kernel.input = 2 : i64}, %[[C:[^:]+]]: memref<8x16xf16> {kernel.input = 3 : i64}, %[[O0:[^:]+]]: memref<16xf32> {kernel.output = 0 : i64}, %[[O1:[^:]+]]: memref<3x4x16xf16> {kernel.output = 1 : i64})
// CHECK: %[[VM:.+]] = kernel.alias %[[V]] : memref<8xf32> -> memref<1x8xf32>
// CHECK: %[[OM:.+]] = kernel.alias %[[O0]] : memref<16xf32> -> memref<1x16xf32>
// CHECK: kernel.launch @matmul ins(%[[VM]], %[[B]] : memref<1x8xf32>, memref<8x16xf32>) outs(%[[OM]] : memref<1x16xf32>)
// CHECK-SAME: path = "simt"
// CHECK: %[[AM:.+]] = kernel.alias %[[A]] : memref<3x4x8xf16> -> memref<12x8xf16>
// CHECK: %[[OM1:.+]] = kernel.alias %[[O1]] : memref<3x4x16xf16> -> memref<12x16xf16>
// CHECK: kernel.launch @matmul_1 ins(%[[AM]], %[[C]] : memref<12x8xf16>, memref<8x16xf16>) outs(%[[OM1]] : memref<12x16xf16>)
// CHECK-SAME: path = "mma", split_k = 1 : i64, stage_out = false, stages = 3 : i64, tile_k = 32 : i64, tile_m = 64 : i64, tile_n = 64 : i64, trans_a = false, trans_b = false, warps_m = 2 : i64, warps_n = 2 : i64}, grid = array<i64: 1, 1, 1>, kind = "matmul"
func.func @matmuls(%v: tensor<8xf32>, %b: tensor<8x16xf32>, %a: tensor<3x4x8xf16>, %c: tensor<8x16xf16>)
    -> (tensor<16xf32>, tensor<3x4x16xf16>) {
  %0 = graph.matmul %v, %b : tensor<8xf32>, tensor<8x16xf32> -> tensor<16xf32>
  %1 = graph.matmul %a, %c : tensor<3x4x8xf16>, tensor<8x16xf16> -> tensor<3x4x16xf16>
  return %0, %1 : tensor<16xf32>, tensor<3x4x16xf16>
}

// -----

// gemm keeps its attributes as config; C is the third input. Batched matmul
// with a broadcast batch launches one z-slice per batch.
// CHECK-LABEL: func.func @gemm_and_batched
// CHECK: kernel.launch @gemm ins(%{{.+}}, %{{.+}}, %{{.+}} : memref<8x4xf32>, memref<16x8xf32>, memref<16xf32>) outs(%{{.+}} : memref<4x16xf32>)
// CHECK-SAME: config = {alpha = 5.000000e-01 : f64, beta = 2.000000e+00 : f64, path = "simt", tile_k = 16 : i64, tile_m = 32 : i64, tile_n = 32 : i64, trans_a = true, trans_b = true}
// CHECK: kernel.launch @matmul ins(%{{.+}}, %{{.+}} : memref<2x1x5x8xf32>, memref<3x8x6xf32>) outs(%{{.+}} : memref<2x3x5x6xf32>)
// CHECK-SAME: grid = array<i64: 1, 1, 6>
func.func @gemm_and_batched(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>,
                            %d: tensor<2x1x5x8xf32>, %e: tensor<3x8x6xf32>)
    -> (tensor<4x16xf32>, tensor<2x3x5x6xf32>) {
  %0 = graph.gemm %a, %b, %c {alpha = 0.5 : f32, beta = 2.0 : f32, trans_a = true, trans_b = true}
      : tensor<8x4xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %1 = graph.matmul %d, %e : tensor<2x1x5x8xf32>, tensor<3x8x6xf32> -> tensor<2x3x5x6xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<2x3x5x6xf32>
}

// -----

// Reductions pick a block per row when the innermost axis is reduced and a
// thread per output otherwise; softmax and layer norm get a block per row.
// CHECK-LABEL: func.func @rows
// CHECK: kernel.launch @reduce_sum {{.*}}config = {axes = array<i64: 1>, block_size = 128 : i64, op = "sum", variant = "row"}, grid = array<i64: 4, 1, 1>, kind = "reduce"
// CHECK: kernel.launch @reduce_max {{.*}}config = {axes = array<i64: 0>, op = "max", variant = "col"}, grid = array<i64: 2, 1, 1>, kind = "reduce"
// CHECK: kernel.launch @softmax {{.*}}config = {axis = 1 : i64, block_size = 128 : i64, log = false, variant = "row"}, grid = array<i64: 4, 1, 1>, kind = "softmax"
// CHECK: kernel.launch @log_softmax {{.*}}config = {axis = 0 : i64, log = true, variant = "col"}
// CHECK: kernel.launch @layer_norm {{.*}}config = {axis = 1 : i64, block_size = 128 : i64, epsilon = 9.99999974{{[0-9]*}}E-6 : f64}, grid = array<i64: 4, 1, 1>, kind = "layer_norm"
func.func @rows(%x: tensor<4x500xf32>, %g: tensor<500xf32>)
    -> (tensor<4x1xf32>, tensor<500xf32>, tensor<4x500xf32>, tensor<4x500xf32>, tensor<4x500xf32>) {
  %0 = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<4x500xf32> -> tensor<4x1xf32>
  %1 = graph.reduce_max %x {axes = array<i64: 0>, keepdims = false} : tensor<4x500xf32> -> tensor<500xf32>
  %2 = graph.softmax %x {axis = 1 : i64} : tensor<4x500xf32>
  %3 = graph.log_softmax %x {axis = 0 : i64} : tensor<4x500xf32>
  %4 = graph.layer_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-5 : f32} : tensor<4x500xf32>, tensor<500xf32> -> tensor<4x500xf32>
  return %0, %1, %2, %3, %4 : tensor<4x1xf32>, tensor<500xf32>, tensor<4x500xf32>, tensor<4x500xf32>, tensor<4x500xf32>
}

// -----

// Ops with attributes carry them in the config; a transpose that moves the
// innermost axis goes through shared-memory tiles (32x8 threads a tile).
// CHECK-LABEL: func.func @attributes
// CHECK: kernel.launch @conv {{.*}}config = {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK: kernel.launch @max_pool {{.*}}config = {count_include_pad = false, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, op = "max", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK: kernel.launch @gather {{.*}}config = {axis = 0 : i64, vec = 4 : i64}, grid = array<i64: 1, 1, 1>, kind = "gather"
// CHECK: kernel.launch @transpose {{.*}}{block = array<i64: 32, 8, 1>, config = {perm = array<i64: 1, 0>, variant = "tiled"}
// CHECK: kernel.launch @concat {{.*}}config = {axis = 0 : i64, vec = 4 : i64}
// CHECK: kernel.launch @trilu {{.*}}config = {k = 0 : i64, upper = true, vec = 4 : i64}
// CHECK: kernel.launch @expand {{.*}}config = {op = "copy", vec = 4 : i64}, grid = array<i64: 1, 1, 1>, kind = "elementwise"
// CHECK: kernel.launch @clip {{.*}}config = {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64, op = "clip", vec = 4 : i64}
func.func @attributes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %t: tensor<100x64xf32>,
                      %i: tensor<2xi64>, %m: tensor<8x8xf32>, %v: tensor<8x1xf32>)
    -> (tensor<1x4x8x8xf32>, tensor<1x3x4x4xf32>, tensor<2x64xf32>, tensor<8x8xf32>,
        tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = graph.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>, group = 1 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  %1 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>} : tensor<1x3x8x8xf32> -> tensor<1x3x4x4xf32>
  %2 = graph.gather %t, %i {axis = 0 : i64} : tensor<100x64xf32>, tensor<2xi64> -> tensor<2x64xf32>
  %3 = graph.transpose %m {perm = array<i64: 1, 0>} : tensor<8x8xf32> -> tensor<8x8xf32>
  %4 = graph.concat %m, %m {axis = 0 : i64} : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<16x8xf32>
  %5 = graph.trilu %m {k = 0 : i64, upper = true} : tensor<8x8xf32>
  %6 = graph.expand %v : tensor<8x1xf32> -> tensor<8x8xf32>
  %7 = graph.clip %m {min = 0.0, max = 6.0} : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<1x4x8x8xf32>, tensor<1x3x4x4xf32>, tensor<2x64xf32>,
      tensor<8x8xf32>, tensor<16x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Nothing to compute for an empty tensor: no launch, and the (zero-byte)
// output needs no copy either.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: kernel.launch
// CHECK: return
func.func @empty(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = graph.relu %x : tensor<3x0xf32> -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}
