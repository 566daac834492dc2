// attention.cuh - Flash attention (forward): softmax(Q K^T * scale + bias) V
// in one pass over the keys, the scores never leaving registers.
//
// Needs matmul.cuh (ldmatrix, mma_op, load_tile, cp.async). The traits
// struct P, generated per launch, gives:
//   T (f16/bf16 operands and output), BT (bias storage);
//   BM (query rows per block: 16 per warp), BN (keys per step), D (head
//   dimension of Q and K), DV (of V and the output); Z (batch count: every
//   batch axis flattened), SQ, SK;
//   q_base(z), k_base(z), v_base(z), o_base(z): element offsets of batch z's
//   first row (with grouped-query attention several z share one K/V base); Q_LD, K_LD, V_LD, O_LD: the row strides (the head dimension
//   is contiguous); Q_VEC, KV_VEC: 16-byte loads legal (row strides and
//   bases multiples of 8 elements, aligned buffers);
//   HAS_BIAS and bias_off(z, i, j): the bias element of score (i, j);
//   SCALE_LOG2: scale * log2(e) (the kernel works in base 2);
//   NAN_TO_ZERO: rows whose scores are all -inf give 0 (else NaN, as the
//   softmax of such a row is); CAUSAL: query i sees key j only when j <= i
//   (SQ == SK): a block reads the key blocks up to the one holding key
//   m0 + BM - 1, masks j > i there, and skips the rest (their exp() would
//   all be 0); the grid runs the longest query blocks first.
// Only key blocks that reach past SK or (CAUSAL) past the block's first
// query are masked; the others skip the per-score index math.
// A block takes BM query rows of one batch: its warps keep their Q
// fragments in registers, stream K and V tiles through shared memory (two
// stages with cp.async when KV_VEC), and keep the running row maximum and
// sum (online softmax) with the output accumulator in f32. P is rounded to
// T before P V, as the unfused softmax output would be.
#pragma once

