// matmul_sm90.cuh - Hopper matmul: warpgroup MMA (wgmma.mma_async, sm_90a)
// on f16/bf16 (and, in the TMA kernel, f32 read as tf32 with both operands
// K-major: m64nNk8, k tiles of 32, A rounded in shared memory by
// round_a_tf32) with f32 accumulation, both operands read from 128-byte
// swizzled shared memory that a multi-stage cp.async or TMA pipeline fills.
//
// Uses matmul.cuh (smem_addr, cp_async_commit/wait, cluster_sync) and the
// traits struct P it documents (T, CT, I, M, N, K, BATCH, TRANS_A, TRANS_B,
// BM, BN, BK, batch, epilogue, PAIR_STORE, A_VEC and B_VEC, which must both
// hold here), plus:
//   STAGES (3..8; the TMA kernel 3..12): shared-memory stages of the k loop;
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

/// Whether P gives epilogue8 (EmitMatmul's 8-outputs-a-row epilogue for
/// the staged path: 16-byte operand loads where their layout allows).
template <class P, class = void> struct has_epilogue8 {
  static constexpr bool value = false;
};
template <class P>
struct has_epilogue8<P, decltype(void(&P::epilogue8))> {
  static constexpr bool value = true;
};
/// P::PINGPONG when P declares it true (the TMA kernel's option), else
/// false.
template <class P, class = void> struct pingpong_of {
  static constexpr bool value = false;
};
template <class P>
struct pingpong_of<P, decltype(void(P::PINGPONG))> {
  static constexpr bool value = P::PINGPONG;
};

/// P::STAGE_OUT when P declares it true (the TMA kernel's option).
template <class P, class = void> struct stage_out_of {
  static constexpr bool value = false;
};
template <class P>
struct stage_out_of<P, decltype(void(P::STAGE_OUT))> {
  static constexpr bool value = P::STAGE_OUT;
};

/// P::TMA_STORE when P declares it true (the TMA kernel's option).
template <class P, class = void> struct tma_store_of {
  static constexpr bool value = false;
};
template <class P>
struct tma_store_of<P, decltype(void(P::TMA_STORE))> {
  static constexpr bool value = P::TMA_STORE;
};

/// P::EPI_ROWS (the staged epilogue's option): the rows of 8 outputs a
/// thread loads, computes and stores per trip of its row walk, else 0
/// (two, or one where a thread walks a single row).
template <class P, class = void> struct epi_rows_of {
  static constexpr int value = 0;
};
template <class P>
struct epi_rows_of<P, decltype(void(P::EPI_ROWS))> {
  static constexpr int value = P::EPI_ROWS;
};

/// P::EPI_REGS (the staged epilogue's option): P::epilogue runs on the
/// accumulators in registers and the staged tile holds its results, else
/// the tile holds the products and the row walk runs the epilogue.
template <class P, class = void> struct epi_regs_of {
  static constexpr bool value = false;
};
template <class P>
struct epi_regs_of<P, decltype(void(P::EPI_REGS))> {
  static constexpr bool value = P::EPI_REGS;
};

/// P::CLUSTER (the TMA kernel's option): blocks of a cluster that share
/// each B tile through TMA multicast, else 1.
template <class P, class = void> struct cluster_of {
  static constexpr int value = 1;
};
template <class P>
struct cluster_of<P, decltype(void(P::CLUSTER))> {
  static constexpr int value = P::CLUSTER;
};

/// P::SPLIT (the TMA kernel's split-K): blocks of a cluster that share each
/// tile's K range, else 1.
template <class P, class = void> struct split_of {
  static constexpr int value = 1;
};
template <class P>
struct split_of<P, decltype(void(P::SPLIT))> {
  static constexpr int value = P::SPLIT;
};

/// P::STREAM_K (the TMA kernel's stream-K schedule): the tiles that do not
/// fill whole waves are cut along K into one even share of k tiles per
/// block, a tile's shares summed in global memory (wgmma_tma_gemm).
template <class P, class = void> struct stream_k_of {
  static constexpr bool value = false;
};
template <class P> struct stream_k_of<P, decltype(void(P::STREAM_K))> {
  static constexpr bool value = P::STREAM_K;
};

/// P::SWAP_AB (the TMA kernel's swap_ab): P describes C^T = B^T A^T, so
/// the output's element (gm, gn) of P's product lies at O[gn * P::M + gm].
template <class P, class = void> struct swap_ab_of {
  static constexpr bool value = false;
};
template <class P> struct swap_ab_of<P, decltype(void(P::SWAP_AB))> {
  static constexpr bool value = P::SWAP_AB;
};

template <class P> struct wgmma_shape {
  static constexpr int THREADS = 128 * P::WARPGROUPS;
  /// Rows per warpgroup: a share of the tile, or (ping-pong) all of it.
  static constexpr int WM =
      pingpong_of<P>::value ? P::BM : P::BM / P::WARPGROUPS;
  static constexpr int MI = WM / 64;               // m64 instructions
  static constexpr int R = P::BN / 2;              // f32 accumulators each
  // Both layouts of A take BM * 128 bytes (BM rows, or BM / 64 blocks of 64
  // k rows). B: BN rows (K-major), or whole 64-column blocks (N-major).
  static constexpr u32 A_BYTES = P::BM * 128;
  static constexpr u32 B_BYTES =
      (P::TRANS_B ? P::BN : (P::BN + 63) / 64 * 64) * 128;
  static constexpr u32 STAGE_BYTES = A_BYTES + B_BYTES;
  /// Bytes of an operand element: 2 (f16, bf16) or 4 (f32 read as tf32).
  static constexpr int EB = sizeof(typename P::T);
  /// k per instruction: k16 for 16-bit operands, k8 for tf32; 32 bytes of
  /// a 128-byte row either way.
  static constexpr int KI = 32 / EB;
  static_assert(P::BK * EB == 128, "one 128-byte swizzle row of k per tile");
  static_assert(EB == 2 || (EB == 4 && !P::TRANS_A && P::TRANS_B),
                "tf32 wgmma reads both operands K-major (no transposes)");
  static_assert(P::BN % 8 == 0 && P::BN >= 8 && P::BN <= 256,
                "wgmma n is a multiple of 8 up to 256");
  static_assert((WM == 64 || WM == 128) &&
                    (pingpong_of<P>::value || WM * P::WARPGROUPS == P::BM),
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

/// The descriptor of k16 slice `kk` of A's m64 block at tile row `row` in
/// the stage at shared address `st`.
template <class P>
__device__ __forceinline__ u64 wgmma_desc_a(u32 st, u32 row, int kk) {
  return P::TRANS_A ? sw128_desc(st + (row / 64) * (P::BK * 128) + kk * 128,
                                 P::BK * 128, 1024)
                    : sw128_desc(st + row * 128 + kk * wgmma_shape<P>::EB, 16,
                                 1024);
}
/// The descriptor of k16 slice `kk` of B's BN columns in the stage at `st`.
template <class P> __device__ __forceinline__ u64 wgmma_desc_b(u32 st, int kk) {
  const u32 sb = st + wgmma_shape<P>::A_BYTES;
  return P::TRANS_B ? sw128_desc(sb + kk * wgmma_shape<P>::EB, 16, 1024)
                    : sw128_desc(sb + kk * 128, P::BK * 128, 1024);
}

/// Issues one k tile of the stage at `st` for this warpgroup's rows
/// [row0, row0 + 64 * MI) as one committed wgmma group.
template <class P, int MI, int R>
__device__ __forceinline__ void wgmma_k_tile(float (&acc)[MI][R], u32 st,
                                             u32 row0) {
#pragma unroll
  for (int i = 0; i < MI; ++i)
    fence_accumulators(acc[i]);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < P::BK; kk += wgmma_shape<P>::KI)
#pragma unroll
    for (int i = 0; i < MI; ++i)
      P::wgmma(acc[i], wgmma_desc_a<P>(st, row0 + i * 64, kk),
               wgmma_desc_b<P>(st, kk));
  wgmma_commit();
}

/// Sets a warpgroup's accumulators to 0 before a tile's k loop.
template <int MI, int R>
__device__ __forceinline__ void zero_accumulators(float (&acc)[MI][R]) {
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int q = 0; q < R; ++q)
      acc[i][q] = 0.0f;
}

/// Waits for all but N of this warpgroup's wgmma groups, then lets the
/// compiler touch the accumulators again.
template <int N, int MI, int R>
__device__ __forceinline__ void wgmma_wait_acc(float (&acc)[MI][R]) {
  wgmma_wait<N>();
#pragma unroll
  for (int i = 0; i < MI; ++i)
    fence_accumulators(acc[i]);
}

