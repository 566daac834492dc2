// RUN: kiln-opt %s -kiln-raise-attention -split-input-file | FileCheck %s
// RUN: kiln-opt %s -kiln-raise-attention=causal=true -split-input-file | FileCheck %s --check-prefix=CAUSAL
// RUN: kiln-opt %s -kiln-graph-O2 -split-input-file | FileCheck %s --check-prefix=O2
// RUN: kiln-opt %s -kiln-graph-O3 -split-input-file | FileCheck %s --check-prefix=O3

// BERT's form: head transposes around matmul, scale, additive mask, softmax,
// matmul; every transpose folds into the op's permutations.
// CHECK-LABEL: func.func @bert
//  CHECK-NEXT:   %[[A:.*]] = graph.attention %arg0, %arg1, %arg2, %arg3 {k_perm = array<i64: 0, 2, 1, 3>, out_perm = array<i64: 0, 2, 1, 3>, q_perm = array<i64: 0, 2, 1, 3>, scale = 1.250000e-01 : f64, v_perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x64xf16>, tensor<2x16x4x64xf16>, tensor<2x16x4x64xf16>, tensor<2x1x1x16xf16> -> tensor<2x16x4x64xf16>
//  CHECK-NEXT:   return %[[A]]
func.func @bert(%q: tensor<2x16x4x64xf16>, %k: tensor<2x16x4x64xf16>, %v: tensor<2x16x4x64xf16>, %m: tensor<2x1x1x16xf16>) -> tensor<2x16x4x64xf16> {
  %c = graph.constant dense<0.125> : tensor<f16>
  %qt = graph.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x64xf16> -> tensor<2x4x16x64xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x16x4x64xf16> -> tensor<2x4x64x16xf16>
  %vt = graph.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x64xf16> -> tensor<2x4x16x64xf16>
  %s = graph.matmul %qt, %kt : tensor<2x4x16x64xf16>, tensor<2x4x64x16xf16> -> tensor<2x4x16x16xf16>
  %ss = graph.mul %s, %c : tensor<2x4x16x16xf16>, tensor<f16> -> tensor<2x4x16x16xf16>
  %sm = graph.add %ss, %m : tensor<2x4x16x16xf16>, tensor<2x1x1x16xf16> -> tensor<2x4x16x16xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x4x16x16xf16>
  %o = graph.matmul %p, %vt : tensor<2x4x16x16xf16>, tensor<2x4x16x64xf16> -> tensor<2x4x16x64xf16>
  %r = graph.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x64xf16> -> tensor<2x16x4x64xf16>
  return %r : tensor<2x16x4x64xf16>
}

// -----

// Llama's form: K^T by a transpose of the last two axes, division by
// sqrt(d), the softmax in f32 between casts, no output transpose; bf16.
// CHECK-LABEL: func.func @llama
//  CHECK:        graph.attention %arg0, %arg1, %arg2, %arg3 {k_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>, q_perm = array<i64: 0, 1, 2, 3>, scale = 8.000000e+00 : f64, scale_divides, softmax_f32, v_perm = array<i64: 0, 1, 2, 3>}
//  CHECK-NOT:    graph.softmax
func.func @llama(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x4x8x64xbf16>, %v: tensor<1x4x8x64xbf16>, %m: tensor<8x8xbf16>) -> tensor<1x4x8x64xbf16> {
  %c = graph.constant dense<8.0> : tensor<bf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x64xbf16> -> tensor<1x4x64x8xbf16>
  %s = graph.matmul %q, %kt : tensor<1x4x8x64xbf16>, tensor<1x4x64x8xbf16> -> tensor<1x4x8x8xbf16>
  %ss = graph.div %s, %c : tensor<1x4x8x8xbf16>, tensor<bf16> -> tensor<1x4x8x8xbf16>
  %sm = graph.add %m, %ss : tensor<8x8xbf16>, tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xbf16>
  %up = graph.cast %sm : tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
  %p = graph.softmax %up {axis = 3 : i64} : tensor<1x4x8x8xf32>
  %down = graph.cast %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
  %o = graph.matmul %down, %v : tensor<1x4x8x8xbf16>, tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}

// -----

