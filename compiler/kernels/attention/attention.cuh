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
//   all be 0); the grid runs the longest query blocks first. CAUSAL_FILL:
//   a masked pair's score is s * scale + F (FILL_LOG2 = F log2(e), finite)
//   instead of -inf; the skipped blocks' exp() is still 0 beside a row
//   with an unmasked key, and a block with a row whose every key so far
//   is masked (maximum below FILL_LOG2 / 2) reads the skipped blocks too.
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

/// A compile-time flag passed as a value (to generic lambdas).
template <bool B> struct Flag {
  static constexpr bool value = B;
};

__device__ __forceinline__ float neg_inf() { return -__int_as_float(0x7f800000); }

/// 2^x with the SFU's approximation (2 ulp; denormal results flush to 0,
/// which P's rounding to f16/bf16 mostly does anyway). exp2(-inf) = 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

/// Fragment j (4 floats) of a flat accumulator array: the mma.sync C
/// fragment of columns 8j..8j+7 (wgmma's accumulators hold the same layout
/// flat, so both kernels share the softmax and store below).
template <int N>
__device__ __forceinline__ float (&frag(float (&f)[N], int j))[4] {
  return *reinterpret_cast<float(*)[4]>(&f[4 * j]);
}

/// A thread's running state over the key blocks: its output accumulators
/// (flat, as the score fragment) and the running max and sum of its rows
/// row0 (h = 0) and row0 + 8 (h = 1).
template <int DV> struct RowState {
  float o[DV / 2];
  float mrow[2], lrow[2];
  __device__ __forceinline__ void init() {
#pragma unroll
    for (int i = 0; i < DV / 2; ++i)
      o[i] = 0.0f;
    mrow[0] = mrow[1] = neg_inf();
    lrow[0] = lrow[1] = 0.0f;
  }
};

/// A 16-bit bias element (the low half of `bits`) in f32.
template <class BT> __device__ __forceinline__ float bias_value(u32 bits) {
  static_assert(sizeof(BT) == 2, "f16 or bf16 biases");
  BT v;
  v.bits = static_cast<u16>(bits);
  return to_compute(v);
}

/// This thread's bias elements of key block n0, as softmax_step adds them
/// to its scores (s[i]: row row0 + 8 * ((i >> 1) & 1), key c0 + 8 * (i >> 2)
/// + (i & 1), c0 = n0 + 2 * (lane % 4)), two a register: b[k] holds those of
/// s[2k] (low half) and s[2k + 1]. Keys at or past SK read 0 (they are
/// masked); rows past SQ read row SQ - 1 (their scores are never stored).
/// With P::BIAS_PAIRS a pair is one 32-bit load. The kernels load a key
/// block's bias one block ahead, so that the loads' latency passes under the
/// multiplications instead of stalling the softmax, where the loads used to
/// be issued. H100, 2026-12-06, wgmma kernel: bench/micro.py's GPT-2 8x512
/// with a bias 0.0497 -> 0.0358 ms (20 runs a sample); BERT 32x128's
/// attention with its [32, 1, 128, 128] mask, in the model's profile,
/// 0.0204 -> 0.0171 ms a layer.
template <class P, int BN>
__device__ __forceinline__ void
load_bias(u32 (&b)[BN / 4], i64 z, i64 n0, i64 row0, int lane,
          const typename P::BT *__restrict__ bias) {
  if constexpr (P::HAS_BIAS) {
    const i64 c0 = n0 + (lane & 3) * 2;
    // bias_off is linear: the other keys are constant offsets from c0's.
    const u16 *brow[2];
#pragma unroll
    for (int h = 0; h < 2; ++h)
      brow[h] = reinterpret_cast<const u16 *>(
          bias + P::bias_off(z, row0 + h * 8 < P::SQ ? row0 + h * 8 : P::SQ - 1,
                             c0));
    const i64 dj = P::bias_off(0, 0, 1) - P::bias_off(0, 0, 0);
#pragma unroll
    for (int k = 0; k < BN / 4; ++k) {
      const int h = k & 1, dc = (k >> 1) * 8;
      if constexpr (P::BIAS_PAIRS) { // c0 + dc even, SK even: pairs whole
        b[k] = c0 + dc < P::SK
                   ? *reinterpret_cast<const u32 *>(brow[h] + dc)
                   : 0u;
      } else {
        const u32 lo = c0 + dc < P::SK ? brow[h][dc * dj] : 0u;
        const u32 hi = c0 + dc + 1 < P::SK ? brow[h][(dc + 1) * dj] : 0u;
        b[k] = lo | (hi << 16);
      }
    }
  }
}

