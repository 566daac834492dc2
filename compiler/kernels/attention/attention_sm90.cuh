// attention_sm90.cuh - Flash attention (forward) on Hopper warpgroup MMA:
// S = Q K^T with both operands in 128-byte swizzled shared memory, and
// O += P V with P taken from registers (the softmax never leaves them).
//
// Needs matmul.cuh, matmul_sm90.cuh (sw128_desc, the wgmma fences,
// load_sw128_async) and attention.cuh (pack2, neg_inf, fast_exp2, and the
// traits P documented there), plus in P:
//   wgmma_s(d, da, db): wgmma.mma_async m64n<BN>k16, d += a Q K^T slice,
//     both operands K-major descriptors (imm-trans-a/-b 0);
//   wgmma_o(d, a, db): m64n<DV>k16 with A from four .b32 registers (P) and B
//     = V N-major (imm-trans-b 1), scale-d 1.
// BM is 64 (one warpgroup of 128 threads, warp w owning rows 16w..16w+15),
// BN 64; D and DV are 64 or 128. Q, K and V rows must be 16-byte aligned
// (Q_VEC and KV_VEC). Layout facts (PTX ISA "Asynchronous Warpgroup Level
// Matrix Multiply-Accumulate", notes/attention-wgmma-plan.md):
//  * The f32 accumulator of m64nNk16: thread t (warp w, lane l) holds d[i]
//    at row 16w + l/4 + 8((i/2)%2), column 8(i/4) + 2(l%4) + i%2: the
//    mma.sync C fragment repeated over N/8 columns, so d[4j + e] is
//    attention.cuh's s[j][e].
//  * The register A operand of m64nNk16 (f16/bf16, four .b32) has that
//    layout for its 16 columns: slice kk of P is pack2(d[8kk + 2r],
//    d[8kk + 2r + 1]) for r = 0..3, as attention.cuh packs P for mma.sync.
//  * Q and K tiles are D/64 column blocks of 64 rows x 128 bytes; slice kk
//    (16 of D) of block kk/64 starts (kk % 64) * 2 bytes into its rows; LBO
//    16 (unused), SBO 1024. V's tile is DV/64 column blocks of BN = 64 key
//    rows x 128 bytes (N-major): slice kk (16 keys) starts kk * 128 bytes in,
//    LBO = 64 * 128 (the next 64 columns), SBO 1024.
// CAUSAL_FILL as in flash(): the blocks past the diagonal are read only
// for a block with a fully masked row.
#pragma once