/// Calls f(r, c, v0, v1) for each pair of this warpgroup's accumulators:
/// row r of its WM rows, columns c and c + 1 of the tile.
template <class P, int MI, int R, class F>
__device__ __forceinline__ void for_each_wgmma_pair(const float (&acc)[MI][R],
                                                    F &&f) {
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int r0 = warp * 16 + (lane >> 2), c0 = (lane & 3) * 2;
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < P::BN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        f(r0 + i * 64 + h * 8, j * 8 + c0, acc[i][4 * j + 2 * h],
          acc[i][4 * j + 2 * h + 1]);
}

/// Stores this warpgroup's accumulators (rows row0 + [0, 64 * MI) of the
/// tile at (m0, n0)) through P::epilogue. Fragment layout: see the file
/// comment.
template <class P, int MI, int R, class I>
__device__ __forceinline__ void
store_wgmma_tile(typename P::T *__restrict__ O,
                 const typename P::CT *__restrict__ c, const float (&acc)[MI][R],
                 I m0, I n0, int row0) {
  for_each_wgmma_pair<P>(acc, [&](int r, int cc, float v0, float v1) {
    const I gm = m0 + row0 + r, gn = n0 + cc;
    if constexpr (swap_ab_of<P>::value) {
      // Transposed: a thread's pair lies in two output rows; the 8 lanes of
      // a quad column write 16 contiguous bytes of each.
      if (gm >= P::M)
        return;
      if (gn < P::N)
        O[gn * P::M + gm] = P::epilogue(v0, c, gm, gn);
      if (gn + 1 < P::N)
        O[(gn + 1) * P::M + gm] = P::epilogue(v1, c, gm, gn + 1);
    } else {
      store_pair<P>(O, c, gm, gn, v0, v1);
    }
  });
}

template <class P>
__device__ __forceinline__ void wgmma_gemm(const typename P::T *__restrict__ a,
                                           const typename P::T *__restrict__ b,
                                           const typename P::CT *__restrict__ c,
                                           typename P::T *__restrict__ out) {
  typedef typename P::T T;
  typedef typename P::I I;
  typedef wgmma_shape<P> S;
  static_assert(S::EB == 2, "the cp.async wgmma kernel takes f16 and bf16; "
                            "tf32 takes the TMA kernel");
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, STAGES = P::STAGES;
  constexpr int THREADS = S::THREADS, WM = S::WM, MI = S::MI, R = S::R;
  extern __shared__ __align__(1024) u8 kiln_wgmma_smem[];
  // The swizzle pattern is anchored at 1024-byte boundaries of the shared
  // window: align the stages there (the launch reserves 1 KiB for this).
  const u32 base = (smem_addr(kiln_wgmma_smem) + 1023u) & ~1023u;
  const int wg = threadIdx.x >> 7;
  constexpr I MB = (P::M + BM - 1) / BM;
  constexpr I KT = (P::K + BK - 1) / BK;
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
      zero_accumulators(acc);
          // Step kt multiplies stage kt % STAGES while wgmma group kt - 1 may
          // still run and tiles kt + 1 .. kt + STAGES - 2 load, so the stage
          // refilled in step kt is the one of tile kt - 2.
#pragma unroll
      for (int st = 0; st < STAGES - 2; ++st) {
        if (st < KT)
          issue(st, st);
        cp_async_commit();
      }
      auto step = [&](I kt) {
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
        wgmma_k_tile<P>(acc, st, wg * WM);
      };
      for (I kt = 0; kt + 1 < KT; ++kt) {
        step(kt);
        wgmma_wait_acc<1>(acc); // Group kt - 1 is done; kt may run on.
      }
      // The last step peeled, its wait_group 0 right behind its group (the
      // TMA kernel's k_loop says why).
      step(KT - 1);
      wgmma_wait_acc<0>(acc);
      // Every warpgroup is done with the stages before the next tile's
      // loads refill them.
      __syncthreads();
      store_wgmma_tile<P>(O, c, acc, m0, n0, wg * WM);
    }
  }
}


// ---------------------------------------------------------------------------
// The warp-specialized path (P::TMA): a producer warpgroup whose one thread
// loads A and B tiles with the bulk tensor copy engine (TMA,
// cp.async.bulk.tensor) into the same 128-byte swizzled stages, and
// P::WARPGROUPS consumer warpgroups that multiply them with wgmma. Stages
// hand over through mbarriers: full[s] completes when the copy engine has
// written stage s (one arrive.expect_tx of the stage's bytes, then the
// copies' complete_tx), empty[s] when every consumer warpgroup's wgmma that
// read it is done (one arrive per warpgroup). The grid is persistent: block
// b takes output tiles b, b + gridDim.x, ... in grouped order (P::GROUP_M
// rows of tiles sweep the columns together, so concurrent blocks share A
// and B tiles in L2), and the producer runs ahead into the next tile while
// the consumers store the last one. Batched products (P::BATCH > 1) run the
// units of matrix 0, then 1, ..., with 3-D tensor maps whose outermost
// dimension is the operand's matrices (a broadcast operand has one).
//
// Two schedules for the consumers: cooperative (every consumer warpgroup
// takes BM / WARPGROUPS rows of each tile), and ping-pong (P::PINGPONG, two
// warpgroups: each takes every other tile of the block whole, so one
// warpgroup's epilogue overlaps the other's k loop; the copies still come in
// tile order, so the k loops take turns).
//
// Clusters (P::CLUSTER = 2): the two blocks of a cluster take the two
// tiles of a pair, vertically adjacent (tile rows 2p and 2p + 1 of one tile
// column), so they need the same B tile at every k step. Each block's
// producer loads its own A and half of B (for K-major B the rows
// [rank * BN / 2, (rank + 1) * BN / 2), for N-major B the 64-column blocks j
// with j % 2 == rank), multicasting the B half into both blocks' stages at
// the same offset; the copy engine completes the bytes on each destination
// block's full[s], so every full[s] still expects the whole stage. This
// halves B's traffic from L2 (on the H200 it left the zoo's matmuls within
// 7% either way, micro-183010: a tuning choice). A stage may be refilled
// only when both blocks' consumers are done with it, so every consumer
// warpgroup arrives on empty[s] of both blocks (counts doubled). The blocks start only after
// both initialized their barriers (a cluster barrier), and a producer ends
// by waiting for the last STAGES releases, so no block exits while its peer
// may still arrive on its barriers.
//
// Epilogues (the consumers', after a tile's k loop): direct (each thread
// stores its pairs of outputs: half sectors), staged (P::STAGE_OUT: the
// tile through shared memory, stored in 16-byte rows) or TMA-store
// (P::TMA_STORE: 64-column blocks through shared memory and the copy
// engine, store_wgmma_tile_tma). The shared memory after the stages holds
// each consumer warpgroup's epilogue tile, then the barriers.
//
// Phases: the i-th stage use overall (counting across tiles) is stage
// i % STAGES in phase (i / STAGES) & 1. Consumers wait for full[s] to
// complete that phase; the producer waits for empty[s] to complete the phase
// before (parity ^ 1), which a fresh barrier reports as complete, so the
// first STAGES loads start at once.
//
// The tensor maps (CUtensorMap, encoded by the runtime with
// cuTensorMapEncodeTiled, SWIZZLE_128B, out-of-range elements zero-filled)
// describe A and B as 2-D tensors, innermost dimension first: K-major
// operands as {K, rows} with boxes {64, BM or BN} (a whole tile), MN-major
// ones as {rows, K} with boxes {64, 64} (one 64-column block per copy).
// EmitMatmul.cpp writes the same geometry into the launch's tensor map
// arguments.

/// A CUtensorMap: 128 opaque bytes, passed by value as a __grid_constant__
/// kernel parameter so that TMA reads it from parameter space.
struct __align__(64) tensor_map {
  u64 opaque[16];
};