/// One key block of the online softmax on this thread's scores `s` (flat:
/// s[4j + e] is the score of row row0 + 8 * (e >> 1), key n0 + 8j +
/// 2 * (lane % 4) + (e & 1)): scale, bias and the mask (only on the last key
/// block when SK is not a multiple of BN, with CAUSAL on the blocks
/// reaching past the block's first query m0, and on BEYOND blocks:
/// warp-uniform), the running row
/// max and sum, the output rescaled; `s` becomes P (not yet rounded to T).
/// BEYOND: a key block past the diagonal (CAUSAL_FILL's fallback), every
/// key of it masked.
template <class P, int BN, int DV, bool BEYOND = false>
__device__ __forceinline__ void
softmax_step(float (&s)[BN / 2], RowState<DV> &st, i64 n0, i64 m0, i64 row0,
             int lane, const u32 (&bias)[BN / 4]) {
  float(&o)[DV / 2] = st.o;
  float(&mrow)[2] = st.mrow;
  float(&lrow)[2] = st.lrow;
  const bool mask = BEYOND || (P::SK % BN != 0 && n0 + BN > P::SK) ||
                    (P::CAUSAL && n0 + BN - 1 > m0);
  float mx[2] = {neg_inf(), neg_inf()};
  const i64 c0 = n0 + (lane & 3) * 2;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) {
    const int h = (i >> 1) & 1, dc = (i >> 2) * 8 + (i & 1); // key c0 + dc
    float x = s[i] * P::SCALE_LOG2;
    // Masked by CAUSAL (key past the query).
    const bool late =
        mask && P::CAUSAL && (BEYOND || c0 + dc > row0 + h * 8);
    if (P::HAS_BIAS && !BEYOND && (!mask || c0 + dc < P::SK) &&
        !(P::CAUSAL_FILL && late))
      x += bias_value<typename P::BT>(bias[i / 2] >> (16 * (i & 1))) *
           1.4426950408889634f;
    if (mask && c0 + dc >= P::SK)
      x = neg_inf();
    else if (late)
      x = P::CAUSAL_FILL ? x + P::FILL_LOG2 : neg_inf();
    s[i] = x;
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
  for (int i = 0; i < DV / 2; ++i)
    o[i] *= corr[(i >> 1) & 1];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) {
    const float p = fast_exp2(s[i] - mx[(i >> 1) & 1]);
    s[i] = p;
    lrow[(i >> 1) & 1] += p;
  }
}

/// Slice kk (16 keys) of P as the four A registers of an m16n8k16 mma.sync
/// or an m64nNk16 wgmma: the same pairs of accumulators.
template <class T, int BN>
__device__ __forceinline__ void p_operand(const float (&s)[BN / 2], int kk,
                                          u32 (&a)[4]) {
#pragma unroll
  for (int r = 0; r < 4; ++r)
    a[r] = pack2<T>(s[8 * kk + 2 * r], s[8 * kk + 2 * r + 1]);
}

/// This thread's two rows of the output (row0 and row0 + 8; the row sums
/// spread over the 4 lanes of each row), normalized and stored.
template <class P, int DV>
__device__ __forceinline__ void store_rows(typename P::T *__restrict__ out,
                                           i64 z, i64 row0, int lane,
                                           RowState<DV> &st) {
  typedef typename P::T T;
  const float(&o)[DV / 2] = st.o;
  float(&lrow)[2] = st.lrow;
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
      pair[0] = from_compute<T>(o[4 * j + 2 * h] * inv);
      pair[1] = from_compute<T>(o[4 * j + 2 * h + 1] * inv);
      store_vec<2>(O + r * P::O_LD + c, pair);
    }
  }
}

/// This block's batch z, first query m0 and number of key blocks nt, for
/// BM query rows and BN keys a step; false when the grid has no work for it.
/// Causal: the last query blocks read the most keys, so they go first (block
/// i takes query block MB - 1 - i / Z of batch i % Z) and the short ones
/// fill the tail of the grid; a block reads the key blocks up to the one
/// holding key m0 + BM - 1.
template <class P, int BM, int BN>
__device__ __forceinline__ bool block_work(i64 &z, i64 &m0, i64 &nt) {
  constexpr i64 MB = (P::SQ + BM - 1) / BM;
  constexpr i64 NT_ALL = (P::SK + BN - 1) / BN;
  z = P::CAUSAL ? blockIdx.x % P::Z : blockIdx.x / MB;
  m0 = (P::CAUSAL ? MB - 1 - blockIdx.x / P::Z : blockIdx.x % MB) * BM;
  if (z >= P::Z || m0 < 0)
    return false;
  nt = P::CAUSAL && (m0 + BM - 1) / BN + 1 < NT_ALL ? (m0 + BM - 1) / BN + 1
                                                     : NT_ALL;
  return true;
}

