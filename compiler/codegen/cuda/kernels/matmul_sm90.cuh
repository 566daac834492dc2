// matmul_sm90.cuh - Hopper matmul: warpgroup MMA (wgmma.mma_async, sm_90a)
// on f16/bf16 with f32 accumulation, both operands read from 128-byte
// swizzled shared memory that a multi-stage cp.async pipeline fills.
//
// Uses matmul.cuh (smem_addr, cp_async_commit/wait) and the traits struct P
// it documents (T, CT, I, M, N, K, BATCH, TRANS_A, TRANS_B, BM, BN, BK,
// batch, epilogue, PAIR_STORE, A_VEC and B_VEC, which must both hold here),
// plus:
//   STAGES (3..8): shared-memory stages of the k loop;
//   WARPGROUPS (1, 2): warpgroups of 128 threads, each owning BM / WARPGROUPS
//   (64 or 128) rows of the block tile and all BN columns;
//   wgmma(d, da, db): one wgmma.mma_async.sync.aligned.m64n<BN>k16.f32.T.T
//   with accumulators d[BN / 2] (scale-d 1: d += A * B), shared-memory
//   descriptors da and db, and P's transposes as imm-trans-a/-b. Emitted per
//   launch by EmitMatmul.cpp, as the instruction's register list depends on
//   BN.
// The kernel needs 1024 + STAGES * (A_BYTES + B_BYTES) bytes of
// dynamic shared memory (wgmma_smem_bytes<P>(), the launch's smem).
//
// Layout facts relied on (PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix
// Multiply-Accumulate Instructions"):
//  * Shared-memory matrix descriptor (64 bits): bits 0-13 start address, 16-29
//    leading dimension byte offset (LBO), 32-45 stride dimension byte offset
//    (SBO), each encoded as (x & 0x3FFFF) >> 4; bits 49-51 base offset (0:
//    every swizzle pattern starts at a 1024-byte boundary, which the
//    alignment of the stages below guarantees); bits 62-63 swizzle mode
//    (1 = 128-byte swizzle).
//  * 128-byte swizzle (cute Swizzle<3,4,3>, TMA's SWIZZLE_128B): within each
//    1024-byte atom of 8 rows of 128 bytes, the 16-byte chunk c of row r is
//    stored at chunk c ^ (r % 8); i.e. address bits [4,7) ^= bits [7,10).
//  * K-major operand (A of [M, K], imm-trans-a 0; B of [N, K], imm-trans-b 0):
//    a row of the tile is one row of M (or N) holding BK = 64 k values (128
//    bytes); rows are 128 bytes apart, so 8-row groups are SBO = 1024 bytes
//    apart; LBO is unused with swizzling (encoded 1). The instruction's k16
//    slice kk starts 2 * kk bytes into the row (the hardware swizzles the
//    final address, so advancing the start address inside the atom is how
//    one steps along K).
//  * MN-major operand (A of [K, M], imm-trans-a 1; B of [K, N], imm-trans-b
//    1): an atom holds 64 consecutive m (or n) of 8 consecutive k; canonical
//    layout ((8,8,m),(8,k)) : ((1,8,LBO),(64,SBO)) in elements, so LBO is the
//    byte distance between 64-column blocks along M/N and SBO the distance
//    between 8-row groups along K. Here each 64-column block is BK = 64 k
//    rows of 128 bytes (8 KiB): LBO = 8192, SBO = 1024, and the k16 slice kk
//    starts kk * 128 bytes in.
//  * Accumulator fragment of m64nNk16 with f32: thread t of the warpgroup
//    (warp w = t / 32, lane l = t % 32) holds d[i] for i < N / 2 at row
//    16 * w + l / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) + 2 * (l % 4) +
//    i % 2 (the m16n8 C fragment of mma.sync, repeated over N / 8 columns).
//  * wgmma reads shared memory through the async proxy; cp.async writes
//    through the generic proxy. So after each thread's cp.async.wait_group,
//    fence.proxy.async.shared::cta, then a barrier, then wgmma. A completed
//    wgmma group is followed by an implicit generic-async proxy fence, so
//    cp.async may refill a stage once wgmma.wait_group says its readers are
//    done (and a barrier says so for every warpgroup).
//  * wgmma.fence before the first wgmma of a batch whose accumulators other
//    instructions touched (zeroing, the epilogue); wgmma.commit_group closes
//    the batch; wgmma.wait_group N waits until at most N batches are pending.
#pragma once

