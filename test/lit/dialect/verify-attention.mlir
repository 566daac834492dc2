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

// -----

// Grouped-query attention: 4 query heads over 2 KV heads (q_per_kv = 2),
// K and V read through their own perms and a heads range.
func.func @gqa_ok(%q: tensor<2x4x16x64xf16>, %kv: tensor<2x16x6x64xf16>) -> tensor<2x4x16x64xf16> {
  %0 = graph.attention %q, %kv, %kv {q_per_kv = 2 : i64, k_heads = array<i64: 0, 2>, v_heads = array<i64: 2, 2>, q_perm = array<i64: 0, 1, 2, 3>, k_perm = array<i64: 0, 2, 1, 3>, v_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 1, 2, 3>} : tensor<2x4x16x64xf16>, tensor<2x16x6x64xf16>, tensor<2x16x6x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// K and V must carry exactly 1/q_per_kv of Q's heads.
func.func @gqa_heads_mismatch(%q: tensor<2x4x16x64xf16>, %kv: tensor<2x1x16x64xf16>) -> tensor<2x4x16x64xf16> {
  // expected-error @+1 {{with q_per_kv = 2, k and v must have q's batch axes with 1/2 of its heads, got [2,4,16,64], [2,1,16,64], [2,1,16,64]}}
  %0 = graph.attention %q, %kv, %kv {q_per_kv = 2 : i64, q_perm = array<i64: 0, 1, 2, 3>, k_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>} : tensor<2x4x16x64xf16>, tensor<2x1x16x64xf16>, tensor<2x1x16x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// Fewer KV heads without q_per_kv are not grouped-query attention.
func.func @kv_heads_without_group(%q: tensor<2x4x16x64xf16>, %kv: tensor<2x2x16x64xf16>) -> tensor<2x4x16x64xf16> {
  // expected-error @+1 {{q, k and v must have equal batch axes, got [2,4,16,64], [2,2,16,64], [2,2,16,64]}}
  %0 = graph.attention %q, %kv, %kv {q_perm = array<i64: 0, 1, 2, 3>, k_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>} : tensor<2x4x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// The group must divide Q's heads.
func.func @gqa_not_dividing(%q: tensor<2x4x16x64xf16>, %kv: tensor<2x1x16x64xf16>) -> tensor<2x4x16x64xf16> {
  // expected-error @+1 {{q_per_kv = 3 does not divide q's 4 heads}}
  %0 = graph.attention %q, %kv, %kv {q_per_kv = 3 : i64, q_perm = array<i64: 0, 1, 2, 3>, k_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>} : tensor<2x4x16x64xf16>, tensor<2x1x16x64xf16>, tensor<2x1x16x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// Heads exist only at rank 4, and a group is at least 1.
func.func @gqa_rank3(%q: tensor<4x16x64xf16>) -> tensor<4x16x64xf16> {
  // expected-error @+1 {{q_per_kv (query heads per KV head) needs rank 4 and must be at least 1, got 2}}
  %0 = graph.attention %q, %q, %q {q_per_kv = 2 : i64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<4x16x64xf16>, tensor<4x16x64xf16>, tensor<4x16x64xf16> -> tensor<4x16x64xf16>
  return %0 : tensor<4x16x64xf16>
}

// -----

func.func @gqa_zero(%q: tensor<2x4x16x64xf16>) -> tensor<2x4x16x64xf16> {
  // expected-error @+1 {{q_per_kv (query heads per KV head) needs rank 4 and must be at least 1, got 0}}
  %0 = graph.attention %q, %q, %q {q_per_kv = 0 : i64, q_perm = array<i64: 0, 1, 2, 3>, k_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>} : tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16> -> tensor<2x4x16x64xf16>
  return %0 : tensor<2x4x16x64xf16>
}

// -----

// Causal attention with a bias (added before the mask) round-trips.
func.func @causal_ok(%q: tensor<2x16x64xf16>, %m: tensor<16x16xf16>) -> tensor<2x16x64xf16> {
  %0 = graph.attention %q, %q, %q, %m {causal, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<16x16xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// Causal needs Sq == Sk (no convention for aligning a shorter query block).
func.func @causal_ragged(%q: tensor<2x8x64xf16>, %k: tensor<2x16x64xf16>) -> tensor<2x8x64xf16> {
  // expected-error @+1 {{causal needs as many queries as keys, got 8 and 16}}
  %0 = graph.attention %q, %k, %k {causal, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x8x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x8x64xf16>
  return %0 : tensor<2x8x64xf16>
}

// -----

// A finite causal fill needs `causal`.
func.func @causal_fill_alone(%q: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{causal_fill needs causal}}
  %0 = graph.attention %q, %q, %q {causal_fill = -6.550400e+04 : f64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// The kernel tells fully masked rows by their maximum: the fill must be far
// below any score.
func.func @causal_fill_small(%q: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{causal_fill must be in [-6.550400e+04, -1e4], got -1.000000e+02}}
  %0 = graph.attention %q, %q, %q {causal, causal_fill = -1.000000e+02 : f64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// A padding bias with a causal fill round-trips.
func.func @causal_fill_ok(%q: tensor<2x16x64xf16>, %m: tensor<2x1x16xf16>) -> tensor<2x16x64xf16> {
  %0 = graph.attention %q, %q, %q, %m {causal, causal_fill = -6.550400e+04 : f64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x1x16xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// The fill is a value of the element type (f16's lowest is -65504).
func.func @causal_fill_past_f16(%q: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  // expected-error @+1 {{causal_fill must be in [-6.550400e+04, -1e4], got -1.000000e+05}}
  %0 = graph.attention %q, %q, %q {causal, causal_fill = -1.000000e+05 : f64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xf16>, tensor<2x16x64xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %0 : tensor<2x16x64xf16>
}

// -----

// F log2(e) must be finite in f32: bf16's lowest value (-3.39e38) is not.
func.func @causal_fill_bf16_lowest(%q: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{causal_fill must be in [-2.000000e+38, -1e4], got -3.389531e+38}}
  %0 = graph.attention %q, %q, %q {causal, causal_fill = -3.3895313892515355E+38 : f64, q_perm = array<i64: 0, 1, 2>, k_perm = array<i64: 0, 1, 2>, v_perm = array<i64: 0, 1, 2>, out_perm = array<i64: 0, 1, 2>} : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
  return %0 : tensor<2x16x64xbf16>
}
