// matmul.cuh - Batched matrix products: a tensor-core path (mma.sync with
// f32 accumulation: m16n8k16 on f16/bf16, m16n8k8 on f32 operands rounded to
// tf32) and a SIMT path (any dtype).
//
// The traits struct P, generated per launch, gives:
//   T (A, B and output storage), CT (C's storage; T when there is no C),
//   Acc (SIMT accumulator), I (index type);
//   TF32: f32 operands are rounded to tf32 (cvt.rna: to nearest, ties away
//   from zero, 10 explicit mantissa bits) before they are multiplied, on
//   both paths (T float; the mma path takes f32 only with TF32);
//   M, N, K, BATCH; TRANS_A, TRANS_B (A is [K, M], B is [N, K] in memory);
//   BM, BN, BK: the block tile; WARPS_M, WARPS_N (mma); A_VEC, B_VEC: 16-byte
//   global loads are legal (contiguous extent a multiple of 16 bytes, aligned
//   base); batch(z, a, b): element offsets of batch z in A and B (the output's
//   batch z starts at z * M * N); ld(v): an A/B element as Acc (SIMT);
//   epilogue(acc, c, m, n): alpha * acc + beta * C[m, n] in the output type;
//   PAIR_STORE: N is even and the output aligned to two elements (mma stores
//   pairs);
//   OUT_VEC: N % 8 == 0 and the output 16-byte aligned (mma stores rows of
//   16 bytes);
//   STAGES (mma): shared-memory pipeline depth of the cp.async loads (2-8);
//   SMEM_BYTES (mma): 0 for static shared memory (up to 48 KiB), else the
//   launch's dynamic shared memory in bytes;
//   SPLIT (mma): blocks per output tile along K. Above 1 the kernel runs in
//   clusters of SPLIT blocks along x (__cluster_dims__), each multiplying a
//   slice of K; the partial tiles meet through distributed shared memory and
//   each block reduces and stores SPLIT-th of the rows (split-K without a
//   workspace or a second kernel, for products with too few output tiles to
//   fill the GPU).
//   IM2COL (optional, mma): B is the implicit im2col matrix of a 2-D
//   convolution's image (an implicit GEMM): row k = (c, kh, kw) of
//   C * KH * KW, column p = (oh, ow) of OH * OW, read from the image at
//   (c, oh * SH - PH + kh * DH, ow * SW - PW + kw * DW), zero outside it; P
//   then also gives H, W (the image), KH, KW, SH, SW, PH, PW, DH, DW and OW,
//   B_VEC is false and STAGES is 1 (synchronous loads) or 2 (B gathered
//   into registers a k tile ahead, A by cp.async where A_VEC).
// Out-of-range rows, columns and k are zero-filled on load and never stored,
// so any M, N, K work.
#pragma once