namespace kiln {
namespace mm {

/// A shared-memory matrix descriptor with 128-byte swizzling for the tile
/// at shared address `addr` (16-byte aligned, inside a 1024-byte aligned
/// atom), byte offsets `lbo` and `sbo`.
__device__ __forceinline__ u64 sw128_desc(u32 addr, u32 lbo, u32 sbo) {
  return static_cast<u64>((addr & 0x3FFFFu) >> 4) |
         static_cast<u64>((lbo & 0x3FFFFu) >> 4) << 16 |
         static_cast<u64>((sbo & 0x3FFFFu) >> 4) << 32 |
         static_cast<u64>(1) << 62;
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Orders this thread's completed generic-proxy writes to shared memory
/// (cp.async) before later async-proxy reads (wgmma).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
/// Keeps the compiler from moving accesses of the accumulators across a
/// wgmma fence/wait (the registers belong to the tensor cores in between).
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r)
    asm volatile("" : "+f"(d[r])::"memory");
}

/// cp.async of a ROWS x COLS tile of 16-bit elements (global: row stride ld,
/// COLS contiguous from col0; COLS % 8 == 0, rows 16-byte aligned) into
/// 128-byte swizzled shared memory at `s` (1024-byte aligned): 64-column
/// blocks of ROWS rows of 128 bytes each, block j at s + j * ROWS * 128, row
/// r of a block at r * 128, its chunk c at chunk c ^ (r % 8). K-major tiles
/// are one block (COLS = 64); MN-major ones (ROWS = 64 k rows) are COLS / 64.
/// Chunks outside [nrows) x [ncols) are zero-filled (src-size 0).
template <int ROWS, int COLS, int THREADS, class I>
__device__ __forceinline__ void
load_sw128_async(u32 s, const u16 *__restrict__ g, I row0, I col0, I nrows,
                 I ncols, I ld) {
  constexpr int CV = COLS / 8;
#pragma unroll
  for (int v = threadIdx.x; v < ROWS * CV; v += THREADS) {
    const int r = v / CV, cc = v % CV;
    const I gr = row0 + r, gc = col0 + cc * 8;
    const bool in = gr < nrows && gc < ncols;
    const u16 *src = in ? g + gr * ld + gc : g;
    const u32 dst =
        s + (cc >> 3) * (ROWS * 128) + r * 128 + (((cc & 7) ^ (r & 7)) << 4);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                 "l"(src), "r"(in ? 16 : 0));
  }
}

template <class P> struct wgmma_shape {
  static constexpr int THREADS = 128 * P::WARPGROUPS;
  static constexpr int WM = P::BM / P::WARPGROUPS; // rows per warpgroup
  static constexpr int MI = WM / 64;               // m64 instructions
  static constexpr int R = P::BN / 2;              // f32 accumulators each
  // Both layouts of A take BM * 128 bytes (BM rows, or BM / 64 blocks of 64
  // k rows). B: BN rows (K-major), or whole 64-column blocks (N-major).
  static constexpr u32 A_BYTES = P::BM * 128;
  static constexpr u32 B_BYTES =
      (P::TRANS_B ? P::BN : (P::BN + 63) / 64 * 64) * 128;
  static constexpr u32 STAGE_BYTES = A_BYTES + B_BYTES;
  static_assert(P::BK == 64, "one 128-byte swizzle row of k per tile");
  static_assert(P::BN % 8 == 0 && P::BN >= 8 && P::BN <= 256,
                "wgmma n is a multiple of 8 up to 256");
  static_assert((WM == 64 || WM == 128) && WM * P::WARPGROUPS == P::BM,
                "each warpgroup owns 64 or 128 rows");
  static_assert(P::STAGES >= 3, "the k loop keeps STAGES - 2 loads ahead");
  static_assert(P::A_VEC && P::B_VEC, "the wgmma path needs 16-byte loads");
  static_assert(STAGE_BYTES % 1024 == 0, "stages keep 1024-byte alignment");
};

/// The dynamic shared memory a launch of wgmma_gemm<P> needs: the stages
/// plus slack to align them to 1024 bytes.
template <class P> __host__ __device__ constexpr u32 wgmma_smem_bytes() {
  return 1024 + P::STAGES * wgmma_shape<P>::STAGE_BYTES;
}

