// RUN: kiln-opt %s -kiln-lower-to-kernel -split-input-file -verify-diagnostics \
// RUN:   -allow-unregistered-dialect

// f8 has no kernel dtype: the op that needs a buffer of it reports, at its
// location, which type it cannot lower.
func.func @f8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{cannot lower an operand of type 'memref<4xf8E4M3FN>' to a kernel buffer}}
  %0 = graph.add %x, %x : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Ops of other dialects have no kernel.
func.func @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{no kernel lowering for 'test.op'}}
  %0 = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