__device__ __forceinline__ void mbar_init(u32 bar, u32 count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
               "r"(count)
               : "memory");
}
/// One arrival that also announces `bytes` of copies completing on `bar`.
__device__ __forceinline__ void mbar_arrive_expect_tx(u32 bar, u32 bytes) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(u32 bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar)
               : "memory");
}
/// Spins until the phase of `bar` with parity `parity` has completed.
/// CLUSTER_ACQUIRE: with acquire at cluster scope, so what arrivals released
/// in other blocks of the cluster (mbar_arrive_cluster<true>) is visible.
template <bool CLUSTER_ACQUIRE = false>
__device__ __forceinline__ void mbar_wait(u32 bar, u32 parity) {
  if constexpr (CLUSTER_ACQUIRE)
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "KILN_MBAR_WAIT:\n"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                 "done, [%0], %1;\n"
                 "@!done bra KILN_MBAR_WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
  else
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "KILN_MBAR_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra KILN_MBAR_WAIT;\n"
                 "}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/// A 2-D tile copy global -> shared (dst 1024-byte aligned for the 128-byte
/// swizzle) at coordinates (c0 innermost, c1), completing on `bar`.
__device__ __forceinline__ void tma_load_2d(u32 dst, const tensor_map *map,
                                            u32 bar, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar)
               : "memory");
}
/// A 3-D tile copy (c2: the matrix of a batched operand), as tma_load_2d.
__device__ __forceinline__ void tma_load_3d(u32 dst, const tensor_map *map,
                                            u32 bar, int c0, int c1, int c2) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(c2),
               "r"(bar)
               : "memory");
}
/// tma_load_3d, multicast to the blocks in `mask`.
__device__ __forceinline__ void
tma_load_3d_multicast(u32 dst, const tensor_map *map, u32 bar, int c0, int c1,
                      int c2, u16 mask) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3, "
               "%4}], [%5], %6;\n" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(c2),
               "r"(bar), "h"(mask)
               : "memory");
}
/// tma_load_2d, multicast: the tile lands at `dst` in every block of the
/// cluster in `mask` (bit r: rank r), completing on the `bar` at the same
/// offset in each.
__device__ __forceinline__ void tma_load_2d_multicast(u32 dst,
                                                      const tensor_map *map,
                                                      u32 bar, int c0, int c1,
                                                      u16 mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], "
               "[%4], %5;\n" ::"r"(dst),
               "l"(reinterpret_cast<u64>(map)), "r"(c0), "r"(c1), "r"(bar),
               "h"(mask)
               : "memory");
}
/// One arrival on the barrier at `bar` (a shared::cta offset) of the
/// cluster's block `rank` (this block's own rank included). The default
/// semantics (release at CTA scope): the arrival only says that this
/// warpgroup's wgmma reads of the stage are done, and wgmma.wait_group has
/// already completed them, so there is nothing for a cluster-scope release
/// to order before the peer's copy overwrites the stage; on the H200 that
/// release stalled every k step about a microsecond (micro-182026).
/// RELEASE: release at cluster scope instead, for an arrival that must
/// publish this thread's (and, through a barrier before it, its
/// warpgroup's) shared stores to a block that waits with
/// mbar_wait<true>.
template <bool RELEASE = false>
__device__ __forceinline__ void mbar_arrive_cluster(u32 bar, u32 rank) {
  const u32 remote = map_cluster(bar, rank);
  if constexpr (RELEASE)
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
                 "[%0];\n" ::"r"(remote)
                 : "memory");
  else
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(
                     remote)
                 : "memory");
}
/// The cluster's index along x, and the count of clusters along x.
__device__ __forceinline__ u32 cluster_id_x() {
  u32 r;
  asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ u32 cluster_count_x() {
  u32 r;
  asm volatile("mov.u32 %0, %%nclusterid.x;\n" : "=r"(r));
  return r;
}
/// This block's rank in its cluster.
__device__ __forceinline__ u32 cluster_rank() {
  u32 r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void tma_prefetch_map(const tensor_map *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<u64>(map))
               : "memory");
}
/// Register budgets of the two roles (setmaxnreg, sm_90a; the kernel is
/// launched with __launch_bounds__(threads, 1) so it starts capped).
template <int N> __device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

template <class P> struct wgmma_tma_shape : wgmma_shape<P> {
  /// The producer warpgroup plus the consumers.
  static constexpr int THREADS = 128 * (P::WARPGROUPS + 1);
  static constexpr u32 BARRIER_BYTES = 256; // full[STAGES], empty[STAGES]
  /// The staged epilogue's tile per consumer warpgroup: WM rows of BN
  /// outputs, rows padded by 8 elements (16 bytes) so the fragments' pair
  /// stores of 8 rows land in distinct banks.
  static constexpr u32 OUT_PITCH = P::BN + 8;
  /// The TMA-store epilogue's buffers per consumer warpgroup: 64-column
  /// blocks of its WM rows (128 bytes a row, 128-byte swizzled), two of
  /// them (one where the tile has a single block), so that one block is
  /// written while the copy engine reads the previous one.
  static constexpr int STORE_BLOCKS = P::BN / 64;
  static constexpr int STORE_BUFS = STORE_BLOCKS < 2 ? STORE_BLOCKS : 2;
  static constexpr u32 STORE_BLOCK_BYTES = wgmma_shape<P>::WM * 128;
  /// swap_ab's staged epilogue holds the warpgroup's tile transposed: BN
  /// output rows of WM outputs, padded by 8 (16 bytes: the fragments' 2-byte
  /// stores of 4 rows x 8 columns then fill 16 distinct banks).
  static constexpr u32 SWAP_PITCH = wgmma_shape<P>::WM + 8;
  static constexpr u32 OUT_BYTES =
      stage_out_of<P>::value
          ? (swap_ab_of<P>::value ? P::BN * SWAP_PITCH
                                  : wgmma_shape<P>::WM * OUT_PITCH) *
                sizeof(typename P::T)
      : tma_store_of<P>::value ? STORE_BUFS * STORE_BLOCK_BYTES
                               : 0;
  static_assert(!tma_store_of<P>::value ||
                    (!stage_out_of<P>::value && P::BN % 64 == 0 &&
                     P::N % 8 == 0 && P::BATCH == 1 &&
                     sizeof(typename P::T) == 2),
                "the TMA-store epilogue writes 64-column blocks of 16-bit "
                "outputs of a single product (N % 8 == 0)");
  static_assert(!stage_out_of<P>::value ||
                    (swap_ab_of<P>::value ? P::M : P::N) % 8 == 0,
                "16-byte output rows need whole 8-output chunks");
  static_assert(!stage_out_of<P>::value || sizeof(typename P::T) == 2,
                "the staged epilogue stores rows of 8 16-bit outputs");
  static_assert(P::STAGES * 16 + 16 <= BARRIER_BYTES, "barriers fit");
  static_assert(P::GROUP_M >= 1, "tile rows per group");
  static constexpr int CLUSTER = cluster_of<P>::value;
  static_assert(CLUSTER == 1 || CLUSTER == 2, "pairs of blocks at most");
  static_assert(!P::TRANS_B || (P::BN / CLUSTER) % 8 == 0,
                "each block's share of a K-major B tile keeps whole 1024-byte "
                "swizzle atoms");
  /// Split-K (P::SPLIT > 1): the cluster's blocks each multiply a slice of
  /// K, write their f32 partial tiles to shared memory (rows RED_PITCH
  /// floats apart: 8 banks a row, so a half-warp's pair stores of 4 rows
  /// fill 32 distinct banks where BN is a multiple of 32), and each block
  /// sums BM / SPLIT rows over the cluster and runs the epilogue on them.
  static constexpr int SPLIT = split_of<P>::value;
  static constexpr u32 RED_PITCH = P::BN + 8;
  static constexpr u32 RED_BYTES = SPLIT > 1 ? P::BM * RED_PITCH * 4 : 0;
  static_assert(SPLIT == 1 || SPLIT == 2 || SPLIT == 4 || SPLIT == 8,
                "split-K takes clusters of 2, 4 or 8 blocks");
  static_assert(SPLIT == 1 || (CLUSTER == 1 && !pingpong_of<P>::value &&
                               !stage_out_of<P>::value &&
                               !tma_store_of<P>::value && P::BATCH == 1),
                "split-K runs cooperative tiles of a single product with its "
                "own epilogue, without multicast pairs");
  static_assert(!swap_ab_of<P>::value ||
                    (!tma_store_of<P>::value && split_of<P>::value == 1 &&
                     P::BATCH == 1),
                "swap_ab stores its tiles transposed by the direct or the "
                "staged epilogue (single products, no split-K)");
  static_assert(!stream_k_of<P>::value ||
                    (SPLIT == 1 && CLUSTER == 1 && !pingpong_of<P>::value &&
                     P::BATCH == 1),
                "stream-K runs cooperative tiles of a single product, "
                "without split-K clusters or multicast pairs");
  static_assert(P::BM % (SPLIT * 8) == 0, "each block sums whole 8-row groups");
  static_assert((P::K + P::BK - 1) / P::BK >= SPLIT,
                "every block of a split takes one k tile or more");
};