// torch.export's scaled_dot_product_attention: K^T scaled after its
// transpose (the scaling moves before it, so the transpose folds), NaN -> 0
// after the softmax.
// CHECK-LABEL: func.func @sdpa_export
//  CHECK:        %[[KS:.*]] = graph.mul %arg1, %{{.*}} : tensor<1x2x16x32xf16>, tensor<f16> -> tensor<1x2x16x32xf16>
//  CHECK-NEXT:   graph.attention %arg0, %[[KS]], %arg2, %arg3 {k_perm = array<i64: 0, 1, 2, 3>, nan_to_zero, out_perm = array<i64: 0, 1, 2, 3>, q_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>}
//  CHECK-NOT:    graph.where
func.func @sdpa_export(%q: tensor<1x2x16x32xf16>, %k: tensor<1x2x16x32xf16>, %v: tensor<1x2x16x32xf16>, %m: tensor<16x16xf16>) -> tensor<1x2x16x32xf16> {
  %c = graph.constant dense<0.42> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x32xf16> -> tensor<1x2x32x16xf16>
  %kts = graph.mul %kt, %c : tensor<1x2x32x16xf16>, tensor<f16> -> tensor<1x2x32x16xf16>
  %s = graph.matmul %q, %kts : tensor<1x2x16x32xf16>, tensor<1x2x32x16xf16> -> tensor<1x2x16x16xf16>
  %sm = graph.add %s, %m : tensor<1x2x16x16xf16>, tensor<16x16xf16> -> tensor<1x2x16x16xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x2x16x16xf16>
  %nan = graph.is_nan %p : tensor<1x2x16x16xf16> -> tensor<1x2x16x16xi1>
  %pz = graph.where %nan, %zero, %p : tensor<1x2x16x16xi1>, tensor<f16>, tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf16>
  %o = graph.matmul %pz, %v : tensor<1x2x16x16xf16>, tensor<1x2x16x32xf16> -> tensor<1x2x16x32xf16>
  return %o : tensor<1x2x16x32xf16>
}

// -----

// HF Llama with eager attention and grouped-query attention: repeat_kv
// writes K and V as Reshape(Expand(Reshape(x) [b, kvh, 1, s, d]) [b, kvh,
// g, s, d]) [b, kvh * g, s, d]; the attention reads the 2 KV heads in place
// (q_per_kv = 2, no expand left), and V's head transpose folds under the
// repeat.
// CHECK-LABEL: func.func @llama_gqa
//  CHECK-NOT:    graph.expand
//  CHECK:        graph.attention %arg0, %arg1, %arg2, %arg3 {k_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>, q_per_kv = 2 : i64, q_perm = array<i64: 0, 1, 2, 3>, scale = 8.000000e+00 : f64, scale_divides, v_perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x16x2x64xf16>, tensor<16x16xf16> -> tensor<1x4x16x64xf16>
//  CHECK-NOT:    graph.expand
func.func @llama_gqa(%q: tensor<1x4x16x64xf16>, %k: tensor<1x2x16x64xf16>, %vh: tensor<1x16x2x64xf16>, %m: tensor<16x16xf16>) -> tensor<1x4x16x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %k1 = graph.reshape %k : tensor<1x2x16x64xf16> -> tensor<1x2x1x16x64xf16>
  %k2 = graph.expand %k1 : tensor<1x2x1x16x64xf16> -> tensor<1x2x2x16x64xf16>
  %kr = graph.reshape %k2 : tensor<1x2x2x16x64xf16> -> tensor<1x4x16x64xf16>
  %v = graph.transpose %vh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x2x64xf16> -> tensor<1x2x16x64xf16>
  %v1 = graph.reshape %v : tensor<1x2x16x64xf16> -> tensor<1x2x1x16x64xf16>
  %v2 = graph.expand %v1 : tensor<1x2x1x16x64xf16> -> tensor<1x2x2x16x64xf16>
  %vr = graph.reshape %v2 : tensor<1x2x2x16x64xf16> -> tensor<1x4x16x64xf16>
  %kt = graph.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x64xf16> -> tensor<1x4x64x16xf16>
  %s = graph.matmul %q, %kt : tensor<1x4x16x64xf16>, tensor<1x4x64x16xf16> -> tensor<1x4x16x16xf16>
  %ss = graph.div %s, %c : tensor<1x4x16x16xf16>, tensor<f16> -> tensor<1x4x16x16xf16>
  %sm = graph.add %ss, %m : tensor<1x4x16x16xf16>, tensor<16x16xf16> -> tensor<1x4x16x16xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x4x16x16xf16>
  %o = graph.matmul %p, %vr : tensor<1x4x16x16xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %o : tensor<1x4x16x64xf16>
}

// -----