/// CAUSAL_FILL: where this block's key loop ends, given it read the first
/// `nt` key blocks: past every key block when one of its rows has every key
/// so far masked (maximum below FILL_LOG2 / 2: a finite fill averages such
/// a row over all keys), else at `nt`. Every thread of the block calls it
/// (a block-wide vote).
template <class P, int BN, int DV>
__device__ __forceinline__ i64 fill_end(const RowState<DV> &st, i64 row0,
                                        i64 nt) {
  constexpr i64 NT_ALL = (P::SK + BN - 1) / BN;
  if (!P::CAUSAL_FILL || nt >= NT_ALL)
    return nt;
  bool open = false;
#pragma unroll
  for (int h = 0; h < 2; ++h)
    open |= row0 + h * 8 < P::SQ && st.mrow[h] < 0.5f * P::FILL_LOG2;
  return __syncthreads_or(open) ? NT_ALL : nt;
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
  __shared__ alignas(16) u16 smem[SMEM];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  i64 z, m0, NT;
  if (!block_work<P, BM, BN>(z, m0, NT))
    return;

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

  // Rows lane/4 (h = 0) and lane/4 + 8 (h = 1) of the warp's 16.
  RowState<DV> st;
  st.init();
  const i64 row0 = m0 + warp * 16 + (lane >> 2);
  u32 bb[BN / 4]; // the current key block's bias (load_bias; P::HAS_BIAS)

  // One key block from shared memory: S = Q K^T for the warp's 16 rows and
  // BN keys, the softmax step, O += P V (the score accumulators are P's A
  // fragments).
  auto block = [&](const u16 *ks, const u16 *vs, i64 n0, auto beyond) {
    float s[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
      s[i] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
#pragma unroll
      for (int j = 0; j < BN / 8; j += 2) {
        u32 r[4];
        mm::ldmatrix_x4(r, ks + ((j + (lane >> 4)) * 8 + (lane & 7)) * KP +
                               kk * 16 + ((lane >> 3) & 1) * 8);
        mm::mma_op<T>::run(frag(s, j), qf[kk], r[0], r[1]);
        mm::mma_op<T>::run(frag(s, j + 1), qf[kk], r[2], r[3]);
      }
    softmax_step<P, BN, DV, decltype(beyond)::value>(s, st, n0, m0, row0,
                                                     lane, bb);
    // The next key block's bias, in flight under this block's P V.
    if (!decltype(beyond)::value && n0 + BN < NT * BN)
      load_bias<P, BN>(bb, z, n0 + BN, row0, lane, bias);
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      u32 a[4];
      p_operand<T, BN>(s, kk, a);
#pragma unroll
      for (int j = 0; j < DV / 8; j += 2) {
        u32 r[4];
        mm::ldmatrix_x4_trans(r, vs + (kk * 16 + (lane & 15)) * VP +
                                     (j + (lane >> 4)) * 8);
        mm::mma_op<T>::run(frag(st.o, j), a, r[0], r[1]);
        mm::mma_op<T>::run(frag(st.o, j + 1), a, r[2], r[3]);
      }
    }
  };
  auto load_sync = [&](i64 n0) {
    mm::load_tile<BN, D, KP, THREADS, false, i64>(smem, K, n0, i64(0), P::SK,
                                                  i64(D), P::K_LD);
    mm::load_tile<BN, DV, VP, THREADS, false, i64>(smem + BN * KP, V, n0,
                                                   i64(0), P::SK, i64(DV),
                                                   P::V_LD);
    __syncthreads();
  };

  if (P::KV_VEC && NT > 0)
    issue(0, 0);
  mm::cp_async_commit();
  if (NT > 0)
    load_bias<P, BN>(bb, z, 0, row0, lane, bias);
  for (i64 t = 0; t < NT; ++t) {
    const i64 n0 = t * BN;
    const u16 *ks;
    if (P::KV_VEC) {
      if (t + 1 < NT)
        issue((t + 1) & 1, n0 + BN);
      mm::cp_async_commit();
      mm::cp_async_wait<1>();
      __syncthreads();
      ks = smem + (t & 1) * KV_TILE;
    } else {
      load_sync(n0);
      ks = smem;
    }
    block(ks, ks + BN * KP, n0, Flag<false>());
    __syncthreads(); // This stage is refilled two steps on.
  }

  // CAUSAL_FILL: the key blocks past the diagonal, for a block with a fully
  // masked row (fill_end), loaded synchronously (no copy is in flight).
  for (i64 t = NT, end = fill_end<P, BN, DV>(st, row0, NT); t < end; ++t) {
    load_sync(t * BN);
    block(smem, smem + BN * KP, t * BN, Flag<true>());
    __syncthreads();
  }

  store_rows<P, DV>(out, z, row0, lane, st);
}

} // namespace att
} // namespace kiln