/// The dynamic shared memory of wgmma_tma_gemm<P>: alignment slack, the
/// stages, the consumers' epilogue tiles (1024-byte aligned, as the
/// TMA-store epilogue's swizzle needs), then the barriers.
template <class P> __host__ __device__ constexpr u32 wgmma_tma_smem_bytes() {
  return 1024 + P::STAGES * wgmma_shape<P>::STAGE_BYTES +
         wgmma_tma_shape<P>::BARRIER_BYTES +
         P::WARPGROUPS * wgmma_tma_shape<P>::OUT_BYTES +
         wgmma_tma_shape<P>::RED_BYTES;
}

/// bar.sync on named barrier `id` (1..15) for `threads` threads (one
/// warpgroup's, so the others do not wait).
__device__ __forceinline__ void named_barrier(u32 id, u32 threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// bar.arrive on named barrier `id` counting `threads` in all: signals
/// without waiting (the waiting side calls named_barrier).
__device__ __forceinline__ void named_barrier_arrive(u32 id, u32 threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// A 16-byte global store of 8 16-bit outputs. No "memory" clobber (as
/// st_shared_u32 below): a C++ store may alias the epilogue's operands
/// (restrict on a struct member is not honoured), which made the compiler
/// load a bias again after every store. Each output is written once, and
/// no epilogue operand shares the output's buffer (the memory planner puts
/// outputs in place only for elementwise launches; a residual is live while
/// the matmul writes), so no load needs ordering after these stores within
/// the kernel. Were that to change, the row walk below would need care: its
/// rows past M read row M - 1's operands while another thread writes row
/// M - 1 (their results are discarded).
template <class T>
__device__ __forceinline__ void st_global_v8(T *p, const Vec<T, 8> &v) {
  static_assert(sizeof(T) == 2, "8 16-bit outputs");
  u32 w[4];
  memcpy(w, &v, 16);
  asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"l"(p),
               "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]));
}

/// A 4-byte shared store. No "memory" clobber: that would make the
/// compiler reload the epilogue's operands (a bias) after every store; the
/// fence and barrier after the stores are asm volatile with the clobber,
/// and volatile asm keeps its order.
__device__ __forceinline__ void st_shared_u32(u32 addr, u32 v) {
  asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(v));
}

/// P::epilogue of the accumulator pair (v0, v1) at (gm, gn), (gm, gn + 1)
/// into y0, y1; past the product's edge it reads the last row's or
/// column's operands (the caller stores nothing there).
template <class P, class I>
__device__ __forceinline__ void
epilogue_pair_clamped(const typename P::CT *__restrict__ c, I gm, I gn,
                      float v0, float v1, typename P::T &y0,
                      typename P::T &y1) {
  constexpr bool WHOLE_M = P::M % P::BM == 0, WHOLE_N = P::N % P::BN == 0;
  const I gl = WHOLE_M || gm < P::M ? gm : P::M - 1;
  const I g0 = WHOLE_N || gn < P::N ? gn : P::N - 1;
  const I g1 = WHOLE_N || gn + 1 < P::N ? gn + 1 : P::N - 1;
  y0 = P::epilogue(v0, c, gl, g0);
  y1 = P::epilogue(v1, c, gl, g1);
}

/// P's epilogue on the 8 outputs (m, n .. n + 7) of a row, x their products
/// rounded to T: P::epilogue8 where EmitMatmul gives it, else 8 calls.
template <class P, class I>
__device__ __forceinline__ Vec<typename P::T, 8>
epilogue_row8(const Vec<typename P::T, 8> &x,
              const typename P::CT *__restrict__ c, I m, I n) {
  if constexpr (has_epilogue8<P>::value) {
    return P::epilogue8(x, c, m, n);
  } else {
    Vec<typename P::T, 8> y;
#pragma unroll
    for (int e = 0; e < 8; ++e)
      y[e] = P::epilogue(to_compute(x[e]), c, m, n + e);
    return y;
  }
}

/// The staged epilogue of one consumer warpgroup (P::STAGE_OUT): its
/// accumulators rounded to T into the shared tile `Os` (WM x OUT_PITCH),
/// then rows of 8 outputs: one 16-byte read, P::epilogue on each of the 8
/// (independent, so they overlap), one 16-byte store. The epilogue sees the
/// product rounded to T, as the unstaged path's first step does (EmitMatmul
/// stages only epilogues that round first). `bar` is the warpgroup's named
/// barrier.
template <class P, int MI, int R, class I>
__device__ __forceinline__ void
store_wgmma_tile_staged(typename P::T *__restrict__ O,
                        const typename P::CT *__restrict__ c,
                        const float (&acc)[MI][R], typename P::T *Os, I m0,
                        I n0, u32 bar) {
  typedef typename P::T T;
  constexpr int WM = wgmma_shape<P>::WM;
  constexpr u32 PITCH = wgmma_tma_shape<P>::OUT_PITCH;
  const int t = threadIdx.x & 127;
  named_barrier(bar, 128); // The last tile's reads of Os are done.
  constexpr int CHUNKS = P::BN / 8;
  constexpr bool WHOLE_M = P::M % P::BM == 0, WHOLE_N = P::N % P::BN == 0;
  if constexpr (epi_regs_of<P>::value) {
    // The epilogue on the accumulators, where a thread has all of its 64 *
    // MI * BN / 128 outputs as independent work (the row walk has EPI_ROWS
    // rows of 8), then the results leave in 16-byte rows. Past the
    // product's edge the epilogue reads the last row's or column's
    // operands and nothing is stored (N % 8 == 0: a chunk is all in or all
    // out). The 4-byte shared stores have no memory clobber, so a bias is
    // loaded once per column, not again after every store.
    const u32 os = smem_addr(Os);
    for_each_wgmma_pair<P>(acc, [&](int r, int cc, float v0, float v1) {
      T y0, y1;
      epilogue_pair_clamped<P>(c, m0 + r, n0 + cc, v0, v1, y0, y1);
      st_shared_u32(os + 2 * (r * PITCH + cc),
                    static_cast<u32>(y0.bits) |
                        (static_cast<u32>(y1.bits) << 16));
    });
    named_barrier(bar, 128);
#pragma unroll 4
    for (int v = t; v < WM * CHUNKS; v += 128) {
      const int r = v / CHUNKS, cc = (v % CHUNKS) * 8;
      const I gm = m0 + r, gn = n0 + cc;
      if ((WHOLE_M || gm < P::M) && (WHOLE_N || gn < P::N))
        st_global_v8(O + gm * P::N + gn, load_vec<8>(Os + r * PITCH + cc));
    }
    return;
  }
  for_each_wgmma_pair<P>(acc, [&](int r, int cc, float v0, float v1) {
    Vec<T, 2> pair;
    pair[0] = from_compute<T>(v0);
    pair[1] = from_compute<T>(v1);
    store_vec<2>(Os + r * PITCH + cc, pair);
  });
  named_barrier(bar, 128);
  // Where 128 is a multiple of CHUNKS, a thread's column chunk is the same
  // in every row it takes (rows t / CHUNKS, + 128 / CHUNKS, ...): the loop
  // walks those rows with the chunk fixed, so what the epilogue reads per
  // column (a bias) is loaded once, not once per row, and two rows' 16
  // outputs are in flight per trip (one warp per scheduler runs this
  // epilogue: its latency is hidden by nothing but its own independent
  // work). Rows past M (the last tile row when M is not a multiple of BM)
  // compute on row M - 1's operands and store nothing, so no load in the
  // loop is conditional; columns must be whole (N a multiple of BN).
  //
  // Tiles whose chunks do not divide 128 (BN = 192: BERT's FFN2 and
  // attention output) walk 64-column blocks one after the other, 16 rows
  // of 8 chunks a pass, the chunk fixed within a block; the generic loop
  // below changed a thread's column every trip and kept one row in flight.
  if constexpr (WHOLE_N && 128 % CHUNKS == 0) {
    constexpr int STEP = 128 / CHUNKS;
    // EPI_ROWS rows a trip: all their loads, then all their epilogues, then
    // all their stores, so that many rows' epilogue math is independent
    // work for the one warp a scheduler has here.
    constexpr int U = epi_rows_of<P>::value > 0 ? epi_rows_of<P>::value
                      : WM / STEP >= 2              ? 2
                                                    : 1;
    static_assert(U >= 1 && (WM / STEP) % U == 0,
                  "EPI_ROWS divides the rows a thread walks");
    const int cc = (t % CHUNKS) * 8;
    const I gn = n0 + cc;
#pragma unroll 1
    for (int r = t / CHUNKS; r < WM; r += STEP * U) {
      Vec<T, 8> x[U], y[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        x[u] = load_vec<8>(Os + (r + u * STEP) * PITCH + cc);
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const I gm = m0 + r + u * STEP;
        const I gl = WHOLE_M || gm < P::M ? gm : P::M - 1; // the rows loaded
        y[u] = epilogue_row8<P>(x[u], c, gl, gn);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const I gm = m0 + r + u * STEP;
        if (WHOLE_M || gm < P::M)
          st_global_v8(O + gm * P::N + gn, y[u]);
      }
    }
    return;
  } else if constexpr (WHOLE_N && P::BN % 64 == 0) {
#pragma unroll 1
    for (int j = 0; j < P::BN / 64; ++j) {
      const int cc = j * 64 + (t % 8) * 8;
      const I gn = n0 + cc;
#pragma unroll 4
      for (int r = t / 8; r < WM; r += 16) {
        const I gm = m0 + r;
        const I gl = WHOLE_M || gm < P::M ? gm : P::M - 1;
        const Vec<T, 8> x = load_vec<8>(Os + r * PITCH + cc);
        const Vec<T, 8> y = epilogue_row8<P>(x, c, gl, gn);
        if (WHOLE_M || gm < P::M)
          st_global_v8(O + gm * P::N + gn, y);
      }
    }
    return;
  }
  for (int v = t; v < WM * CHUNKS; v += 128) {
    const int r = v / CHUNKS, cc = (v % CHUNKS) * 8;
    const I gm = m0 + r, gn = n0 + cc;
    if (gm >= P::M || gn >= P::N) // N % 8 == 0: all 8 are in range
      continue;
    const Vec<T, 8> x = load_vec<8>(Os + r * PITCH + cc);
    const Vec<T, 8> y = epilogue_row8<P>(x, c, gm, gn);
    store_vec<8>(O + gm * P::N + gn, y);
  }
}

/// swap_ab's staged epilogue of one consumer warpgroup (P::STAGE_OUT with
/// P::SWAP_AB): P::epilogue of its accumulators (in registers, at full
/// precision, as the direct path runs it) written transposed into the
/// shared tile `Os` (BN rows of SWAP_PITCH), then each output row's WM
/// outputs leave in 16-byte stores, a quarter warp's 8 filling 128
/// contiguous bytes, where the direct transposed stores fill half of each
/// 32-byte sector. The outputs of P's rows [m0, m0 + WM) and columns
/// [n0, n0 + BN) lie at O[gn * P::M + gm]. Past the product's edge the
/// epilogue reads the last row's or column's operands and nothing is
/// stored (P::M % 8 == 0, so a chunk is all in or all out). `bar` is the
/// warpgroup's named barrier.
template <class P, int MI, int R, class I>
__device__ __forceinline__ void
store_wgmma_tile_staged_swapped(typename P::T *__restrict__ O,
                                const typename P::CT *__restrict__ c,
                                const float (&acc)[MI][R], typename P::T *Os,
                                I m0, I n0, u32 bar) {
  typedef typename P::T T;
  constexpr int WM = wgmma_shape<P>::WM;
  constexpr u32 PITCH = wgmma_tma_shape<P>::SWAP_PITCH;
  constexpr bool WHOLE_M = P::M % P::BM == 0, WHOLE_N = P::N % P::BN == 0;
  const int t = threadIdx.x & 127;
  named_barrier(bar, 128); // The last tile's reads of Os are done.
  for_each_wgmma_pair<P>(acc, [&](int r, int cc, float v0, float v1) {
    epilogue_pair_clamped<P>(c, m0 + r, n0 + cc, v0, v1, Os[cc * PITCH + r],
                             Os[(cc + 1) * PITCH + r]);
  });
  named_barrier(bar, 128);
  constexpr int CHUNKS = WM / 8; // 8 or 16: they divide 128
  const int q = (t % CHUNKS) * 8;
  const I gm = m0 + q;
#pragma unroll 2
  for (int r = t / CHUNKS; r < P::BN; r += 128 / CHUNKS) {
    const I gn = n0 + r;
    const Vec<T, 8> y = load_vec<8>(Os + r * PITCH + q);
    if ((WHOLE_M || gm < P::M) && (WHOLE_N || gn < P::N))
      st_global_v8(O + gn * P::M + gm, y);
  }
}

/// A 2-D tile copy shared -> global (the bulk tensor copy engine's store;
/// elements outside the tensor are not written), in this thread's current
/// bulk async-group.
__device__ __forceinline__ void tma_store_2d(const tensor_map *map, u32 src,
                                             int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, "
               "{%2, %3}], [%1];\n" ::"l"(reinterpret_cast<u64>(map)),
               "r"(src), "r"(c0), "r"(c1)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
/// Waits until at most N of this thread's bulk async-groups still read
/// their shared memory.
template <int N> __device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/// Waits until all of this thread's bulk async-groups have completed.
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/// The TMA-store epilogue of one consumer warpgroup (P::TMA_STORE): its
/// rows [m0, m0 + WM) x columns [n0, n0 + BN) go out in 64-column blocks.
/// For each block the warpgroup writes P::epilogue of its accumulators
/// (in registers, as the direct path does) into a shared buffer laid out as
/// the output tensor map's 128-byte swizzled box (row r at r * 128, its
/// 16-byte chunk q at q ^ (r % 8): a warp's pair stores of 8 rows then hit
/// 32 distinct banks), and the leader hands it to the copy engine, which
/// writes whole 32-byte sectors and skips what lies outside the output. The
/// buffers rotate (STORE_BUFS): before a buffer is written again, the copy
/// that last read it (maybe the previous tile's) must be done reading.
/// `buf` is the warpgroup's first buffer, `bar` its named barrier.
template <class P, int MI, int R, class I>
__device__ __forceinline__ void
store_wgmma_tile_tma(const typename P::CT *__restrict__ c,
                     const float (&acc)[MI][R], u32 buf, const tensor_map *map,
                     I m0, I n0, u32 bar, bool leader) {
  typedef typename P::T T;
  typedef wgmma_tma_shape<P> S;
  const int warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int r0 = warp * 16 + (lane >> 2), c0 = (lane & 3) * 2;
#pragma unroll
  for (int j = 0; j < S::STORE_BLOCKS; ++j) {
    const u32 dst = buf + (j % S::STORE_BUFS) * S::STORE_BLOCK_BYTES;
    if (leader)
      bulk_wait_read<S::STORE_BUFS - 1>();
    named_barrier(bar, 128);
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int q = 0; q < 8; ++q) // the row's 16-byte chunk: 8 columns
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = r0 + i * 64 + h * 8, col = j * 64 + q * 8 + c0;
          const I gm = m0 + r, gn = n0 + col;
          const int f = 4 * (col / 8) + 2 * h;
          u32 bits = 0; // Outside the output: never stored.
          if (gm < P::M && gn < P::N) // N % 8 == 0: gn + 1 < N too
            bits = static_cast<u32>(P::epilogue(acc[i][f], c, gm, gn).bits) |
                   static_cast<u32>(
                       P::epilogue(acc[i][f + 1], c, gm, gn + 1).bits)
                       << 16;
          st_shared_u32(dst + r * 128 + ((q ^ (r & 7)) << 4) + c0 * 2, bits);
        }
    fence_proxy_async_shared();
    named_barrier(bar, 128);
    if (leader) {
      tma_store_2d(map, dst, static_cast<int>(n0) + j * 64,
                   static_cast<int>(m0));
      bulk_commit();
    }
  }
}