// HF Llama with sdpa through torch.onnx (dynamo, optimize=True): torchlib
// scales Q and K^T by sqrt(scale) each, writes K^T as Reshape(Transpose(
// Reshape)) whose inner reshape has composed with repeat_kv's (it reads the
// rank-5 Expand), and adds Where(IsNaN). Q's scaling stays Q; K's moves onto
// the unrepeated K; the repeats go.
// CHECK-LABEL: func.func @llama_sdpa_gqa
//  CHECK-DAG:    %[[C:.*]] = graph.constant dense<3.535160e-01> : tensor<f16>
//  CHECK-DAG:    %[[QS:.*]] = graph.mul %arg0, %[[C]] : tensor<1x4x16x64xf16>, tensor<f16> -> tensor<1x4x16x64xf16>
//  CHECK-DAG:    %[[KS:.*]] = graph.mul %arg1, %[[C]] : tensor<1x2x16x64xf16>, tensor<f16> -> tensor<1x2x16x64xf16>
//  CHECK:        graph.attention %[[QS]], %[[KS]], %arg2, %arg3 {k_perm = array<i64: 0, 1, 2, 3>, nan_to_zero, out_perm = array<i64: 0, 1, 2, 3>, q_per_kv = 2 : i64, q_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>} : tensor<1x4x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x2x16x64xf16>, tensor<1x1x16x16xf16> -> tensor<1x4x16x64xf16>
//  CHECK-NOT:    graph.expand
//  CHECK-NOT:    graph.where
func.func @llama_sdpa_gqa(%q: tensor<1x4x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x2x16x64xf16>, %m: tensor<1x1x16x16xf16>) -> tensor<1x4x16x64xf16> {
  %c = graph.constant dense<0.3535> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %k1 = graph.reshape %k : tensor<1x2x16x64xf16> -> tensor<1x2x1x16x64xf16>
  %k2 = graph.expand %k1 : tensor<1x2x1x16x64xf16> -> tensor<1x2x2x16x64xf16>
  %k3 = graph.reshape %k2 : tensor<1x2x2x16x64xf16> -> tensor<4x16x64xf16>
  %k4 = graph.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<4x16x64xf16> -> tensor<4x64x16xf16>
  %kt = graph.reshape %k4 : tensor<4x64x16xf16> -> tensor<1x4x64x16xf16>
  %kts = graph.mul %kt, %c : tensor<1x4x64x16xf16>, tensor<f16> -> tensor<1x4x64x16xf16>
  %v1 = graph.reshape %v : tensor<1x2x16x64xf16> -> tensor<1x2x1x16x64xf16>
  %v2 = graph.expand %v1 : tensor<1x2x1x16x64xf16> -> tensor<1x2x2x16x64xf16>
  %vr = graph.reshape %v2 : tensor<1x2x2x16x64xf16> -> tensor<1x4x16x64xf16>
  %qs = graph.mul %q, %c : tensor<1x4x16x64xf16>, tensor<f16> -> tensor<1x4x16x64xf16>
  %s = graph.matmul %qs, %kts : tensor<1x4x16x64xf16>, tensor<1x4x64x16xf16> -> tensor<1x4x16x16xf16>
  %sm = graph.add %s, %m : tensor<1x4x16x16xf16>, tensor<1x1x16x16xf16> -> tensor<1x4x16x16xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x4x16x16xf16>
  %nan = graph.is_nan %p : tensor<1x4x16x16xf16> -> tensor<1x4x16x16xi1>
  %pz = graph.where %nan, %zero, %p : tensor<1x4x16x16xi1>, tensor<f16>, tensor<1x4x16x16xf16> -> tensor<1x4x16x16xf16>
  %o = graph.matmul %pz, %vr : tensor<1x4x16x16xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %o : tensor<1x4x16x64xf16>
}

// -----

// The same K^T without a repeat: the inner reshape merged [2, 4] heads that
// the scores split as [4, 2]; K is read as a view with the scores' batch
// axes.
// CHECK-LABEL: func.func @kt_view
//  CHECK:        %[[KV:.*]] = graph.reshape %arg1 : tensor<2x4x16x64xf16> -> tensor<4x2x16x64xf16>
//  CHECK:        graph.attention %arg0, %[[KV]], %arg2 {k_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>, q_perm = array<i64: 0, 1, 2, 3>, v_perm = array<i64: 0, 1, 2, 3>}
//  CHECK-NOT:    graph.transpose
func.func @kt_view(%q: tensor<4x2x16x64xf16>, %k: tensor<2x4x16x64xf16>, %v: tensor<4x2x16x64xf16>) -> tensor<4x2x16x64xf16> {
  %k3 = graph.reshape %k : tensor<2x4x16x64xf16> -> tensor<8x16x64xf16>
  %k4 = graph.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<8x16x64xf16> -> tensor<8x64x16xf16>
  %kt = graph.reshape %k4 : tensor<8x64x16xf16> -> tensor<4x2x64x16xf16>
  %s = graph.matmul %q, %kt : tensor<4x2x16x64xf16>, tensor<4x2x64x16xf16> -> tensor<4x2x16x16xf16>
  %p = graph.softmax %s {axis = 3 : i64} : tensor<4x2x16x16xf16>
  %o = graph.matmul %p, %v : tensor<4x2x16x16xf16>, tensor<4x2x16x64xf16> -> tensor<4x2x16x64xf16>
  return %o : tensor<4x2x16x64xf16>
}

// -----

// K repeated but V not: no q_per_kv covers both, so K's repeat stays
// materialized (the attention still raises over the repeated K).
// CHECK-LABEL: func.func @gqa_k_only
//  CHECK:        graph.expand
//  CHECK:        graph.attention
//  CHECK-NOT:    q_per_kv
func.func @gqa_k_only(%q: tensor<1x4x16x64xf16>, %k: tensor<1x2x16x64xf16>, %v: tensor<1x4x16x64xf16>) -> tensor<1x4x16x64xf16> {
  %k1 = graph.reshape %k : tensor<1x2x16x64xf16> -> tensor<1x2x1x16x64xf16>
  %k2 = graph.expand %k1 : tensor<1x2x1x16x64xf16> -> tensor<1x2x2x16x64xf16>
  %kr = graph.reshape %k2 : tensor<1x2x2x16x64xf16> -> tensor<1x4x16x64xf16>
  %kt = graph.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x64xf16> -> tensor<1x4x64x16xf16>
  %s = graph.matmul %q, %kt : tensor<1x4x16x64xf16>, tensor<1x4x64x16xf16> -> tensor<1x4x16x16xf16>
  %p = graph.softmax %s {axis = 3 : i64} : tensor<1x4x16x16xf16>
  %o = graph.matmul %p, %v : tensor<1x4x16x16xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
  return %o : tensor<1x4x16x64xf16>
}