namespace kiln {
namespace mm {

//===----------------------------------------------------------------------===//
// SIMT: 256 threads as 16 x 16, each computing (BM / 16) x (BN / 16) outputs
// strided by 16 so shared-memory reads broadcast and stores coalesce.
//===----------------------------------------------------------------------===//

template <class P>
__device__ __forceinline__ void
simt(const typename P::T *__restrict__ a, const typename P::T *__restrict__ b,
     const typename P::CT *__restrict__ c, typename P::T *__restrict__ out) {
  typedef typename P::Acc Acc;
  typedef typename P::I I;
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK, TM = BM / 16, TN = BN / 16;
  constexpr I MB = (P::M + BM - 1) / BM;
  // +1: the transposing stores of the k-contiguous operand avoid bank
  // conflicts.
  __shared__ Acc As[BK][BM + 1];
  __shared__ Acc Bs[BK][BN + 1];
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  for (i64 z = blockIdx.z; z < P::BATCH; z += gridDim.z) {
    i64 oa, ob;
    P::batch(z, oa, ob);
    const typename P::T *A = a + oa;
    const typename P::T *B = b + ob;
    typename P::T *O = out + z * P::M * P::N;
    for (I mb = blockIdx.y; mb < MB; mb += gridDim.y) {
      const I m0 = mb * BM, n0 = static_cast<I>(blockIdx.x) * BN;
      Acc acc[TM][TN];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = Acc(0);
      for (I k0 = 0; k0 < P::K; k0 += BK) {
        // Consecutive threads take consecutive addresses of the operand's
        // contiguous axis.
        for (int e = threadIdx.x; e < BM * BK; e += 256) {
          const int mm = P::TRANS_A ? e % BM : e / BK;
          const int kk = P::TRANS_A ? e / BM : e % BK;
          const I gm = m0 + mm, gk = k0 + kk;
          As[kk][mm] =
              (gm < P::M && gk < P::K)
                  ? P::ld(A[P::TRANS_A ? gk * P::M + gm : gm * P::K + gk])
                  : Acc(0);
        }
        for (int e = threadIdx.x; e < BK * BN; e += 256) {
          const int nn = P::TRANS_B ? e / BK : e % BN;
          const int kk = P::TRANS_B ? e % BK : e / BN;
          const I gn = n0 + nn, gk = k0 + kk;
          Bs[kk][nn] =
              (gn < P::N && gk < P::K)
                  ? P::ld(B[P::TRANS_B ? gn * P::K + gk : gk * P::N + gn])
                  : Acc(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
          Acc ra[TM], rb[TN];
#pragma unroll
          for (int i = 0; i < TM; ++i)
            ra[i] = As[kk][ty + 16 * i];
#pragma unroll
          for (int j = 0; j < TN; ++j)
            rb[j] = Bs[kk][tx + 16 * j];
#pragma unroll
          for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j)
              acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const I gm = m0 + ty + 16 * i, gn = n0 + tx + 16 * j;
          if (gm < P::M && gn < P::N)
            O[gm * P::N + gn] = P::epilogue(acc[i][j], c, gm, gn);
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// Tensor cores: WARPS_M x WARPS_N warps, each owning a (BM / WARPS_M) x
// (BN / WARPS_N) tile of m16n8k16 (f16/bf16) or m16n8k8 (tf32) fragments.
// Shared tiles keep the global layout (the contiguous axis stays contiguous).
// 16-bit operands: rows padded by 8 elements so ldmatrix is conflict-free;
// ldmatrix with or without .trans turns either layout into the row-major A
// and column-major B fragments mma.sync takes. f32 operands (tf32): a
// k-contiguous tile is read by ldmatrix as 8x4 matrices of 32-bit words
// (rows padded by 4 floats); an m- or n-contiguous one, which ldmatrix
// cannot transpose at 32 bits, word by word with rows padded by 8 floats,
// so the 4 k rows x 8 columns a warp reads fall in 32 distinct banks.
//===----------------------------------------------------------------------===//

__device__ __forceinline__ u32 smem_addr(const void *p) {
  return static_cast<u32>(__cvta_generic_to_shared(p));
}
/// Four 8x8 matrices of 16-bit elements (or 8x4 of 32-bit words): thread
/// `lane` gives the address of row lane % 8 of matrix lane / 8 and receives
/// row lane / 4, 32-bit word lane % 4 of each.
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], const void *p) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(u32 (&r)[4], const u16 *p) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smem_addr(p)));
}

/// f32 bits rounded to tf32: to nearest, ties away from zero, 10 explicit
/// mantissa bits; the 13 low bits cleared (mma ignores them, SIMT must not
/// see them). The evaluator's roundToTF32 computes the same.
__device__ __forceinline__ u32 tf32_bits(u32 f32) {
  u32 r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(f32)));
  return r & 0xffffe000u;
}
/// An f32 operand as the tf32 value the tensor cores multiply (SIMT loads).
__device__ __forceinline__ float round_tf32(float v) {
  return __uint_as_float(tf32_bits(__float_as_uint(v)));
}