/// tf32: rounds rows [row0, row0 + ROWS) of the K-major A tile in the stage
/// at `st` (128 bytes a row) to tf32 in place, as mma.sync's operands and
/// the evaluator are rounded (tf32_bits: cvt.rna); wgmma would otherwise
/// drop their 13 low bits (truncation, twice the error). A constant B is
/// stored rounded by the compiler. The warpgroup's 128 threads each take
/// 16-byte chunks; then each makes its writes visible to the async proxy
/// and the warpgroup meets at named barrier `bar` before its wgmma.
template <int ROWS>
__device__ __forceinline__ void round_a_tf32(u32 st, int row0, u32 bar) {
  const int t = threadIdx.x & 127;
  const u32 base = st + static_cast<u32>(row0) * 128u;
#pragma unroll
  for (int v = t; v < ROWS * 8; v += 128) {
    const u32 addr = base + static_cast<u32>(v) * 16u;
    u32 x0, x1, x2, x3;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(x0), "=r"(x1), "=r"(x2), "=r"(x3)
                 : "r"(addr));
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(tf32_bits(x0)), "r"(tf32_bits(x1)), "r"(tf32_bits(x2)),
                 "r"(tf32_bits(x3))
                 : "memory");
  }
  fence_proxy_async_shared();
  named_barrier(bar, 128);
}

