// RUN: %kiln-opt %s -split-input-file -verify-diagnostics

// A well-formed attention round-trips (BERT's layout, rank 4, bias).
func.func @ok(%q: tensor<2x16x4x64xf16>, %m: tensor<2x1x1x16xf16>) -> tensor<2x16x4x64xf16> {
  %0 = graph.attention %q, %q, %q, %m {scale = 1.25e-01 : f64, q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 1, 3>, v_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x64xf16>, tensor<2x16x4x64xf16>, tensor<2x16x4x64xf16>, tensor<2x1x1x16xf16> -> tensor<2x16x4x64xf16>
  return %0 : tensor<2x16x4x64xf16>
}

// -----

// The head dimension must stay innermost (the kernel reads it contiguously).
func.func @head_moved(%q: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{k_perm must permute the operand's axes keeping the last one last}}
  %0 = graph.attention %q, %q, %q {q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 2, 1>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

func.func @batch_differs(%q: tensor<2x16x64xf16>, %k: tensor<3x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{q, k and v must have equal batch axes, got [2,16,64], [3,16,64], [2,16,64]}}
  %0 = graph.attention %q, %k, %q {q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<3x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

func.func @bias_shape(%q: tensor<2x16x64xf16>, %m: tensor<2x8x16xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{bias shape [2,8,16] does not broadcast to the scores' shape [2,16,16]}}
  %0 = graph.attention %q, %q, %q, %m {q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x8x16xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

func.func @result_shape(%q: tensor<2x16x64xf16>, %v: tensor<2x16x32xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{result shape [2,16,64] does not match the expected shape [2,16,32]}}
  %0 = graph.attention %q, %q, %v {q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x32xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

func.func @divides_without_scale(%q: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{scale_divides needs a scale}}
  %0 = graph.attention %q, %q, %q {scale_divides, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// A heads range must lie within the operand's heads (rank 4).
func.func @heads_out_of_range(%x: tensor<2x16x6x32xf16>) -> tensor<2x16x2x32xf16> {
  // expected-error @+1 {{a heads range [offset, count] needs rank 4 and must lie within the operand's heads}}
  %0 = graph.attention %x, %x, %x {q_heads = array<i64: 0, 2>, k_heads = array<i64: 5, 2>, v_heads = array<i64: 4, 2>, q_perm = array<i64: 0, 2, 1, 3>, k_perm = array<i64: 0, 2, 1, 3>, v_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x6x32xf16>, tensor<2x16x6x32xf16>, tensor<2x16x6x32xf16> -> tensor<2x16x2x32xf16>
  return %0 : tensor<2x16x2x32xf16>
}