namespace kiln {
namespace att {

/// Two floats as the packed 16-bit pair an mma fragment register holds
/// (`lo` in the low half).
template <class T> __device__ __forceinline__ u32 pack2(float lo, float hi);
template <> __device__ __forceinline__ u32 pack2<f16>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
template <> __device__ __forceinline__ u32 pack2<bf16>(float lo, float hi) {
  u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

__device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }

/// 2^x with the SFU's approximation (2 ulp; denormal results flush to 0,
/// which P's rounding to f16/bf16 mostly does anyway). exp2(-inf) = 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

/// Zeroes N mma accumulator fragments.
template <int N> __device__ __forceinline__ void zero(float (&f)[N][4]) {
#pragma unroll
  for (int j = 0; j < N; ++j)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      f[j][e] = 0.0f;
}

template <class P>
__device__ __forceinline__ void
flash(const typename P::T *__restrict__ q, const typename P::T *__restrict__ k,
      const typename P::T *__restrict__ v, const typename P::BT *__restrict__ bias,
      typename P::T *__restrict__ out) {
  typedef typename P::T T;
  constexpr int BM = P::BM, BN = P::BN, D = P::D, DV = P::DV;
  constexpr int THREADS = 32 * (BM / 16);
  constexpr int QP = D + 8, KP = D + 8, VP = DV + 8;
  constexpr int KV_TILE = BN * KP + BN * VP;
  constexpr int STAGES = P::KV_VEC ? 2 : 1;
  constexpr int SMEM = BM * QP > STAGES * KV_TILE ? BM * QP : STAGES * KV_TILE;
  constexpr i64 MB = (P::SQ + BM - 1) / BM;
  constexpr i64 NT_ALL = (P::SK + BN - 1) / BN;
  __shared__ alignas(16) u16 smem[SMEM];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  // Causal: the last query blocks read the most keys, so they go first
  // (block i takes query block MB - 1 - i / Z of batch i % Z) and the short
  // ones fill the tail of the grid.
  const i64 z = P::CAUSAL ? blockIdx.x % P::Z : blockIdx.x / MB;
  const i64 m0 =
      (P::CAUSAL ? MB - 1 - blockIdx.x / P::Z : blockIdx.x % MB) * BM;
  if (z >= P::Z || m0 < 0)
    return;
  // Key blocks this block reads: with CAUSAL the last holds key m0 + BM - 1.
  const i64 NT = P::CAUSAL && (m0 + BM - 1) / BN + 1 < NT_ALL
                     ? (m0 + BM - 1) / BN + 1
                     : NT_ALL;

  // Q: global -> shared -> this warp's 16 rows as A fragments.
  const u16 *Q = reinterpret_cast<const u16 *>(q + P::q_base(z));
  mm::load_tile<BM, D, QP, THREADS, P::Q_VEC, i64>(smem, Q, m0, i64(0), P::SQ,
                                                   i64(D), P::Q_LD);
  __syncthreads();
  u32 qf[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    mm::ldmatrix_x4(qf[kk], smem + (warp * 16 + (lane & 15)) * QP + kk * 16 +
                                (lane >> 4) * 8);
  __syncthreads(); // The K/V stages reuse the Q tile's memory.

  const u16 *K = reinterpret_cast<const u16 *>(k + P::k_base(z));
  const u16 *V = reinterpret_cast<const u16 *>(v + P::v_base(z));
  auto issue = [&](int stage, i64 n0) {
    u16 *ks = smem + stage * KV_TILE, *vs = ks + BN * KP;
    mm::load_tile_async<BN, D, KP, THREADS, i64>(ks, K, n0, i64(0), P::SK,
                                                 i64(D), P::K_LD);
    mm::load_tile_async<BN, DV, VP, THREADS, i64>(vs, V, n0, i64(0), P::SK,
                                                  i64(DV), P::V_LD);
  };

  float o[DV / 8][4];
  zero(o);
  // Rows lane/4 (h = 0) and lane/4 + 8 (h = 1) of the warp's 16.
  float mrow[2] = {neg_inf(), neg_inf()}, lrow[2] = {0.0f, 0.0f};
  const i64 row0 = m0 + warp * 16 + (lane >> 2);

  if (P::KV_VEC && NT > 0)
    issue(0, 0);
  mm::cp_async_commit();
  for (i64 t = 0; t < NT; ++t) {
    const i64 n0 = t * BN;
    const u16 *ks, *vs;
    if (P::KV_VEC) {
      if (t + 1 < NT)
        issue((t + 1) & 1, n0 + BN);
      mm::cp_async_commit();
      mm::cp_async_wait<1>();
      __syncthreads();
      ks = smem + (t & 1) * KV_TILE;
    } else {
      mm::load_tile<BN, D, KP, THREADS, false, i64>(smem, K, n0, i64(0), P::SK,
                                                    i64(D), P::K_LD);
      mm::load_tile<BN, DV, VP, THREADS, false, i64>(smem + BN * KP, V, n0,
                                                     i64(0), P::SK, i64(DV),
                                                     P::V_LD);
      __syncthreads();
      ks = smem;
    }
    vs = ks + BN * KP;

    // S = Q K^T for the warp's 16 rows and BN keys.
    float s[BN / 8][4];
    zero(s);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
      for (int j = 0; j < BN / 8; j += 2) {
        u32 r[4];
        mm::ldmatrix_x4(r, ks + ((j + (lane >> 4)) * 8 + (lane & 7)) * KP +
                               kk * 16 + ((lane >> 3) & 1) * 8);
        mm::mma_op<T>::run(s[j], qf[kk], r[0], r[1]);
        mm::mma_op<T>::run(s[j + 1], qf[kk], r[2], r[3]);
      }

    // Scale, bias, out-of-range keys; the online softmax update. Only the
    // last key block (SK not a multiple of BN) and, with CAUSAL, the blocks
    // reaching past the block's first query need the mask (warp-uniform).
    const bool mask = (P::SK % BN != 0 && n0 + BN > P::SK) ||
                      (P::CAUSAL && n0 + BN - 1 > m0);
    float mx[2] = {neg_inf(), neg_inf()};
    // The bias of this lane's first column in each of its two rows (rows
    // past SQ read row SQ - 1: their scores are never stored); bias_off is
    // linear, so the other columns are constant offsets from it.
    const typename P::BT *brow[2];
    const i64 c0 = n0 + (lane & 3) * 2;
    if (P::HAS_BIAS)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        brow[h] = bias + P::bias_off(z, row0 + h * 8 < P::SQ ? row0 + h * 8
                                                             : P::SQ - 1,
                                     c0);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int h = e >> 1;
        const int dc = j * 8 + (e & 1); // column c0 + dc
        float x = s[j][e] * P::SCALE_LOG2;
        if (P::HAS_BIAS && (!mask || c0 + dc < P::SK))
          x += to_compute(brow[h][P::bias_off(0, 0, dc) - P::bias_off(0, 0, 0)]) *
               1.4426950408889634f;
        if (mask && (c0 + dc >= P::SK || (P::CAUSAL && c0 + dc > row0 + h * 8)))
          x = neg_inf();
        s[j][e] = x;
        mx[h] = fmaxf(mx[h], x);
      }
    float corr[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
      mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
      const float mnew = fmaxf(mrow[h], mx[h]);
      // A row with every score -inf so far keeps base 0 (no inf - inf).
      const float base = mnew == neg_inf() ? 0.0f : mnew;
      corr[h] = fast_exp2(mrow[h] - base);
      mrow[h] = mnew;
      lrow[h] *= corr[h];
      mx[h] = base;
    }
#pragma unroll
    for (int j = 0; j < DV / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        o[j][e] *= corr[e >> 1];
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = fast_exp2(s[j][e] - mx[e >> 1]);
        s[j][e] = p;
        lrow[e >> 1] += p;
      }

    // O += P V: the score accumulators are P's A fragments.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      u32 a[4];
      a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
      a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
      a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
      a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
#pragma unroll
      for (int j = 0; j < DV / 8; j += 2) {
        u32 r[4];
        mm::ldmatrix_x4_trans(r, vs + (kk * 16 + (lane & 15)) * VP +
                                     (j + (lane >> 4)) * 8);
        mm::mma_op<T>::run(o[j], a, r[0], r[1]);
        mm::mma_op<T>::run(o[j + 1], a, r[2], r[3]);
      }
    }
    __syncthreads(); // This stage is refilled two steps on.
  }

  // The row sums are spread over the 4 lanes of each row.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    lrow[h] += __shfl_xor_sync(0xffffffffu, lrow[h], 1);
    lrow[h] += __shfl_xor_sync(0xffffffffu, lrow[h], 2);
  }
  T *O = out + P::o_base(z);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const i64 r = row0 + h * 8;
    if (r >= P::SQ)
      continue;
    const float inv =
        P::NAN_TO_ZERO && lrow[h] == 0.0f ? 0.0f : 1.0f / lrow[h];
#pragma unroll
    for (int j = 0; j < DV / 8; ++j) {
      const int c = j * 8 + (lane & 3) * 2;
      Vec<T, 2> pair;
      pair[0] = from_compute<T>(o[j][2 * h] * inv);
      pair[1] = from_compute<T>(o[j][2 * h + 1] * inv);
      store_vec<2>(O + r * P::O_LD + c, pair);
    }
  }
}

} // namespace att
} // namespace kiln