template <class P>
__device__ __forceinline__ void wgmma_gemm(const typename P::T *__restrict__ a,
                                           const typename P::T *__restrict__ b,
                                           const typename P::CT *__restrict__ c,
                                           typename P::T *__restrict__ out) {
  typedef typename P::T T;
  typedef typename P::I I;
  typedef wgmma_shape<P> S;
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, STAGES = P::STAGES;
  constexpr int THREADS = S::THREADS, WM = S::WM, MI = S::MI, R = S::R;
  extern __shared__ __align__(1024) u8 kiln_wgmma_smem[];
  // The swizzle pattern is anchored at 1024-byte boundaries of the shared
  // window: align the stages there (the launch reserves 1 KiB for this).
  const u32 base = (smem_addr(kiln_wgmma_smem) + 1023u) & ~1023u;
  const int wg = threadIdx.x >> 7, warp = (threadIdx.x >> 5) & 3,
            lane = threadIdx.x & 31;
  constexpr I MB = (P::M + BM - 1) / BM;
  constexpr I KT = (P::K + BK - 1) / BK;
  // Descriptors of this warpgroup's k16 slice kk of stage `st`: A's m64 block
  // i, B's whole BN columns.
  auto desc_a = [&](u32 st, int i, int kk) {
    const u32 row = wg * WM + i * 64;
    return P::TRANS_A ? sw128_desc(st + (row / 64) * (BK * 128) + kk * 128,
                                   BK * 128, 1024)
                      : sw128_desc(st + row * 128 + kk * 2, 16, 1024);
  };
  auto desc_b = [&](u32 st, int kk) {
    const u32 sb = st + S::A_BYTES;
    return P::TRANS_B ? sw128_desc(sb + kk * 2, 16, 1024)
                      : sw128_desc(sb + kk * 128, BK * 128, 1024);
  };
  for (i64 z = blockIdx.z; z < P::BATCH; z += gridDim.z) {
    const u16 *A, *B;
    T *O;
    batch_operands<P>(z, a, b, out, A, B, O);
    for (I mb = blockIdx.y; mb < MB; mb += gridDim.y) {
      const I m0 = mb * BM, n0 = static_cast<I>(blockIdx.x) * BN;
      auto issue = [&](int stage, I kt) {
        const u32 sa = base + stage * S::STAGE_BYTES, sb = sa + S::A_BYTES;
        const I k0 = kt * BK;
        if (P::TRANS_A) // [K, M]: 64 k rows of BM m.
          load_sw128_async<BK, BM, THREADS, I>(sa, A, k0, m0, P::K, P::M, P::M);
        else // [M, K]: BM rows of 64 k.
          load_sw128_async<BM, BK, THREADS, I>(sa, A, m0, k0, P::M, P::K, P::K);
        if (P::TRANS_B) // [N, K]: BN rows of 64 k.
          load_sw128_async<BN, BK, THREADS, I>(sb, B, n0, k0, P::N, P::K, P::K);
        else // [K, N]: 64 k rows of BN n.
          load_sw128_async<BK, BN, THREADS, I>(sb, B, k0, n0, P::K, P::N, P::N);
      };
      float acc[MI][R];
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int q = 0; q < R; ++q)
          acc[i][q] = 0.0f;
          // Step kt multiplies stage kt % STAGES while wgmma group kt - 1 may
          // still run and tiles kt + 1 .. kt + STAGES - 2 load, so the stage
          // refilled in step kt is the one of tile kt - 2.
#pragma unroll
      for (int st = 0; st < STAGES - 2; ++st) {
        if (st < KT)
          issue(st, st);
        cp_async_commit();
      }
      for (I kt = 0; kt < KT; ++kt) {
        // STAGES - 3 groups were committed after tile kt's.
        cp_async_wait<STAGES - 3>();
        fence_proxy_async_shared();
        // Every thread's part of tile kt has landed; and every warpgroup
        // has waited for its wgmma group kt - 2 (at the end of step kt - 1),
        // so stage (kt - 2) % STAGES is free.
        __syncthreads();
        if (kt + STAGES - 2 < KT)
          issue(static_cast<int>((kt + STAGES - 2) % STAGES), kt + STAGES - 2);
        cp_async_commit(); // Possibly empty: keeps one group per step.
        const u32 st = base + static_cast<u32>(kt % STAGES) * S::STAGE_BYTES;
#pragma unroll
        for (int i = 0; i < MI; ++i)
          fence_accumulators(acc[i]);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16)
#pragma unroll
          for (int i = 0; i < MI; ++i)
            P::wgmma(acc[i], desc_a(st, i, kk), desc_b(st, kk));
        wgmma_commit();
        wgmma_wait<1>(); // Group kt - 1 is done; kt may run on.
#pragma unroll
        for (int i = 0; i < MI; ++i)
          fence_accumulators(acc[i]);
      }
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < MI; ++i)
        fence_accumulators(acc[i]);
      // Every warpgroup is done with the stages before the next tile's
      // loads refill them.
      __syncthreads();
      // Fragment layout: see the file comment.
      const int r0 = wg * WM + warp * 16 + (lane >> 2), c0 = (lane & 3) * 2;
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const I gm = m0 + r0 + i * 64 + h * 8, gn = n0 + j * 8 + c0;
            store_pair<P>(O, c, gm, gn, acc[i][4 * j + 2 * h],
                          acc[i][4 * j + 2 * h + 1]);
          }
    }
  }
}

} // namespace mm
} // namespace kiln