/// mma_op<T>::run(d, a, b0, b1): d += A * B for one warp's fragments of
/// element type T (f32: as tf32, a, b0, b1 already rounded by tf32_bits).
template <class T> struct mma_op;
#define KILN_MMA_OP(T, SHAPE_AND_TYPES)                                        \
  template <> struct mma_op<T> {                                               \
    __device__ static __forceinline__ void                                     \
    run(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {                    \
      asm volatile(                                                            \
          "mma.sync.aligned." SHAPE_AND_TYPES " "                              \
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"  \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                     \
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));     \
    }                                                                          \
  };
KILN_MMA_OP(f16, "m16n8k16.row.col.f32.f16.f16.f32")
KILN_MMA_OP(bf16, "m16n8k16.row.col.f32.bf16.bf16.f32")
KILN_MMA_OP(float, "m16n8k8.row.col.f32.tf32.tf32.f32")
#undef KILN_MMA_OP

/// How the tensor-core path holds operand type T in shared memory: as E
/// (16-bit raw bits, or f32), K_STEP deep per mma, rows padded by PAD_K
/// elements where k is contiguous and PAD_MN where m or n is (see above;
/// Heuristics.cpp sizes the shared memory with the same pads).
template <class T> struct mma_layout {
  typedef u16 E;
  static constexpr int K_STEP = 16, PAD_K = 8, PAD_MN = 8;
};
template <> struct mma_layout<float> {
  typedef float E;
  static constexpr int K_STEP = 8, PAD_K = 4, PAD_MN = 8;
};

/// Copies a ROWS x COLS tile of elements E, global (row stride ld, columns
/// contiguous) to shared (row pitch PITCH), zero-filling outside [nrows) x
/// [ncols). VEC: 16-byte loads (ncols a multiple of 16 bytes, aligned rows).
template <int ROWS, int COLS, int PITCH, int THREADS, bool VEC, class I,
          class E>
__device__ __forceinline__ void load_tile(E *s, const E *__restrict__ g, I row0,
                                          I col0, I nrows, I ncols, I ld) {
  constexpr int CHUNK = 16 / sizeof(E); // Elements per 16-byte load.
  if (VEC) {
    constexpr int CV = COLS / CHUNK;
#pragma unroll
    for (int v = threadIdx.x; v < ROWS * CV; v += THREADS) {
      const int r = v / CV, cc = (v % CV) * CHUNK;
      const I gr = row0 + r, gc = col0 + cc;
      Vec<u32, 4> val;
      val[0] = val[1] = val[2] = val[3] = 0u;
      if (gr < nrows && gc < ncols)
        val = *reinterpret_cast<const Vec<u32, 4> *>(g + gr * ld + gc);
      *reinterpret_cast<Vec<u32, 4> *>(s + r * PITCH + cc) = val;
    }
  } else {
    for (int e = threadIdx.x; e < ROWS * COLS; e += THREADS) {
      const int r = e / COLS, cc = e % COLS;
      const I gr = row0 + r, gc = col0 + cc;
      s[r * PITCH + cc] = (gr < nrows && gc < ncols) ? g[gr * ld + gc] : E(0);
    }
  }
}

/// The same copy as load_tile<VEC = true> with cp.async (16-byte chunks
/// straight to shared memory, zero-filled out of range), committed as one
/// group by the caller.
template <int ROWS, int COLS, int PITCH, int THREADS, class I, class E>
__device__ __forceinline__ void load_tile_async(E *s, const E *__restrict__ g,
                                                I row0, I col0, I nrows,
                                                I ncols, I ld) {
  constexpr int CHUNK = 16 / sizeof(E);
  constexpr int CV = COLS / CHUNK;
#pragma unroll
  for (int v = threadIdx.x; v < ROWS * CV; v += THREADS) {
    const int r = v / CV, cc = (v % CV) * CHUNK;
    const I gr = row0 + r, gc = col0 + cc;
    const bool in = gr < nrows && gc < ncols;
    // Out of range: copy 0 bytes (the chunk is zero-filled) from a valid
    // address.
    const E *src = in ? g + gr * ld + gc : g;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                     smem_addr(s + r * PITCH + cc)),
                 "l"(src), "r"(in ? 16 : 0));
  }
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/// P::IM2COL when P declares it true, else false.
template <class P, class = void> struct im2col_of {
  static constexpr bool value = false;
};
template <class P> struct im2col_of<P, decltype(void(P::IM2COL))> {
  static constexpr bool value = P::IM2COL;
};

/// The implicit GEMM's B tiles (P::IM2COL; see the file comment): the BK x
/// BN tile at (k0, p0) of image `x`'s implicit im2col matrix, zero outside
/// the image and outside [K) x [N), in two halves so that the loads of tile
/// k + 1 are in flight while the warps multiply tile k: gather_im2col loads
/// a thread's im2col_elems() elements into registers, store_im2col writes them
/// to shared memory (row pitch PITCH). Element i of a thread is tile element
/// threadIdx.x + i * THREADS (row e / BN, column e % BN): neighbouring
/// threads take neighbouring output pixels, so reads of one input row
/// coalesce, and where THREADS is a multiple of BN a thread keeps one column
/// (its pixel's window origin is computed once a tile).
template <class P, int THREADS>
__host__ __device__ constexpr int im2col_elems() {
  return (P::BK * P::BN + THREADS - 1) / THREADS;
}

template <class P, int THREADS, class I, class E>
__device__ __forceinline__ void gather_im2col(E *v, const E *__restrict__ x,
                                              I k0, I p0) {
  constexpr int BK = P::BK, BN = P::BN, ELEMS = im2col_elems<P, THREADS>();
  constexpr I TAPS = P::KH * P::KW;
  auto tap = [&](I k, I ih0, I iw0) {
    const I ci = k / TAPS, t = k % TAPS;
    const I ih = ih0 + t / P::KW * P::DH, iw = iw0 + t % P::KW * P::DW;
    return (ih >= 0 && ih < P::H && iw >= 0 && iw < P::W)
               ? x[(ci * P::H + ih) * P::W + iw]
               : E(0);
  };
  if constexpr (THREADS % BN == 0) {
    constexpr int ROWS = THREADS / BN; // Rows of the tile one pass covers.
    const int r0 = static_cast<int>(threadIdx.x) / BN;
    const I p = p0 + static_cast<int>(threadIdx.x) % BN;
    const I ih0 = p / P::OW * P::SH - P::PH, iw0 = p % P::OW * P::SW - P::PW;
#pragma unroll
    for (int i = 0; i < ELEMS; ++i) {
      const int r = r0 + i * ROWS;
      const I k = k0 + r;
      v[i] = (r < BK && k < P::K && p < P::N) ? tap(k, ih0, iw0) : E(0);
    }
  } else {
#pragma unroll
    for (int i = 0; i < ELEMS; ++i) {
      const int e = static_cast<int>(threadIdx.x) + i * THREADS;
      const I k = k0 + e / BN, p = p0 + e % BN;
      v[i] = (e < BK * BN && k < P::K && p < P::N)
                 ? tap(k, p / P::OW * P::SH - P::PH, p % P::OW * P::SW - P::PW)
                 : E(0);
    }
  }
}

template <class P, int PITCH, int THREADS, class E>
__device__ __forceinline__ void store_im2col(E *s, const E *v) {
  constexpr int BK = P::BK, BN = P::BN, ELEMS = im2col_elems<P, THREADS>();
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < ELEMS; ++i) {
    if constexpr (THREADS % BN == 0) {
      const int r = tid / BN + i * (THREADS / BN);
      if (r < BK)
        s[r * PITCH + tid % BN] = v[i];
    } else {
      const int e = tid + i * THREADS;
      if (e < BK * BN)
        s[e / BN * PITCH + e % BN] = v[i];
    }
  }
}

/// The block's operand tiles: a static array of BYTES bytes when DYN_BYTES
/// is 0, else the launch's dynamic shared memory (DYN_BYTES).
template <int BYTES, int DYN_BYTES>
__device__ __forceinline__ u8 *shared_tiles() {
  if constexpr (DYN_BYTES == 0) {
    __shared__ alignas(16) u8 tiles[BYTES];
    return tiles;
  } else {
    extern __shared__ __align__(16) u8 kiln_mm_dynamic_tiles[];
    return kiln_mm_dynamic_tiles;
  }
}

/// Every thread of every block of the cluster arrives, then waits; shared
/// memory writes before it are visible to the cluster's blocks after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}
/// The shared::cluster address of shared address `local` (this block's
/// layout) in the cluster's block `rank`.
__device__ __forceinline__ u32 map_cluster(u32 local, u32 rank) {
  u32 remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(local), "r"(rank));
  return remote;
}
/// The f32 at shared address `local` (this block's layout) in the shared
/// memory of the cluster's block `rank`.
__device__ __forceinline__ float ld_cluster_f32(u32 local, int rank) {
  const u32 remote = map_cluster(local, static_cast<u32>(rank));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];\n"
               : "=f"(v)
               : "r"(remote)
               : "memory");
  return v;
}