/// Four f32 at a shared::cluster address (16-byte aligned).
__device__ __forceinline__ void ld_cluster_v4(u32 remote, float (&v)[4]) {
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
               : "r"(remote)
               : "memory");
}

/// Split-K's end of a tile (P::SPLIT > 1), for one consumer warpgroup of
/// block `krank` of the cluster: its partial rows go to this block's
/// reduction buffer `red`; once every warpgroup of the cluster has written
/// its own (red_full: SPLIT * WARPGROUPS arrivals in each block), the
/// block's consumers sum rows [krank * BM / SPLIT, (krank + 1) * BM /
/// SPLIT) over the cluster's buffers (16-byte loads through distributed
/// shared memory), run P::epilogue on them and store them; then each
/// warpgroup tells every block it is done reading (red_done), which a
/// block awaits before it writes its buffer again or exits. `tile` counts
/// the block's tiles (its barriers' phases; cooperative, so every
/// warpgroup takes each).
template <class P, int MI, int R, class I>
__device__ __forceinline__ void
reduce_split_tile(typename P::T *__restrict__ O,
                  const typename P::CT *__restrict__ c,
                  const float (&acc)[MI][R], u32 red, u32 red_full,
                  u32 red_done, I m0, I n0, int row0, int cw, u32 krank,
                  I tile, bool leader) {
  typedef typename P::T T;
  typedef wgmma_tma_shape<P> S;
  constexpr int SPLIT = S::SPLIT, ROWS = P::BM / SPLIT, CH = P::BN / 8;
  constexpr u32 PITCH = S::RED_PITCH;
  const u32 parity = static_cast<u32>(tile) & 1u;
  mbar_wait<true>(red_done, parity ^ 1u); // the last tile's readers
  for_each_wgmma_pair<P>(acc, [&](int r, int cc, float v0, float v1) {
    const u32 a = red + (static_cast<u32>(row0 + r) * PITCH + cc) * 4u;
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a), "f"(v0),
                 "f"(v1)
                 : "memory");
  });
  named_barrier(1 + cw, 128);
  if (leader)
#pragma unroll
    for (int q = 0; q < SPLIT; ++q)
      mbar_arrive_cluster<true>(red_full, q);
  mbar_wait<true>(red_full, parity);
  const int t = static_cast<int>(threadIdx.x) - 128; // consumer thread
#pragma unroll 1
  for (int v = t; v < ROWS * CH; v += 128 * P::WARPGROUPS) {
    const int r = static_cast<int>(krank) * ROWS + v / CH, cc = (v % CH) * 8;
    const u32 off = red + (static_cast<u32>(r) * PITCH + cc) * 4u;
    float sum[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
#pragma unroll
    for (int q = 0; q < SPLIT; ++q) {
      const u32 a = map_cluster(off, q);
      float x[4], y[4];
      ld_cluster_v4(a, x);
      ld_cluster_v4(a + 16, y);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        sum[e] += x[e];
        sum[4 + e] += y[e];
      }
    }
    const I gm = m0 + r, gn = n0 + cc;
    if (gm >= P::M)
      continue;
    if (P::SPLIT_VEC && gn < P::N) { // N % 8 == 0: all 8 are in range
      Vec<T, 8> out;
#pragma unroll
      for (int e = 0; e < 8; ++e)
        out[e] = P::epilogue(sum[e], c, gm, gn + e);
      store_vec<8>(O + gm * P::N + gn, out);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (gn + e < P::N)
          O[gm * P::N + gn + e] = P::epilogue(sum[e], c, gm, gn + e);
    }
  }
  // The warpgroup's reads are done (their values were summed and stored),
  // so, as with a stage's release, a plain arrival says so: a cluster-scope
  // release here would wait for this tile's global stores (MEMBAR.GPU).
  named_barrier(1 + cw, 128);
  if (leader)
#pragma unroll
    for (int q = 0; q < SPLIT; ++q)
      mbar_arrive_cluster(red_done, q);
}

/// Stream-K's workspace (P::STREAM_K), in global memory: STREAM_K_FLAGS
/// u32 flags, one per (block, consumer warpgroup), then as many partial
/// tiles, each a warpgroup's accumulators with chunk j (4 f32) of thread t
/// at float4 j * 128 + t, so a warp's stores fill 512 contiguous bytes. The
/// flags are zero whenever no kernel runs: the runtime zeroes the workspace
/// once, and each flag a block raises the tile's owner lowers again.
constexpr u32 STREAM_K_FLAGS = 1024;

template <int MI, int R>
__device__ __forceinline__ float *stream_k_slab(u32 *ws, u32 slot) {
  return reinterpret_cast<float *>(ws + STREAM_K_FLAGS) +
         (static_cast<u64>(slot) * (MI * R / 4) * 128 + (threadIdx.x & 127)) *
             4;
}

/// A later share of a tile (its k tiles do not start at 0): the
/// warpgroup's partial sums go to workspace slot `slot`, and its flag says
/// they are there (a release at GPU scope after every thread's stores).
template <int MI, int R>
__device__ __forceinline__ void stream_k_publish(u32 *ws, u32 slot,
                                                 const float (&acc)[MI][R],
                                                 u32 bar, bool leader) {
  float *p = stream_k_slab<MI, R>(ws, slot);
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < R / 4; ++j)
      asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(
                       p + (i * (R / 4) + j) * 512),
                   "f"(acc[i][4 * j]), "f"(acc[i][4 * j + 1]),
                   "f"(acc[i][4 * j + 2]), "f"(acc[i][4 * j + 3])
                   : "memory");
  __threadfence();
  named_barrier(bar, 128);
  if (leader)
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(ws + slot),
                 "r"(1u)
                 : "memory");
}

/// The owner of a tile (its share starts at k tile 0) adds the partial sums
/// of slot `slot` once its flag is up, and lowers the flag again.
template <int MI, int R>
__device__ __forceinline__ void stream_k_accumulate(u32 *ws, u32 slot,
                                                    float (&acc)[MI][R],
                                                    u32 bar, bool leader) {
  if (leader) {
    u32 up = 0;
    for (;;) {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                   : "=r"(up)
                   : "l"(ws + slot)
                   : "memory");
      if (up)
        break;
      asm volatile("nanosleep.u32 32;\n");
    }
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(ws + slot),
                 "r"(0u)
                 : "memory");
  }
  named_barrier(bar, 128);
  const float *p = stream_k_slab<MI, R>(ws, slot);
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < R / 4; ++j) {
      float v[4];
      asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                   : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                   : "l"(p + (i * (R / 4) + j) * 512)
                   : "memory");
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][4 * j + e] += v[e];
    }
}

/// Output tile `t` of the grouped order: `group` tile rows at a time, column
/// by column within the group.
template <class I>
__device__ __forceinline__ void grouped_tile(I t, I mblocks, I nblocks,
                                             I group, I &mb, I &nb) {
  const I per_group = group * nblocks;
  const I first = t / per_group * group;
  const I rows = mblocks - first < group ? mblocks - first : group;
  const I in = t % per_group;
  mb = first + in % rows;
  nb = in / rows;
}