// -----

// Not raised: f32 (no tensor-core kernel), scores used twice, a head
// dimension that is not a multiple of 16, softmax over another axis, and K^T
// that is not a transpose (its head dimension is not innermost).
// CHECK-LABEL: func.func @f32
//  CHECK-NOT:    graph.attention
func.func @f32(%q: tensor<2x16x64xf32>, %k: tensor<2x64x16xf32>, %v: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %s = graph.matmul %q, %k : tensor<2x16x64xf32>, tensor<2x64x16xf32> -> tensor<2x16x16xf32>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<2x16x16xf32>
  %o = graph.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x64xf32> -> tensor<2x16x64xf32>
  return %o : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func.func @scores_used_twice
//  CHECK-NOT:    graph.attention
func.func @scores_used_twice(%q: tensor<2x16x64xf16>, %kk: tensor<2x16x64xf16>, %v: tensor<2x16x64xf16>) -> (tensor<2x16x64xf16>, tensor<2x16x16xf16>) {
  %k = graph.transpose %kk {perm = array<i64: 0, 2, 1>} : tensor<2x16x64xf16> -> tensor<2x64x16xf16>
  %s = graph.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x16xf16> -> tensor<2x16x16xf16>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<2x16x16xf16>
  %o = graph.matmul %p, %v : tensor<2x16x16xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %o, %p : tensor<2x16x64xf16>, tensor<2x16x16xf16>
}

// -----

// CHECK-LABEL: func.func @head_dim_40
//  CHECK-NOT:    graph.attention
func.func @head_dim_40(%q: tensor<2x16x40xf16>, %kk: tensor<2x16x40xf16>, %v: tensor<2x16x40xf16>) -> tensor<2x16x40xf16> {
  %k = graph.transpose %kk {perm = array<i64: 0, 2, 1>} : tensor<2x16x40xf16> -> tensor<2x40x16xf16>
  %s = graph.matmul %q, %k : tensor<2x16x40xf16>, tensor<2x40x16xf16> -> tensor<2x16x16xf16>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<2x16x16xf16>
  %o = graph.matmul %p, %v : tensor<2x16x16xf16>, tensor<2x16x40xf16> -> tensor<2x16x40xf16>
  return %o : tensor<2x16x40xf16>
}

// -----

// CHECK-LABEL: func.func @softmax_axis_1
//  CHECK-NOT:    graph.attention
func.func @softmax_axis_1(%q: tensor<2x16x64xf16>, %kk: tensor<2x16x64xf16>, %v: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  %k = graph.transpose %kk {perm = array<i64: 0, 2, 1>} : tensor<2x16x64xf16> -> tensor<2x64x16xf16>
  %s = graph.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x16xf16> -> tensor<2x16x16xf16>
  %p = graph.softmax %s {axis = 1 : i64} : tensor<2x16x16xf16>
  %o = graph.matmul %p, %v : tensor<2x16x16xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %o : tensor<2x16x64xf16>
}

// -----

// CHECK-LABEL: func.func @k_not_transposed
//  CHECK-NOT:    graph.attention
func.func @k_not_transposed(%q: tensor<2x16x64xf16>, %k: tensor<2x64x16xf16>, %v: tensor<2x16x64xf16>) -> tensor<2x16x64xf16> {
  %s = graph.matmul %q, %k : tensor<2x16x64xf16>, tensor<2x64x16xf16> -> tensor<2x16x16xf16>
  %p = graph.softmax %s {axis = 2 : i64} : tensor<2x16x16xf16>
  %o = graph.matmul %p, %v : tensor<2x16x16xf16>, tensor<2x16x64xf16> -> tensor<2x16x64xf16>
  return %o : tensor<2x16x64xf16>
}

// -----

// A constant causal mask (0 on and below the diagonal, -inf above) becomes
// `causal` with the causal option (-O2 and -O3), which is exact; without it
// it stays the bias.
// CHECK-LABEL: func.func @causal_inf
//  CHECK:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
//  CHECK-NOT:    {causal
// CAUSAL-LABEL: func.func @causal_inf
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2 {causal, k_perm = array<i64: 0, 1, 2, 3>, out_perm = array<i64: 0, 1, 2, 3>, q_perm = array<i64: 0, 1, 2, 3>, scale = 8.000000e+00 : f64, scale_divides, v_perm = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16>, tensor<1x2x4x64xf16> -> tensor<1x2x4x64xf16>
//  CAUSAL-NOT:    graph.softmax
// O2-LABEL: func.func @causal_inf
//  O2:        graph.attention %arg0, %arg1, %arg2 {causal, k_perm
// O3-LABEL: func.func @causal_inf
//  O3:        graph.attention %arg0, %arg1, %arg2 {causal, k_perm
func.func @causal_inf(%q: tensor<1x2x4x64xf16>, %k: tensor<1x2x4x64xf16>, %v: tensor<1x2x4x64xf16>) -> tensor<1x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %m = graph.constant dense<[[[[0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0xFC00], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x64xf16> -> tensor<1x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<1x2x4x64xf16>, tensor<1x2x64x4xf16> -> tensor<1x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<1x2x4x4xf16>, tensor<f16> -> tensor<1x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<1x2x4x4xf16>, tensor<1x1x4x4xf16> -> tensor<1x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<1x2x4x4xf16>, tensor<1x2x4x64xf16> -> tensor<1x2x4x64xf16>
  return %o : tensor<1x2x4x64xf16>
}

// -----

// Negative: a finite -1e4 above the diagonal stays a bias (exp(score -
// 1e4) need not be 0 in f32, so `causal` could change the result).
// CAUSAL-LABEL: func.func @causal_finite
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
//  CAUSAL-NOT:    {causal
// O3-LABEL: func.func @causal_finite
//  O3:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
func.func @causal_finite(%q: tensor<1x2x4x64xf16>, %k: tensor<1x2x4x64xf16>, %v: tensor<1x2x4x64xf16>) -> tensor<1x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %m = graph.constant dense<[[[[0.0, -1.0e+04, -1.0e+04, -1.0e+04], [0.0, 0.0, -1.0e+04, -1.0e+04], [0.0, 0.0, 0.0, -1.0e+04], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x64xf16> -> tensor<1x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<1x2x4x64xf16>, tensor<1x2x64x4xf16> -> tensor<1x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<1x2x4x4xf16>, tensor<f16> -> tensor<1x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<1x2x4x4xf16>, tensor<1x1x4x4xf16> -> tensor<1x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<1x2x4x4xf16>, tensor<1x2x4x64xf16> -> tensor<1x2x4x64xf16>
  return %o : tensor<1x2x4x64xf16>
}

// -----

// Negative: -inf also on a diagonal element (row 2) is not a causal mask.
// CAUSAL-LABEL: func.func @causal_diagonal_masked
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
//  CAUSAL-NOT:    {causal
func.func @causal_diagonal_masked(%q: tensor<1x2x4x64xf16>, %k: tensor<1x2x4x64xf16>, %v: tensor<1x2x4x64xf16>) -> tensor<1x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %m = graph.constant dense<[[[[0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x64xf16> -> tensor<1x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<1x2x4x64xf16>, tensor<1x2x64x4xf16> -> tensor<1x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<1x2x4x4xf16>, tensor<f16> -> tensor<1x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<1x2x4x4xf16>, tensor<1x1x4x4xf16> -> tensor<1x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<1x2x4x4xf16>, tensor<1x2x4x64xf16> -> tensor<1x2x4x64xf16>
  return %o : tensor<1x2x4x64xf16>
}

// -----

// Negative: a mask only known at run time (an argument here, Range/Less/
// Where that do not fold in a model) stays a bias.
// CAUSAL-LABEL: func.func @causal_runtime
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %arg3 {k_perm
//  CAUSAL-NOT:    {causal
func.func @causal_runtime(%q: tensor<1x2x4x64xf16>, %k: tensor<1x2x4x64xf16>, %v: tensor<1x2x4x64xf16>, %m: tensor<4x4xf16>) -> tensor<1x2x4x64xf16> {
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x64xf16> -> tensor<1x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<1x2x4x64xf16>, tensor<1x2x64x4xf16> -> tensor<1x2x4x4xf16>
  %sm = graph.add %s, %m : tensor<1x2x4x4xf16>, tensor<4x4xf16> -> tensor<1x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<1x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<1x2x4x4xf16>, tensor<1x2x4x64xf16> -> tensor<1x2x4x64xf16>
  return %o : tensor<1x2x4x64xf16>
}

// -----

// HF's GPT-2 mask: where(causal AND padding, 0, lowest). With the causal
// option it splits into `causal` with causal_fill (the finite fill) and the
// padding bias where(padding, 0, lowest), shared by both layers.
// CAUSAL-LABEL: func.func @causal_padding
//  CAUSAL:        %[[B:.+]] = graph.where %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x1x1x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x1x4xf16>
//  CAUSAL:        %[[A:.+]] = graph.attention %arg0, %arg1, %arg2, %[[B]] {causal, causal_fill = -6.550400e+04 : f64, k_perm
//  CAUSAL:        graph.attention %[[A]], %arg1, %arg2, %[[B]] {causal, causal_fill = -6.550400e+04 : f64, k_perm
//  CAUSAL-NOT:    graph.where
// O2-LABEL: func.func @causal_padding
//  O2-COUNT-2:    graph.attention %{{.+}}, %arg1, %arg2, %{{.+}} {causal, causal_fill
// CHECK-LABEL: func.func @causal_padding
//  CHECK-NOT:     {causal
func.func @causal_padding(%q: tensor<2x2x4x64xf16>, %k: tensor<2x2x4x64xf16>, %v: tensor<2x2x4x64xf16>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %low = graph.constant dense<-65504.0> : tensor<f16>
  %tril = graph.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %keep = graph.and %tril, %pad : tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m = graph.where %keep, %zero, %low : tensor<2x1x4x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xf16> -> tensor<2x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  %s2 = graph.matmul %o, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss2 = graph.div %s2, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm2 = graph.add %ss2, %m : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p2 = graph.softmax %sm2 {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o2 = graph.matmul %p2, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  return %o2 : tensor<2x2x4x64xf16>
}

// -----

// SDPA's boolean mask as torch.onnx writes it, -inf fill: `causal` alone
// carries the pairs above the diagonal (no causal_fill).
// CAUSAL-LABEL: func.func @causal_padding_inf
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {causal, k_perm
func.func @causal_padding_inf(%q: tensor<2x2x4x64xf16>, %k: tensor<2x2x4x64xf16>, %v: tensor<2x2x4x64xf16>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %low = graph.constant dense<0xFC00> : tensor<f16>
  %tril = graph.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %keep = graph.and %pad, %tril : tensor<2x1x1x4xi1>, tensor<1x1x4x4xi1> -> tensor<2x1x4x4xi1>
  %m = graph.where %keep, %zero, %low : tensor<2x1x4x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xf16> -> tensor<2x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  return %o : tensor<2x2x4x64xf16>
}

// -----

// Negatives: a fill above -1e4, or a pattern that is not causal (key 1
// visible from query 0), keeps the whole mask as the bias.
// CAUSAL-LABEL: func.func @causal_padding_not
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
//  CAUSAL:        graph.attention %{{.+}}, %arg1, %arg2, %{{.+}} {k_perm
//  CAUSAL-NOT:    {causal
func.func @causal_padding_not(%q: tensor<2x2x4x64xf16>, %k: tensor<2x2x4x64xf16>, %v: tensor<2x2x4x64xf16>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %small = graph.constant dense<-1000.0> : tensor<f16>
  %low = graph.constant dense<-65504.0> : tensor<f16>
  %tril = graph.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %band = graph.constant dense<[[[[true, true, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %keep = graph.and %tril, %pad : tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m = graph.where %keep, %zero, %small : tensor<2x1x4x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x4x4xf16>
  %keep2 = graph.and %band, %pad : tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m2 = graph.where %keep2, %zero, %low : tensor<2x1x4x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xf16> -> tensor<2x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  %s2 = graph.matmul %o, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss2 = graph.div %s2, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm2 = graph.add %ss2, %m2 : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p2 = graph.softmax %sm2 {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o2 = graph.matmul %p2, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  return %o2 : tensor<2x2x4x64xf16>
}

// -----

// Negative: bf16's lowest value as the fill (F log2(e) overflows f32 in the
// kernel) keeps the whole mask as the bias.
// CAUSAL-LABEL: func.func @causal_padding_bf16_lowest
//  CAUSAL:        graph.attention %arg0, %arg1, %arg2, %{{.+}} {k_perm
//  CAUSAL-NOT:    {causal
func.func @causal_padding_bf16_lowest(%q: tensor<2x2x4x64xbf16>, %k: tensor<2x2x4x64xbf16>, %v: tensor<2x2x4x64xbf16>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x64xbf16> {
  %c = graph.constant dense<8.0> : tensor<bf16>
  %zero = graph.constant dense<0.0> : tensor<bf16>
  %low = graph.constant dense<0xFF7F> : tensor<bf16>
  %tril = graph.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %keep = graph.and %tril, %pad : tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m = graph.where %keep, %zero, %low : tensor<2x1x4x4xi1>, tensor<bf16>, tensor<bf16> -> tensor<2x1x4x4xbf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xbf16> -> tensor<2x2x64x4xbf16>
  %s = graph.matmul %q, %kt : tensor<2x2x4x64xbf16>, tensor<2x2x64x4xbf16> -> tensor<2x2x4x4xbf16>
  %ss = graph.div %s, %c : tensor<2x2x4x4xbf16>, tensor<bf16> -> tensor<2x2x4x4xbf16>
  %sm = graph.add %ss, %m : tensor<2x2x4x4xbf16>, tensor<2x1x4x4xbf16> -> tensor<2x2x4x4xbf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xbf16>
  %o = graph.matmul %p, %v : tensor<2x2x4x4xbf16>, tensor<2x2x4x64xbf16> -> tensor<2x2x4x64xbf16>
  return %o : tensor<2x2x4x64xbf16>
}

// -----

// nn.MultiheadAttention through torch.onnx dynamo (torchvision's ViT):
// sequence-first [S, B, H*D] heads split as Reshape [S, B*H, D], Transpose,
// Reshape [B, H, ...]; Q and K^T scaled by sqrt(scale) each. Each operand
// becomes [S, B, H, D] read through (1, 2, 0, 3), the scalings move onto it,
// and the output's transpose back to sequence-first folds into out_perm.
// CHECK-LABEL: func.func @mha_seq_first
//  CHECK-DAG:    %[[Q:.*]] = graph.reshape %arg0 : tensor<8x2x128xf16> -> tensor<8x2x2x64xf16>
//  CHECK-DAG:    %[[K:.*]] = graph.reshape %arg1 : tensor<8x2x128xf16> -> tensor<8x2x2x64xf16>
//  CHECK-DAG:    %[[V:.*]] = graph.reshape %arg2 : tensor<8x2x128xf16> -> tensor<8x2x2x64xf16>
//  CHECK-DAG:    %[[QS:.*]] = graph.mul %[[Q]], %{{.*}} : tensor<8x2x2x64xf16>, tensor<f16> -> tensor<8x2x2x64xf16>
//  CHECK-DAG:    %[[KS:.*]] = graph.mul %[[K]], %{{.*}} : tensor<8x2x2x64xf16>, tensor<f16> -> tensor<8x2x2x64xf16>
//  CHECK:        graph.attention %[[QS]], %[[KS]], %[[V]] {k_perm = array<i64: 1, 2, 0, 3>, out_perm = array<i64: 2, 0, 1, 3>, q_perm = array<i64: 1, 2, 0, 3>, v_perm = array<i64: 1, 2, 0, 3>} : tensor<8x2x2x64xf16>, tensor<8x2x2x64xf16>, tensor<8x2x2x64xf16> -> tensor<8x2x2x64xf16>
//  CHECK-NOT:    graph.transpose
//  CHECK-NOT:    graph.softmax
func.func @mha_seq_first(%q: tensor<8x2x128xf16>, %k: tensor<8x2x128xf16>, %v: tensor<8x2x128xf16>) -> tensor<16x128xf16> {
  %c = graph.constant dense<0.3535> : tensor<f16>
  %q1 = graph.reshape %q : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %q2 = graph.transpose %q1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x64xf16> -> tensor<4x8x64xf16>
  %q3 = graph.reshape %q2 : tensor<4x8x64xf16> -> tensor<2x2x8x64xf16>
  %qs = graph.mul %q3, %c : tensor<2x2x8x64xf16>, tensor<f16> -> tensor<2x2x8x64xf16>
  %k1 = graph.reshape %k : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %k2 = graph.transpose %k1 {perm = array<i64: 1, 2, 0>} : tensor<8x4x64xf16> -> tensor<4x64x8xf16>
  %k3 = graph.reshape %k2 : tensor<4x64x8xf16> -> tensor<2x2x64x8xf16>
  %ks = graph.mul %k3, %c : tensor<2x2x64x8xf16>, tensor<f16> -> tensor<2x2x64x8xf16>
  %v1 = graph.reshape %v : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %v2 = graph.transpose %v1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x64xf16> -> tensor<4x8x64xf16>
  %v3 = graph.reshape %v2 : tensor<4x8x64xf16> -> tensor<2x2x8x64xf16>
  %s = graph.matmul %qs, %ks : tensor<2x2x8x64xf16>, tensor<2x2x64x8xf16> -> tensor<2x2x8x8xf16>
  %p = graph.softmax %s {axis = 3 : i64} : tensor<2x2x8x8xf16>
  %o = graph.matmul %p, %v3 : tensor<2x2x8x8xf16>, tensor<2x2x8x64xf16> -> tensor<2x2x8x64xf16>
  %ot = graph.transpose %o {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x8x64xf16> -> tensor<8x2x2x64xf16>
  %out = graph.reshape %ot : tensor<8x2x2x64xf16> -> tensor<16x128xf16>
  return %out : tensor<16x128xf16>
}

// -----

// The same out of nn.MultiheadAttention's packed projection: the gathers of
// the stacked Q, K and V move through the transpose and reshapes and become
// slices of the projection, which the attention reads in place (heads 0-1,
// 2-3, 4-5 of [8, 2, 6, 64]); the two sqrt(scale) multiplies fold into its
// scale (0.3535 in f16, squared).
// CHECK-LABEL: func.func @mha_packed
//  CHECK-COUNT-3: graph.reshape %arg0 : tensor<8x2x384xf16> -> tensor<8x2x6x64xf16>
//  CHECK:        graph.attention %{{.*}}, %{{.*}}, %{{.*}} {k_heads = array<i64: 2, 2>, k_perm = array<i64: 1, 2, 0, 3>, out_perm = array<i64: 2, 0, 1, 3>, q_heads = array<i64: 0, 2>, q_perm = array<i64: 1, 2, 0, 3>, scale = 0.12497{{[0-9]+}} : f64, v_heads = array<i64: 4, 2>, v_perm = array<i64: 1, 2, 0, 3>}
//  CHECK-NOT:    graph.gather
//  CHECK-NOT:    graph.mul
//  CHECK-NOT:    graph.slice
// O2-LABEL: func.func @mha_packed
//  O2:           graph.attention
//  O2-NOT:       graph.gather
func.func @mha_packed(%p: tensor<8x2x384xf16>) -> tensor<16x128xf16> {
  %c = graph.constant dense<0.3535> : tensor<f16>
  %i0 = graph.constant dense<0> : tensor<i64>
  %i1 = graph.constant dense<1> : tensor<i64>
  %i2 = graph.constant dense<-1> : tensor<i64>
  %u = graph.reshape %p : tensor<8x2x384xf16> -> tensor<1x8x2x3x128xf16>
  %t = graph.transpose %u {perm = array<i64: 3, 1, 2, 0, 4>} : tensor<1x8x2x3x128xf16> -> tensor<3x8x2x1x128xf16>
  %st = graph.reshape %t : tensor<3x8x2x1x128xf16> -> tensor<3x8x2x128xf16>
  %q = graph.gather %st, %i0 {axis = 0 : i64} : tensor<3x8x2x128xf16>, tensor<i64> -> tensor<8x2x128xf16>
  %k = graph.gather %st, %i1 {axis = 0 : i64} : tensor<3x8x2x128xf16>, tensor<i64> -> tensor<8x2x128xf16>
  %v = graph.gather %st, %i2 {axis = 0 : i64} : tensor<3x8x2x128xf16>, tensor<i64> -> tensor<8x2x128xf16>
  %q1 = graph.reshape %q : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %q2 = graph.transpose %q1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x64xf16> -> tensor<4x8x64xf16>
  %q3 = graph.reshape %q2 : tensor<4x8x64xf16> -> tensor<2x2x8x64xf16>
  %qs = graph.mul %q3, %c : tensor<2x2x8x64xf16>, tensor<f16> -> tensor<2x2x8x64xf16>
  %k1 = graph.reshape %k : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %k2 = graph.transpose %k1 {perm = array<i64: 1, 2, 0>} : tensor<8x4x64xf16> -> tensor<4x64x8xf16>
  %k3 = graph.reshape %k2 : tensor<4x64x8xf16> -> tensor<2x2x64x8xf16>
  %ks = graph.mul %k3, %c : tensor<2x2x64x8xf16>, tensor<f16> -> tensor<2x2x64x8xf16>
  %v1 = graph.reshape %v : tensor<8x2x128xf16> -> tensor<8x4x64xf16>
  %v2 = graph.transpose %v1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x64xf16> -> tensor<4x8x64xf16>
  %v3 = graph.reshape %v2 : tensor<4x8x64xf16> -> tensor<2x2x8x64xf16>
  %s = graph.matmul %qs, %ks : tensor<2x2x8x64xf16>, tensor<2x2x64x8xf16> -> tensor<2x2x8x8xf16>
  %pr = graph.softmax %s {axis = 3 : i64} : tensor<2x2x8x8xf16>
  %o = graph.matmul %pr, %v3 : tensor<2x2x8x8xf16>, tensor<2x2x8x64xf16> -> tensor<2x2x8x64xf16>
  %ot = graph.transpose %o {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x8x64xf16> -> tensor<8x2x2x64xf16>
  %out = graph.reshape %ot : tensor<8x2x2x64xf16> -> tensor<16x128xf16>
  return %out : tensor<16x128xf16>
}

// -----

// HF's BERT mask: where(and(true[1,1,S,1], padding), 0, lowest). -O2's
// canonicalization keeps it [B,1,1,S] (GraphDialect.cpp, NarrowBroadcast),
// so the attention reads one bias row a batch, not a [B,1,S,S] tensor.
// O2-LABEL: func.func @bert_padding
//  O2:        %[[B:.+]] = graph.where %arg3, %{{.+}}, %{{.+}} : tensor<2x1x1x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x1x4xf16>
//  O2:        graph.attention %arg0, %arg1, %arg2, %[[B]] {k_perm
//  O2-SAME:   tensor<2x1x1x4xf16> -> tensor<2x2x4x64xf16>
func.func @bert_padding(%q: tensor<2x2x4x64xf16>, %k: tensor<2x2x4x64xf16>, %v: tensor<2x2x4x64xf16>, %pad: tensor<2x1x1x4xi1>) -> tensor<2x2x4x64xf16> {
  %c = graph.constant dense<8.0> : tensor<f16>
  %zero = graph.constant dense<0.0> : tensor<f16>
  %low = graph.constant dense<-65504.0> : tensor<f16>
  %all = graph.constant dense<true> : tensor<1x1x4x1xi1>
  %keep = graph.and %all, %pad : tensor<1x1x4x1xi1>, tensor<2x1x1x4xi1> -> tensor<2x1x4x4xi1>
  %m = graph.where %keep, %zero, %low : tensor<2x1x4x4xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x4x4xf16>
  %kt = graph.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x64xf16> -> tensor<2x2x64x4xf16>
  %s = graph.matmul %q, %kt : tensor<2x2x4x64xf16>, tensor<2x2x64x4xf16> -> tensor<2x2x4x4xf16>
  %ss = graph.div %s, %c : tensor<2x2x4x4xf16>, tensor<f16> -> tensor<2x2x4x4xf16>
  %sm = graph.add %ss, %m : tensor<2x2x4x4xf16>, tensor<2x1x4x4xf16> -> tensor<2x2x4x4xf16>
  %p = graph.softmax %sm {axis = 3 : i64} : tensor<2x2x4x4xf16>
  %o = graph.matmul %p, %v : tensor<2x2x4x4xf16>, tensor<2x2x4x64xf16> -> tensor<2x2x4x64xf16>
  return %o : tensor<2x2x4x64xf16>
}