/// Calls f(r, c, v0, v1) for each pair of the warp's accumulator fragments:
/// tile row r, columns c and c + 1. Fragment layout: acc[..][0..1] at row
/// lane/4, columns 2*(lane%4) + {0,1}; acc[..][2..3] eight rows below.
template <int MI, int NI, class F>
__device__ __forceinline__ void for_each_pair(const float (&acc)[MI][NI][4],
                                              int wm, int wn, int lane, F f) {
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        f(wm + i * 16 + (lane >> 2) + h * 8, wn + j * 8 + (lane & 3) * 2,
          acc[i][j][2 * h], acc[i][j][2 * h + 1]);
}

/// Batch z's operands as elements E (the same size as T: raw bits) and its
/// output: A and B start at P::batch's offsets, the output at z * M * N.
template <class P, class E>
__device__ __forceinline__ void
batch_operands(i64 z, const typename P::T *__restrict__ a,
               const typename P::T *__restrict__ b, typename P::T *out,
               const E *&A, const E *&B, typename P::T *&O) {
  static_assert(sizeof(E) == sizeof(typename P::T), "raw operand elements");
  i64 oa, ob;
  P::batch(z, oa, ob);
  A = reinterpret_cast<const E *>(a + oa);
  B = reinterpret_cast<const E *>(b + ob);
  O = out + z * P::M * P::N;
}

/// Stores accumulators a0, a1 of output row gm, columns gn and gn + 1 through
/// P::epilogue; nothing outside [M) x [N). A two-element store when
/// P::PAIR_STORE (N even, so gn + 1 < N too, and the pair aligned).
template <class P, class I>
__device__ __forceinline__ void
store_pair(typename P::T *__restrict__ O, const typename P::CT *__restrict__ c,
           I gm, I gn, float a0, float a1) {
  typedef typename P::T T;
  if (gm >= P::M || gn >= P::N)
    return;
  const T v0 = P::epilogue(a0, c, gm, gn);
  if (P::PAIR_STORE) {
    Vec<T, 2> pair;
    pair[0] = v0;
    pair[1] = P::epilogue(a1, c, gm, gn + 1);
    store_vec<2>(O + gm * P::N + gn, pair);
  } else {
    O[gm * P::N + gn] = v0;
    if (gn + 1 < P::N)
      O[gm * P::N + gn + 1] = P::epilogue(a1, c, gm, gn + 1);
  }
}