template <class P>
__device__ __forceinline__ void
wgmma_tma_gemm(const typename P::CT *__restrict__ c,
               typename P::T *__restrict__ out, const tensor_map &map_a,
               const tensor_map &map_b, const tensor_map *map_c = nullptr,
               u32 *__restrict__ ws = nullptr) {
  typedef typename P::I I;
  typedef wgmma_tma_shape<P> S;
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, STAGES = P::STAGES;
  constexpr int WM = S::WM, MI = S::MI, R = S::R;
  constexpr bool PINGPONG = pingpong_of<P>::value;
  static_assert(!PINGPONG || P::WARPGROUPS == 2, "ping-pong takes turns of 2");
  constexpr I MB = (P::M + BM - 1) / BM, NB = (P::N + BN - 1) / BN;
  constexpr int CLUSTER = S::CLUSTER, SPLIT = S::SPLIT;
  // Blocks of a cluster: multicast pairs (CLUSTER) or split-K (SPLIT).
  constexpr int CS = CLUSTER * SPLIT;
  // The units of work a cluster takes: tiles, or pairs of vertically
  // adjacent tiles (tile rows 2p and 2p + 1; the second may lie past M,
  // its loads zero-filled and its stores skipped).
  constexpr I MBU = (MB + CLUSTER - 1) / CLUSTER;
  // Batched products: the units of matrix z follow those of z - 1.
  constexpr I UNITS_Z = MBU * NB;
  constexpr I UNITS = static_cast<I>(P::BATCH) * UNITS_Z;
  constexpr I GROUP =
      P::GROUP_M / CLUSTER > 0 ? static_cast<I>(P::GROUP_M / CLUSTER) : 1;
  constexpr I KT = (P::K + BK - 1) / BK;
  static_assert(P::K > 0, "an empty K has nothing to load");
  extern __shared__ __align__(1024) u8 kiln_wgmma_smem[];
  const u32 base = (smem_addr(kiln_wgmma_smem) + 1023u) & ~1023u;
  // Stages, then the consumers' epilogue tiles, split-K's reduction
  // buffer, then the barriers.
  const u32 outs = base + STAGES * S::STAGE_BYTES;
  const u32 red = outs + P::WARPGROUPS * S::OUT_BYTES;
  const u32 bars = red + S::RED_BYTES;
  auto full = [&](u32 s) { return bars + 8 * s; };
  auto empty = [&](u32 s) { return bars + 8 * (STAGES + s); };
  const u32 red_full = bars + 16 * STAGES, red_done = red_full + 8;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), 1);
      // Every warpgroup that reads a stage frees it: all of them, or in
      // ping-pong the tile's one; in each block of the cluster.
      mbar_init(empty(s), (PINGPONG ? 1 : P::WARPGROUPS) * CLUSTER);
    }
    if (SPLIT > 1) {
      mbar_init(red_full, SPLIT * P::WARPGROUPS);
      mbar_init(red_done, SPLIT * P::WARPGROUPS);
    }
    // Make the initialized barriers visible to the copy engine (and to the
    // cluster's other block).
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if (CS > 1)
    cluster_sync();
  else
    __syncthreads();
  const int wg = threadIdx.x >> 7;
  const u32 rank = CS > 1 ? cluster_rank() : 0;
  // The block's place in a multicast pair (its tile row, its share of B),
  // and in a split (its k tiles of every tile, [kt0, kt0 + KTR)).
  const u32 mrank = CLUSTER > 1 ? rank : 0, krank = SPLIT > 1 ? rank : 0;
  const I kt0 = KT * static_cast<I>(krank) / SPLIT,
          KTR = KT * static_cast<I>(krank + 1) / SPLIT - kt0;
  // This block's units: those of its cluster, one of gridDim.x / CLUSTER.
  // (Read from %clusterid / %nclusterid: with gridDim.x / 2 instead, ptxas
  // serializes the k loop's wgmmas, warning C7514.)
  const I unit0 = static_cast<I>(CS > 1 ? cluster_id_x() : blockIdx.x),
          units_step = static_cast<I>(CS > 1 ? cluster_count_x() : gridDim.x);
  auto tile_of = [&](I u, I &z, I &mb, I &nb) {
    z = P::BATCH == 1 ? 0 : u / UNITS_Z;
    grouped_tile<I>(P::BATCH == 1 ? u : u % UNITS_Z, MBU, NB, GROUP, mb, nb);
    mb = mb * CLUSTER + mrank;
  };
  // Stream-K (P::STREAM_K): a wave of tiles more than the whole waves
  // leave over (all of them, under a wave) is cut along K: its k tiles, in
  // tile order, go to the blocks in even shares, one run each. The other
  // tiles go whole to the blocks in turn first. A tile's share that starts
  // at k tile 0 owns it: it adds the later shares' partial sums (from the
  // next blocks, which computed them first) and stores the tile.
  constexpr bool SK = stream_k_of<P>::value;
  const I blocks = static_cast<I>(gridDim.x), blk = static_cast<I>(blockIdx.x);
  const I sk_tiles = !SK || UNITS % blocks == 0 ? 0
                     : UNITS >= blocks          ? UNITS % blocks + blocks
                                                : UNITS;
  const I dp_tiles = UNITS - sk_tiles;
  const i64 sk_iters = static_cast<i64>(sk_tiles) * KT;
  // The first of block b's k tiles in the stream-K range.
  auto sk_start = [&](I b) { return sk_iters * b / blocks; };
  // This block's work in order: f(u, kb, ke) for k tiles [kb, ke) of unit
  // u (stream-K only; the other schedules keep their own loops).
  auto for_each_share = [&](auto &&f) {
    for (I u = blk; u < dp_tiles; u += blocks)
      f(u, static_cast<I>(0), static_cast<I>(KT));
    const i64 end = sk_start(blk + 1);
    for (i64 it = sk_start(blk); it < end;) {
      const I u = dp_tiles + static_cast<I>(it / KT),
              kb = static_cast<I>(it % KT);
      const I ke = static_cast<I>(end - it < KT - kb ? kb + (end - it) : KT);
      f(u, kb, ke);
      it += ke - kb;
    }
  };
  // The copies of one operand's box at (c0, c1): of its matrix c2 when the
  // product is batched (3-D maps: {inner, outer, matrices}), multicast to
  // the cluster when asked.
  auto copy = [&](u32 dst, const tensor_map *map, u32 bar, int c0, int c1,
                  int c2, bool multicast) {
    constexpr u16 ALL = (1u << CLUSTER) - 1;
    if (P::BATCH == 1) {
      if (multicast)
        tma_load_2d_multicast(dst, map, bar, c0, c1, ALL);
      else
        tma_load_2d(dst, map, bar, c0, c1);
    } else {
      if (multicast)
        tma_load_3d_multicast(dst, map, bar, c0, c1, c2, ALL);
      else
        tma_load_3d(dst, map, bar, c0, c1, c2);
    }
  };
  if (wg == 0) {
    // Producer: one thread issues every copy. Registers move to the
    // consumers only with two of them (384 threads start capped at 168);
    // with one, every thread may already hold more than an increase would
    // ask for.
    if (P::WARPGROUPS == 2)
      setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      tma_prefetch_map(&map_a);
      tma_prefetch_map(&map_b);
      u32 use = 0;
      // The copies of k tiles [kb, ke) of unit u.
      auto produce = [&](I u, I kb, I ke) {
        I z, mb, nb;
        tile_of(u, z, mb, nb);
        const int m0 = static_cast<int>(mb * BM), n0 = static_cast<int>(nb * BN);
        // The operands' matrices (P::batch's element offsets over the dense
        // matrix sizes; 0 for a broadcast operand).
        i64 oa = 0, ob = 0;
        P::batch(z, oa, ob);
        const int za = static_cast<int>(oa / (P::M * P::K)),
                  zb = static_cast<int>(ob / (P::K * P::N));
        for (I kt = kb; kt < ke; ++kt, ++use) {
          const u32 s = use % STAGES, parity = (use / STAGES) & 1;
          mbar_wait(empty(s), parity ^ 1);
          mbar_arrive_expect_tx(full(s), S::STAGE_BYTES);
          const u32 sa = base + s * S::STAGE_BYTES, sb = sa + S::A_BYTES;
          const int k0 = static_cast<int>(kt * BK);
          if (P::TRANS_A) { // [K, M]: BM / 64 blocks of 64 m x 64 k.
#pragma unroll
            for (int j = 0; j < BM / 64; ++j)
              copy(sa + j * (BK * 128), &map_a, full(s), m0 + 64 * j, k0, za,
                   false);
          } else { // [M, K]: BM rows of 64 k.
            copy(sa, &map_a, full(s), k0, m0, za, false);
          }
          // B: the whole tile, or this block's share, multicast.
          if (P::TRANS_B) { // [N, K]: BN rows of 64 k.
            constexpr int SHARE = BN / CLUSTER;
            copy(sb + mrank * SHARE * 128, &map_b, full(s), k0,
                 n0 + static_cast<int>(mrank) * SHARE, zb, CLUSTER > 1);
          } else { // [K, N]: 64-column blocks of 64 k rows.
#pragma unroll
            for (int j = 0; j < (BN + 63) / 64; ++j)
              if (j % CLUSTER == static_cast<int>(mrank))
                copy(sb + j * (BK * 128), &map_b, full(s), n0 + 64 * j, k0,
                     zb, CLUSTER > 1);
          }
        }
      };
      if constexpr (SK)
        for_each_share(produce);
      else
        for (I u = unit0; u < UNITS; u += units_step)
          produce(u, kt0, kt0 + KTR);
      // Clusters: wait until every consumer of both blocks released the
      // last STAGES uses, so their arrivals on this block's barriers have
      // landed before it exits.
      if (CLUSTER > 1)
        for (int i = 0; i < STAGES; ++i, ++use)
          mbar_wait(empty(use % STAGES), ((use / STAGES) & 1) ^ 1);
    }
    return;
  }
  // Consumers: warpgroup cw owns rows [cw * WM, (cw + 1) * WM) of the tile.
  if (P::WARPGROUPS == 2)
    setmaxnreg_inc<232>();
  // Cooperative: rows [cw * WM, (cw + 1) * WM) of every tile; ping-pong:
  // the block's tiles cw, cw + 2, ... whole.
  const int cw = wg - 1, row0 = PINGPONG ? 0 : cw * WM;
  // This warpgroup's epilogue tile (staged or TMA-store), after the stages.
  const u32 out_tile = outs + cw * S::OUT_BYTES;
  typename P::T *const staged = reinterpret_cast<typename P::T *>(
      kiln_wgmma_smem + (out_tile - smem_addr(kiln_wgmma_smem)));
  const I first = PINGPONG ? cw : 0, step = PINGPONG ? 2 : 1;
  static_assert(P::WARPGROUPS <= 2,
                "named barriers 1-2, 3-4 and 5-6 per warpgroup");
  const bool leader = (threadIdx.x & 127) == 0;
  // Frees stage s: one arrival on its empty barrier in every block of the
  // cluster.
  auto release = [&](u32 s) {
    if (CLUSTER == 1)
      mbar_arrive(empty(s));
    else
#pragma unroll
      for (int r = 0; r < CLUSTER; ++r)
        mbar_arrive_cluster(empty(s), r);
  };
  // One k step: stage `use` awaited, its wgmma group issued; returns the
  // stage.
  auto k_step = [&](float(&acc)[MI][R], u32 use) {
    const u32 s = use % STAGES, parity = (use / STAGES) & 1;
    mbar_wait(full(s), parity);
    // tf32: this warpgroup's A rows rounded first (named barrier 5 + cw),
    // under the previous step's wgmma group.
    if (S::EB == 4)
      round_a_tf32<WM>(base + s * S::STAGE_BYTES, row0, 5 + cw);
    wgmma_k_tile<P>(acc, base + s * S::STAGE_BYTES, row0);
    return s;
  };
  // `n` (>= 1) k steps from stage use `use` on, every group waited for at
  // the end and all but the last step's stage freed; returns that stage.
  // The last step is peeled: its `wait_group 0` follows its group in
  // straight-line code. Placed after the loop, ptxas 13.0 scheduled the
  // epilogue's reads of the accumulators above it, right behind the loop's
  // `wait_group 1`, while the last group still wrote them (the staged
  // swap_ab epilogue at 64 x 128 tiles, wrong on the GPU; the SASS check is
  // scripts/wgmma_hazards.py). A wait chosen by a branch in the loop makes
  // ptxas serialize the pipeline (C7517/C7518). `handover` (ping-pong): the
  // other warpgroup's k loop may start once the last group is issued,
  // before it is waited for (below).
  auto k_loop = [&](float(&acc)[MI][R], u32 &use, I n, bool handover) {
    u32 prev = 0;
    for (I kt = 0; kt + 1 < n; ++kt, ++use) {
      const u32 s = k_step(acc, use);
      // The previous step's group is done: free its stage.
      wgmma_wait_acc<1>(acc);
      if (kt > 0 && leader)
        release(prev);
      prev = s;
    }
    const u32 s = k_step(acc, use++);
    if (handover)
      named_barrier_arrive(3 + (1 - cw), 256);
    wgmma_wait_acc<0>(acc);
    if (n > 1 && leader)
      release(prev);
    return s;
  };
  // The epilogue of a whole tile (mb, nb) of output matrix O (split-K has
  // its own).
  auto store_tile = [&](const float(&acc)[MI][R], typename P::T *O, I mb,
                        I nb) {
    if constexpr (tma_store_of<P>::value)
      store_wgmma_tile_tma<P>(c, acc, out_tile, map_c, mb * BM + row0,
                              nb * BN, 1 + cw, leader);
    else if constexpr (stage_out_of<P>::value && swap_ab_of<P>::value)
      store_wgmma_tile_staged_swapped<P>(O, c, acc, staged, mb * BM + row0,
                                         nb * BN, 1 + cw);
    else if constexpr (stage_out_of<P>::value)
      store_wgmma_tile_staged<P>(O, c, acc, staged, mb * BM + row0, nb * BN,
                                 1 + cw);
    else
      store_wgmma_tile<P>(O, c, acc, mb * BM, nb * BN, row0);
  };
  if constexpr (SK) {
    u32 use = 0;
    for_each_share([&](I u, I kb, I ke) {
      I z, mb, nb;
      tile_of(u, z, mb, nb);
      float acc[MI][R];
      zero_accumulators(acc);
      const u32 prev = k_loop(acc, use, ke - kb, false);
      if (leader)
        release(prev);
      if (kb != 0) { // a later share: the owner stores the tile
        stream_k_publish(ws, static_cast<u32>(blk) * P::WARPGROUPS + cw, acc,
                         1 + cw, leader);
        return;
      }
      // The owner: the shares of the next blocks whose runs start inside
      // this tile (a block with an empty run has none).
      const i64 tile_end = static_cast<i64>(u - dp_tiles + 1) * KT;
      if (ke != KT)
        for (I b = blk + 1; b < blocks && sk_start(b) < tile_end; ++b)
          if (sk_start(b + 1) > sk_start(b))
            stream_k_accumulate(ws, static_cast<u32>(b) * P::WARPGROUPS + cw,
                                acc, 1 + cw, leader);
      store_tile(acc, out, mb, nb);
    });
  } else {
    for (I i = first, u = unit0 + first * units_step; u < UNITS;
         i += step, u += step * units_step) {
      // The block's i-th tile uses stages i * KTR .. i * KTR + KTR - 1 (the
      // producer's count; KTR = KT without split-K).
      u32 use = static_cast<u32>(i * KTR);
      I z, mb, nb;
      tile_of(u, z, mb, nb);
      typename P::T *const O = out + static_cast<i64>(z) * P::M * P::N;
      float acc[MI][R];
      zero_accumulators(acc);
      // Ping-pong: the k loops take turns (named barrier 3 + cw: "your
      // turn"), so a warpgroup never waits on a stage barrier more than one
      // phase ahead of it; a wait for the parity of a phase two ahead would
      // pass at once (the barrier's older phase has that parity). Tile i's
      // loop starts once the other warpgroup has finished tile i - 1's; the
      // epilogues overlap the other's loop.
      if (PINGPONG && i > 0)
        named_barrier(3 + cw, 256);
      // Ping-pong: the other warpgroup's k loop may start while this one's
      // last wgmma group still runs (the tensor cores take the groups in
      // order), so the hand-over leaves no gap in the tensor pipe. Every
      // arrive meets the other warpgroup's wait before its next tile. (ptxas
      // 13 keeps the wgmmas asynchronous with the bar.arrive here; no C7514.)
      const u32 prev =
          k_loop(acc, use, KTR, PINGPONG && u + units_step < UNITS);
      if (leader)
        release(prev);
      if constexpr (SPLIT > 1)
        reduce_split_tile<P>(O, c, acc, red, red_full, red_done, mb * BM,
                             nb * BN, row0, cw, krank, i, leader);
      else
        store_tile(acc, O, mb, nb);
    }
  }
  // The output copies must have landed before the block exits.
  if (tma_store_of<P>::value && leader)
    bulk_wait_all();
  // Split-K: the cluster's blocks read this block's buffer until they
  // arrive on red_done for its last tile (the cluster's tiles: units
  // unit0, unit0 + units_step, ...; at least one).
  if constexpr (SPLIT > 1)
    mbar_wait<true>(red_done,
                    static_cast<u32>((UNITS - unit0 - 1) / units_step) & 1u);
}

} // namespace mm
} // namespace kiln