namespace kiln {
namespace att {

/// P::Q_TILES where P declares it (2: a block takes two 64-row query tiles
/// one after the other over K and V loaded once, every key block resident:
/// SK <= 128), else 1.
template <class P, class = void> struct q_tiles_of {
  static constexpr int value = 1;
};
template <class P> struct q_tiles_of<P, decltype(void(P::Q_TILES))> {
  static constexpr int value = P::Q_TILES;
};

template <class P> __host__ __device__ constexpr u32 wgmma_attention_smem() {
  // 1 KiB to align the swizzle atoms, Q (a tile or two), two stages of K
  // and V.
  return 1024u + q_tiles_of<P>::value * 64u * P::D * 2u +
         2u * (64u * P::D * 2u + 64u * P::DV * 2u);
}

/// Pins the A-operand registers of P before wgmma.fence: the packing
/// (cvt) must not sink past the fence, which orders register writes before
/// the wgmma that reads them (as fence_accumulators does for f32).
template <int N>
__device__ __forceinline__ void fence_a_operands(u32 (&a)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int r = 0; r < 4; ++r)
      asm volatile("" : "+r"(a[i][r])::"memory");
}

template <class P>
__device__ __forceinline__ void
flash_wgmma(const typename P::T *__restrict__ q,
            const typename P::T *__restrict__ k,
            const typename P::T *__restrict__ v,
            const typename P::BT *__restrict__ bias,
            typename P::T *__restrict__ out) {
  typedef typename P::T T;
  constexpr int BM = 64, BN = 64, D = P::D, DV = P::DV, THREADS = 128;
  static_assert(P::BM == BM && P::BN == BN, "the wgmma variant is 64 x 64");
  static_assert((D == 64 || D == 128) && (DV == 64 || DV == 128),
                "head dimensions of 64 or 128");
  static_assert(P::Q_VEC && P::KV_VEC, "16-byte aligned rows");
  // Q_TILES = 2: the block's two query tiles in turn, over the (at most
  // two) key blocks loaded once into the two stages.
  constexpr int QT = q_tiles_of<P>::value;
  static_assert(QT == 1 || (QT == 2 && P::SK <= 2 * BN),
                "two query tiles a block keep every key block resident");
  constexpr u32 Q_BYTES = BM * D * 2, K_BYTES = BN * D * 2,
                V_BYTES = BN * DV * 2, STAGE = K_BYTES + V_BYTES;
  extern __shared__ __align__(1024) u8 kiln_att_smem[];
  const u32 base = (mm::smem_addr(kiln_att_smem) + 1023u) & ~1023u;
  const u32 sQ0 = base, sKV = base + QT * Q_BYTES;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  i64 z, m00, NTB;
  if (!block_work<P, BM * QT, BN>(z, m00, NTB))
    return;

  const u16 *Q = reinterpret_cast<const u16 *>(q + P::q_base(z));
  const u16 *K = reinterpret_cast<const u16 *>(k + P::k_base(z));
  const u16 *V = reinterpret_cast<const u16 *>(v + P::v_base(z));
  auto issue = [&](int stage, i64 n0) {
    const u32 sk = sKV + stage * STAGE, sv = sk + K_BYTES;
    mm::load_sw128_async<BN, D, THREADS, i64>(sk, K, n0, i64(0), P::SK,
                                              i64(D), P::K_LD);
    mm::load_sw128_async<BN, DV, THREADS, i64>(sv, V, n0, i64(0), P::SK,
                                               i64(DV), P::V_LD);
  };
#pragma unroll
  for (int qt = 0; qt < QT; ++qt)
    mm::load_sw128_async<BM, D, THREADS, i64>(sQ0 + qt * Q_BYTES, Q,
                                              m00 + qt * BM, i64(0), P::SQ,
                                              i64(D), P::Q_LD);
  if constexpr (QT == 1) {
    if (NTB > 0)
      issue(0, 0);
    mm::cp_async_commit(); // Q and stage 0
  } else {
    // Every key block (at most two), each in its own stage, before any
    // query tile starts.
    for (i64 t = 0; t < NTB; ++t)
      issue(static_cast<int>(t), t * BN);
    mm::cp_async_commit();
    mm::cp_async_wait<0>();
    mm::fence_proxy_async_shared();
    __syncthreads();
  }

#pragma unroll
  for (int qt = 0; qt < QT; ++qt) {
    const i64 m0 = m00 + qt * BM;
    if (QT > 1 && m0 >= P::SQ)
      break;
    const u32 sQ = sQ0 + qt * Q_BYTES;
    // This tile's key blocks: the block's, or (causal) those up to its
    // diagonal.
    const i64 NT = QT == 1 || !P::CAUSAL || (m0 + BM - 1) / BN + 1 > NTB
                       ? NTB
                       : (m0 + BM - 1) / BN + 1;
    RowState<DV> st;
    st.init();
    const i64 row0 = m0 + warp * 16 + (lane >> 2);
    u32 bb[BN / 4]; // the current key block's bias (load_bias; P::HAS_BIAS)

    // One key block from shared memory (K at sk, V at sv): S = Q K^T, the
    // online softmax on flash()'s fragment, O += P V with P in registers.
    auto block = [&](u32 sk, u32 sv, i64 n0, auto beyond) {
      // S = Q K^T: D / 16 slices into zeroed accumulators.
      float s[BN / 2];
#pragma unroll
      for (int i = 0; i < BN / 2; ++i)
        s[i] = 0.0f;
      mm::fence_accumulators(s);
      mm::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < D; kk += 16) {
        const u32 off = (kk % 64) * 2;
        P::wgmma_s(
            s, mm::sw128_desc(sQ + (kk / 64) * (BM * 128) + off, 16, 1024),
            mm::sw128_desc(sk + (kk / 64) * (BN * 128) + off, 16, 1024));
      }
      mm::wgmma_commit();
      mm::wgmma_wait<0>();
      mm::fence_accumulators(s);

      // Scale, bias, mask and the online softmax; P as the A registers of
      // each 16-key slice.
      softmax_step<P, BN, DV, decltype(beyond)::value>(s, st, n0, m0, row0,
                                                       lane, bb);
      u32 pa[BN / 16][4];
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
        p_operand<T, BN>(s, kk, pa[kk]);
      // The next key block's bias, in flight under this block's P V.
      if (!decltype(beyond)::value && n0 + BN < NT * BN)
        load_bias<P, BN>(bb, z, n0 + BN, row0, lane, bias);

      // O += P V: BN / 16 slices of 16 keys.
      fence_a_operands(pa);
      mm::fence_accumulators(st.o);
      mm::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < BN / 16; ++kk)
        P::wgmma_o(st.o, pa[kk],
                   mm::sw128_desc(sv + kk * 16 * 128, BN * 128, 1024));
      mm::wgmma_commit();
      mm::wgmma_wait<0>();
      mm::fence_accumulators(st.o);
    };

    if (NT > 0)
      load_bias<P, BN>(bb, z, 0, row0, lane, bias);
    if constexpr (QT == 1) {
      for (i64 t = 0; t < NT; ++t) {
        const i64 n0 = t * BN;
        if (t + 1 < NT)
          issue(static_cast<int>((t + 1) & 1), n0 + BN);
        mm::cp_async_commit();
        mm::cp_async_wait<1>(); // Q and tile t have landed (this thread's part)
        mm::fence_proxy_async_shared();
        __syncthreads();
        const u32 sk = sKV + static_cast<u32>(t & 1) * STAGE;
        block(sk, sk + K_BYTES, n0, Flag<false>());
        // Every warp is done with stage t & 1 before its refill.
        __syncthreads();
      }

      // CAUSAL_FILL: the key blocks past the diagonal, for a block with a
      // fully masked row (attention.cuh's fill_end), through stage 0.
      for (i64 t = NT, end = fill_end<P, BN, DV>(st, row0, NT); t < end; ++t) {
        issue(0, t * BN);
        mm::cp_async_commit();
        mm::cp_async_wait<0>();
        mm::fence_proxy_async_shared();
        __syncthreads();
        block(sKV, sKV + K_BYTES, t * BN, Flag<true>());
        __syncthreads();
      }
    } else {
      // Key block t is in stage t; nothing is refilled, so no barrier
      // between blocks (fill_end's vote is the block's only one).
      for (i64 t = 0; t < NT; ++t) {
        const u32 sk = sKV + static_cast<u32>(t) * STAGE;
        block(sk, sk + K_BYTES, t * BN, Flag<false>());
      }
      for (i64 t = NT, end = fill_end<P, BN, DV>(st, row0, NT); t < end; ++t) {
        const u32 sk = sKV + static_cast<u32>(t) * STAGE;
        block(sk, sk + K_BYTES, t * BN, Flag<true>());
      }
    }

    store_rows<P, DV>(out, z, row0, lane, st);
  }
}

} // namespace att
} // namespace kiln