/// One BK-deep step of the warp's fragments from 16-bit tiles: ldmatrix,
/// then MI x NI mma.sync m16n8k16.
template <class P, int MI, int NI, int A_PITCH, int B_PITCH>
__device__ __forceinline__ void mma_tile_step(float (&acc)[MI][NI][4],
                                              const u16 *As, const u16 *Bs,
                                              int wm, int wn, int lane) {
#pragma unroll
  for (int kk = 0; kk < P::BK; kk += 16) {
    u32 af[MI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i) {
      if (P::TRANS_A)
        ldmatrix_x4_trans(af[i],
                          As + (kk + (lane >> 4) * 8 + (lane & 7)) * A_PITCH +
                              wm + i * 16 + ((lane >> 3) & 1) * 8);
      else
        ldmatrix_x4(af[i], As + (wm + i * 16 + (lane & 15)) * A_PITCH + kk +
                               (lane >> 4) * 8);
    }
    u32 bfr[NI][2];
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
      u32 r[4];
      if (P::TRANS_B)
        ldmatrix_x4(r, Bs +
                           (wn + (j + (lane >> 4)) * 8 + (lane & 7)) * B_PITCH +
                           kk + ((lane >> 3) & 1) * 8);
      else
        ldmatrix_x4_trans(r, Bs + (kk + (lane & 15)) * B_PITCH + wn +
                                 (j + (lane >> 4)) * 8);
      bfr[j][0] = r[0];
      bfr[j][1] = r[1];
      bfr[j + 1][0] = r[2];
      bfr[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
        mma_op<typename P::T>::run(acc[i][j], af[i], bfr[j][0], bfr[j][1]);
  }
}

/// The same step from f32 tiles: tf32 fragments (m16n8k8; g = lane / 4,
/// t = lane % 4) A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8,
/// t + 4) as (m, k); B: b0 (k t, n g), b1 (k t + 4, n g). A k-contiguous
/// tile gives them by ldmatrix (8x4 words), an m/n-contiguous one word by
/// word; every word is rounded to tf32 before the mma.
template <class P, int MI, int NI, int A_PITCH, int B_PITCH>
__device__ __forceinline__ void mma_tile_step(float (&acc)[MI][NI][4],
                                              const float *As, const float *Bs,
                                              int wm, int wn, int lane) {
  const int g = lane >> 2, t = lane & 3;
  auto word = [](const float *p) { return tf32_bits(__float_as_uint(*p)); };
#pragma unroll
  for (int kk = 0; kk < P::BK; kk += 8) {
    u32 af[MI][4];
#pragma unroll
    for (int i = 0; i < MI; ++i) {
      if (P::TRANS_A) { // [BK][BM]: m contiguous.
        const float *p = As + (kk + t) * A_PITCH + wm + i * 16 + g;
        af[i][0] = word(p);
        af[i][1] = word(p + 8);
        af[i][2] = word(p + 4 * A_PITCH);
        af[i][3] = word(p + 4 * A_PITCH + 8);
      } else { // [BM][BK]: matrices (rows 0-7 | 8-15) x (k 0-3 | 4-7).
        ldmatrix_x4(af[i], As + (wm + i * 16 + (lane & 15)) * A_PITCH + kk +
                               (lane >> 4) * 4);
#pragma unroll
        for (int q = 0; q < 4; ++q)
          af[i][q] = tf32_bits(af[i][q]);
      }
    }
    u32 bfr[NI][2];
#pragma unroll
    for (int j = 0; j < NI; j += 2) {
      if (P::TRANS_B) { // [BN][BK]: matrices (n j | j + 1) x (k 0-3 | 4-7).
        u32 r[4];
        ldmatrix_x4(r, Bs +
                           (wn + (j + (lane >> 4)) * 8 + (lane & 7)) * B_PITCH +
                           kk + ((lane >> 3) & 1) * 4);
        bfr[j][0] = tf32_bits(r[0]);
        bfr[j][1] = tf32_bits(r[1]);
        bfr[j + 1][0] = tf32_bits(r[2]);
        bfr[j + 1][1] = tf32_bits(r[3]);
      } else { // [BK][BN]: n contiguous.
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float *p = Bs + (kk + t) * B_PITCH + wn + (j + h) * 8 + g;
          bfr[j + h][0] = word(p);
          bfr[j + h][1] = word(p + 4 * B_PITCH);
        }
      }
    }
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NI; ++j)
        mma_op<float>::run(acc[i][j], af[i], bfr[j][0], bfr[j][1]);
  }
}

template <class P>
__device__ __forceinline__ void tensor_core(
    const typename P::T *__restrict__ a, const typename P::T *__restrict__ b,
    const typename P::CT *__restrict__ c, typename P::T *__restrict__ out) {
  typedef typename P::T T;
  typedef typename P::I I;
  typedef mma_layout<T> L;
  typedef typename L::E E;
  static_assert(sizeof(T) == 2 || P::TF32,
                "f32 operands take the tensor cores only as tf32");
  constexpr int BM = P::BM, BN = P::BN, BK = P::BK;
  static_assert(BK % L::K_STEP == 0, "tile_k is whole mma steps");
  constexpr int THREADS = 32 * P::WARPS_M * P::WARPS_N;
  constexpr int WM = BM / P::WARPS_M, WN = BN / P::WARPS_N, MI = WM / 16,
                NI = WN / 8;
  // A as [BM][BK] (k contiguous) or [BK][BM] (TRANS_A: m contiguous);
  // B as [BK][BN] (n contiguous) or [BN][BK] (TRANS_B: k contiguous).
  constexpr int A_PITCH = P::TRANS_A ? BM + L::PAD_MN : BK + L::PAD_K;
  constexpr int B_PITCH = P::TRANS_B ? BK + L::PAD_K : BN + L::PAD_MN;
  // P::STAGES stages: with 16-byte loads legal for both operands, cp.async
  // fills up to STAGES - 1 tiles ahead while the warps multiply the oldest;
  // an implicit GEMM one or two (see its loops); else loads are
  // synchronous (and only stage 0 is used).
  constexpr bool ASYNC = P::A_VEC && P::B_VEC;
  constexpr bool IM2COL = im2col_of<P>::value;
  static_assert(!IM2COL || (!P::B_VEC && !P::TRANS_A && !P::TRANS_B &&
                             P::SPLIT == 1 && P::STAGES <= 2),
                "an implicit GEMM gathers B in one or two stages, N-major, "
                "whole K");
  constexpr int A_TILE = (P::TRANS_A ? BK : BM) * A_PITCH,
                B_TILE = (P::TRANS_B ? BN : BK) * B_PITCH;
  constexpr int STAGES = ASYNC || IM2COL ? P::STAGES : 1;
  static_assert(P::STAGES >= (IM2COL ? 1 : 2) && P::STAGES <= 8,
                "2 to 8 stages (an implicit GEMM: 1 or 2)");
  // Bytes of the operand stages.
  constexpr int OPERANDS = STAGES * (A_TILE + B_TILE) * int(sizeof(E));
  // With 16-byte output stores legal and room for it, the output tile is
  // staged through the (then idle) operand tiles so stores are whole rows
  // (OV elements a store; the pitch keeps rows 16-byte aligned).
  constexpr int OV = 16 / int(sizeof(T));
  constexpr int O_PITCH = BN + OV;
  constexpr bool STAGE_OUT =
      P::SPLIT == 1 && P::OUT_VEC && BM * O_PITCH * int(sizeof(T)) <= OPERANDS;
  // Split-K: the f32 partial tile, rows padded by 4 floats.
  constexpr int R_PITCH = BN + 4;
  constexpr int SMEM =
      P::SPLIT > 1 && 4 * BM * R_PITCH > OPERANDS ? 4 * BM * R_PITCH : OPERANDS;
  // Up to 48 KiB static shared memory; beyond, the launch's dynamic shared
  // memory (P::SMEM_BYTES, which Heuristics.cpp computes the same way).
  static_assert(P::SMEM_BYTES == 0 ? SMEM <= 48 * 1024 : SMEM <= P::SMEM_BYTES,
                "the launch's shared memory does not hold the tiles");
  u8 *smem = shared_tiles<(P::SMEM_BYTES == 0 ? SMEM : 1), P::SMEM_BYTES>();
  typedef E ATile[A_TILE];
  typedef E BTile[B_TILE];
  ATile *As = reinterpret_cast<ATile *>(smem);
  BTile *Bs = reinterpret_cast<BTile *>(smem + STAGES * sizeof(ATile));
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wm = (warp / P::WARPS_N) * WM, wn = (warp % P::WARPS_N) * WN;
  constexpr I MB = (P::M + BM - 1) / BM;
  constexpr I KT = (P::K + BK - 1) / BK;
  // This block's share of the k tiles (all of them without split-K).
  const int rank = P::SPLIT > 1 ? static_cast<int>(blockIdx.x % P::SPLIT) : 0;
  const I kb = KT * rank / P::SPLIT, ke = KT * (rank + 1) / P::SPLIT;
  for (i64 z = blockIdx.z; z < P::BATCH; z += gridDim.z) {
    const E *A, *B;
    T *O;
    batch_operands<P>(z, a, b, out, A, B, O);
    for (I mb = blockIdx.y; mb < MB; mb += gridDim.y) {
      const I m0 = mb * BM,
              n0 = static_cast<I>(blockIdx.x / P::SPLIT) * BN;
      float acc[MI][NI][4];
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NI; ++j)
#pragma unroll
          for (int q = 0; q < 4; ++q)
            acc[i][j][q] = 0.0f;
      if constexpr (IM2COL && P::STAGES == 1) {
        // One stage: each step gathers, stores and multiplies in turn (the
        // fewest registers, so the most blocks an SM).
        E bv[im2col_elems<P, THREADS>()];
        for (I k0 = kb * BK; k0 < ke * BK; k0 += BK) {
          gather_im2col<P, THREADS, I>(bv, B, k0, n0);
          load_tile<BM, BK, A_PITCH, THREADS, P::A_VEC, I>(As[0], A, m0, k0,
                                                           P::M, P::K, P::K);
          store_im2col<P, B_PITCH, THREADS>(Bs[0], bv);
          __syncthreads();
          mma_tile_step<P, MI, NI, A_PITCH, B_PITCH>(acc, As[0], Bs[0], wm,
                                                     wn, lane);
          __syncthreads();
        }
      } else if constexpr (IM2COL) {
        // Two stages: while the warps multiply tile k, the weights' tile
        // k + 1 comes by cp.async (16-byte rows) and the image's is gathered
        // into registers; both land in the other stage before the next
        // step's barrier. Without 16-byte weight rows the weights' tile is
        // loaded synchronously at the top of its step.
        E bv[im2col_elems<P, THREADS>()];
        auto weights_async = [&](int stage, I k0) {
          load_tile_async<BM, BK, A_PITCH, THREADS, I>(As[stage], A, m0, k0,
                                                       P::M, P::K, P::K);
          cp_async_commit();
        };
        gather_im2col<P, THREADS, I>(bv, B, kb * BK, n0);
        if constexpr (P::A_VEC)
          weights_async(0, kb * BK);
        for (I kt = kb; kt < ke; ++kt) {
          // Stage s was last read in step kt - 2, the other in step kt - 1;
          // every warp finished both before passing step kt - 1's barrier.
          const int st = static_cast<int>((kt - kb) & 1);
          store_im2col<P, B_PITCH, THREADS>(Bs[st], bv);
          if constexpr (P::A_VEC)
            cp_async_wait<0>(); // This thread's copies of tile kt landed.
          else
            load_tile<BM, BK, A_PITCH, THREADS, false, I>(
                As[st], A, m0, kt * BK, P::M, P::K, P::K);
          __syncthreads();
          if (kt + 1 < ke) {
            gather_im2col<P, THREADS, I>(bv, B, (kt + 1) * BK, n0);
            if constexpr (P::A_VEC)
              weights_async(st ^ 1, (kt + 1) * BK);
          }
          mma_tile_step<P, MI, NI, A_PITCH, B_PITCH>(acc, As[st], Bs[st], wm,
                                                     wn, lane);
        }
        __syncthreads(); // The operand tiles are free for the epilogue.
      } else if (ASYNC) {
        auto issue = [&](int stage, I k0) {
          if (P::TRANS_A)
            load_tile_async<BK, BM, A_PITCH, THREADS, I>(As[stage], A, k0, m0,
                                                         P::K, P::M, P::M);
          else
            load_tile_async<BM, BK, A_PITCH, THREADS, I>(As[stage], A, m0, k0,
                                                         P::M, P::K, P::K);
          if (P::TRANS_B)
            load_tile_async<BN, BK, B_PITCH, THREADS, I>(Bs[stage], B, n0, k0,
                                                         P::N, P::K, P::K);
          else
            load_tile_async<BK, BN, B_PITCH, THREADS, I>(Bs[stage], B, k0, n0,
                                                         P::K, P::N, P::N);
        };
        // Prologue: tiles kb .. kb + STAGES - 2 in flight, one commit group
        // each (possibly empty, so group counts stay per step).
#pragma unroll
        for (int st = 0; st < STAGES - 1; ++st) {
          if (kb + st < ke)
            issue(st, (kb + st) * BK);
          cp_async_commit();
        }
        int rs = 0, ws = STAGES - 1; // stage read this step, stage refilled
        for (I kt = kb; kt < ke; ++kt) {
          // Stage ws was last read in step kt - 1, which every warp finished
          // at that step's closing barrier; refilling it before waiting keeps
          // STAGES - 1 tiles in flight while step kt's lands.
          if (kt + STAGES - 1 < ke)
            issue(ws, (kt + STAGES - 1) * BK);
          cp_async_commit();           // Possibly empty: one group per step.
          cp_async_wait<STAGES - 1>(); // Step kt's group landed (this thread)
          __syncthreads();             // ... and for every thread.
          mma_tile_step<P, MI, NI, A_PITCH, B_PITCH>(acc, As[rs], Bs[rs], wm,
                                                     wn, lane);
          __syncthreads();
          rs = rs + 1 == STAGES ? 0 : rs + 1;
          ws = ws + 1 == STAGES ? 0 : ws + 1;
        }
        cp_async_wait<0>(); // Only empty groups remain.
      } else {
        for (I k0 = kb * BK; k0 < ke * BK; k0 += BK) {
          if (P::TRANS_A)
            load_tile<BK, BM, A_PITCH, THREADS, P::A_VEC, I>(As[0], A, k0, m0,
                                                             P::K, P::M, P::M);
          else
            load_tile<BM, BK, A_PITCH, THREADS, P::A_VEC, I>(As[0], A, m0, k0,
                                                             P::M, P::K, P::K);
          if (P::TRANS_B)
            load_tile<BN, BK, B_PITCH, THREADS, P::B_VEC, I>(Bs[0], B, n0, k0,
                                                             P::N, P::K, P::K);
          else
            load_tile<BK, BN, B_PITCH, THREADS, P::B_VEC, I>(Bs[0], B, k0, n0,
                                                             P::K, P::N, P::N);
          __syncthreads();
          mma_tile_step<P, MI, NI, A_PITCH, B_PITCH>(acc, As[0], Bs[0], wm, wn,
                                                     lane);
          __syncthreads();
        }
      }
      if (P::SPLIT > 1) {
        // Every warp finished with the operand tiles at the k loop's last
        // barrier: the partial tile goes to shared memory, the cluster
        // meets, and this block sums its rows over every block's tile.
        float *Rs = reinterpret_cast<float *>(smem);
        for_each_pair(acc, wm, wn, lane, [&](int r, int cc, float v0, float v1) {
          Rs[r * R_PITCH + cc] = v0;
          Rs[r * R_PITCH + cc + 1] = v1;
        });
        cluster_sync();
        constexpr int ROWS = BM / P::SPLIT;
        for (int e = threadIdx.x; e < ROWS * BN; e += THREADS) {
          const int r = rank * ROWS + e / BN, cc = e % BN;
          const I gm = m0 + r, gn = n0 + cc;
          const u32 local = smem_addr(Rs + r * R_PITCH + cc);
          float sum = 0.0f;
#pragma unroll
          for (int q = 0; q < P::SPLIT; ++q)
            sum += ld_cluster_f32(local, q);
          if (gm < P::M && gn < P::N)
            O[gm * P::N + gn] = P::epilogue(sum, c, gm, gn);
        }
        cluster_sync(); // Peers may still read this block's tile until here.
        continue;
      }
      if (STAGE_OUT) {
        // Every warp finished reading the operand tiles at the k loop's last
        // barrier. Pairs go to shared memory (conflict-free: the pitch is 4
        // banks off a multiple of 32), then 16-byte rows to global memory.
        T *Os = reinterpret_cast<T *>(smem);
        for_each_pair(acc, wm, wn, lane, [&](int r, int cc, float v0, float v1) {
          const I gm = m0 + r, gn = n0 + cc;
          Vec<T, 2> pair;
          pair[0] = pair[1] = T{};
          if (gm < P::M && gn < P::N) { // N even: gn + 1 < N too
            pair[0] = P::epilogue(v0, c, gm, gn);
            pair[1] = P::epilogue(v1, c, gm, gn + 1);
          }
          store_vec<2>(Os + r * O_PITCH + cc, pair);
        });
        __syncthreads();
        for (int v = threadIdx.x; v < BM * BN / OV; v += THREADS) {
          const int r = v / (BN / OV), cc = (v % (BN / OV)) * OV;
          const I gm = m0 + r, gn = n0 + cc;
          if (gm < P::M && gn < P::N)
            store_vec<OV>(O + gm * P::N + gn,
                          load_vec<OV>(Os + r * O_PITCH + cc));
        }
        __syncthreads(); // The next tile reuses the shared memory.
        continue;
      }
      for_each_pair(acc, wm, wn, lane, [&](int r, int cc, float a0, float a1) {
        const I gm = m0 + r, gn = n0 + cc;
        store_pair<P>(O, c, gm, gn, a0, a1);
      });
    }
  }
}

} // namespace mm
} // namespace kiln
