// reduce.cuh - Row and column reductions, softmax and layer norm.
//
// Each template takes a traits struct P that the emitter generates per launch
// with the shapes baked in:
//   reductions:  In, Out, Acc; OUT (outputs), R (elements per output), BLOCK,
//                VEC (row: > 1 when rows are contiguous, R % VEC == 0,
//                aligned); base(o) / roff(j): input offsets of output o and of
//                its j-th reduced element; init(), combine(a, b), load(v),
//                finish(acc).
//   softmax:     In (= Out), C (compute type); OUTER, LEN, INNER, BLOCK, LOG,
//                VEC (row: LEN % VEC == 0, input and output VEC-aligned);
//                row: TEAM (threads per row), ITEMS (vectors each thread
//                holds; 0: stream the row once per pass);
//   layer norm:  In, S, B (scale/bias types), C; ROWS, N, BLOCK, HAS_BIAS, VEC,
//                TEAM, ITEMS (as softmax); eps(); sidx(j) / bidx(j): scale and
//                bias offsets of the row's j-th element; SVEC / BVEC: scale /
//                bias run contiguously along the row, VEC-aligned.
// "row" variants give each output a block (threads stride over its elements,
// partial results meet through warp shuffles; softmax and layer norm give a
// row a team of threads, see team_reduce); "col" variants give each
// output a thread, which is coalesced when neighbouring outputs are
// neighbours in memory. Floats accumulate in f32 (f64 for f64).
#pragma once

namespace kiln {
namespace red {

/// P::combine as a functor (inlines where a function pointer might not).
template <class P> struct Combine {
  __device__ __forceinline__ typename P::Acc
  operator()(typename P::Acc a, typename P::Acc b) const {
    return P::combine(a, b);
  }
};
struct MaxPlain {
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    return b > a ? b : a;
  }
};
/// max for softmax's row maximum in one instruction (fmaxf): as MaxPlain a
/// NaN never wins (the running maximum is never NaN); they differ only in
/// which zero wins between -0 and +0, which changes no output (x - max then
/// differs only in the sign of a zero, and exp(+-0) = 1; log-softmax's
/// d - log(sum) could only show it if the sum were 1, but a row holding
/// both zeros sums to at least 2).
struct MaxNum {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return fmaxf(a, b);
  }
  __device__ __forceinline__ double operator()(double a, double b) const {
    return fmax(a, b);
  }
};
struct MinNum {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return fminf(a, b);
  }
  __device__ __forceinline__ double operator()(double a, double b) const {
    return fmin(a, b);
  }
};
struct AddPlain {
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    return a + b;
  }
};

template <class P>
__device__ __forceinline__ void row(const typename P::In *__restrict__ in,
                                    typename P::Out *__restrict__ out) {
  typedef typename P::Acc Acc;
  __shared__ Acc scratch[32];
  for (i64 o = blockIdx.x; o < P::OUT; o += gridDim.x) {
    const auto b = P::base(o);
    Acc acc = P::init();
    if (P::VEC > 1) {
      // Contiguous rows of R % VEC == 0 elements from an aligned base.
      for (i64 j = threadIdx.x * P::VEC; j < P::R; j += P::BLOCK * P::VEC) {
        const Vec<typename P::In, P::VEC> v = load_vec<P::VEC>(in + b + j);
#pragma unroll
        for (int e = 0; e < P::VEC; ++e)
          acc = P::combine(acc, P::load(v[e]));
      }
    } else {
      for (i64 j = threadIdx.x; j < P::R; j += P::BLOCK)
        acc = P::combine(acc, P::load(in[b + P::roff(j)]));
    }
    acc = block_reduce<P::BLOCK>(acc, scratch, Combine<P>());
    if (threadIdx.x == 0)
      out[o] = P::finish(acc);
  }
}

template <class P>
__device__ __forceinline__ void col(const typename P::In *__restrict__ in,
                                    typename P::Out *__restrict__ out) {
  typedef typename P::Acc Acc;
  for_each_index(P::OUT, [&](i64 o) {
    const auto b = P::base(o);
    Acc acc = P::init();
    for (i64 j = 0; j < P::R; ++j)
      acc = P::combine(acc, P::load(in[b + P::roff(j)]));
    out[o] = P::finish(acc);
  });
}

__device__ __forceinline__ float exp_c(float v) { return expf(v); }
__device__ __forceinline__ double exp_c(double v) { return exp(v); }
__device__ __forceinline__ float log_c(float v) { return logf(v); }
__device__ __forceinline__ double log_c(double v) { return log(v); }
__device__ __forceinline__ float sqrt_c(float v) { return sqrtf(v); }
__device__ __forceinline__ double sqrt_c(double v) { return sqrt(v); }
template <class C> __device__ __forceinline__ C neg_inf() {
  return -__int_as_float(0x7f800000);
}
template <> __device__ __forceinline__ double neg_inf<double>() {
  return -__longlong_as_double(0x7ff0000000000000LL);
}

/// Rows of a row kernel (softmax_row, layer_norm) are spread over teams of
/// P::TEAM threads: TEAM <= 32 (a power of two) is an aligned lane group of
/// one warp, and a block of BLOCK threads works on BLOCK / TEAM rows at once;
/// TEAM > 32 is the whole block (TEAM == BLOCK). Lane `l` of a team reads
/// the row's vectors l, l + TEAM, l + 2 * TEAM, ...
///
/// With P::ITEMS > 0 the row is read once: each lane holds its ITEMS vectors
/// in registers through every pass (ITEMS = ceil(LEN / VEC / TEAM), a small
/// constant). With ITEMS == 0 (rows too long for registers) each pass
/// streams the row again (from L1/L2 for rows of a few KiB).
///
/// Combines `v` over the thread's team; every thread of the block calls it
/// (the whole-block form has barriers). The combine order is a xor butterfly
/// inside the warp, then the warps in order, as block_reduce.
template <int TEAM, int BLOCK, class T, class F>
__device__ __forceinline__ T team_reduce(T v, T *scratch, F combine) {
  if constexpr (TEAM > 32) {
    return block_reduce<BLOCK>(v, scratch, combine);
  } else {
#pragma unroll
    for (int d = TEAM / 2; d > 0; d >>= 1)
      v = combine(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
  }
}

/// Whether vector `i` of a lane's ITEMS exists in a row of NV vectors: all but
/// the last always do (ITEMS = ceil(NV / TEAM)); the last only for the first
/// NV % TEAM lanes unless TEAM divides NV.
template <i64 NV, int TEAM, int ITEMS>
__device__ __forceinline__ bool held_item(int i, int lane) {
  return i < ITEMS - 1 || NV % TEAM == 0 ||
         static_cast<i64>(i) * TEAM + lane < NV;
}

/// Softmax quotients exp(x - max) / s, s >= 1 (the maximum contributes
/// exp(0)). f32 divides through FastDiv when every numerator of the thread
/// is in [2^-64, 1] and s <= 2^32 (amin: the thread's smallest numerator),
/// giving the quotients a / s gives; f64 always divides.
template <class C> struct PlainDiv {
  C s;
  __device__ __forceinline__ C operator()(C a) const { return a / s; }
};
__device__ __forceinline__ bool fast_div_ok(float amin, float s) {
  return amin >= 0x1p-64f && s <= 0x1p32f; // false for NaN
}
__device__ __forceinline__ bool fast_div_ok(double, double) { return false; }
__device__ __forceinline__ FastDiv fast_div_of(float s) { return FastDiv(s); }
__device__ __forceinline__ PlainDiv<double> fast_div_of(double s) {
  return {s};
}

/// Rows handed to teams of TEAM threads (a lane group of one warp, several
/// rows to a block, or the whole block): calls f(r, lane, live) for each of
/// this block's rows. Every thread runs the same trips (team reductions may
/// synchronize); a team past the last row gets live == false and must store
/// nothing.
template <int BLOCK, int TEAM, class F>
__device__ __forceinline__ void for_each_team_row(i64 rows, F f) {
  static_assert(BLOCK % TEAM == 0 && (TEAM <= 32 || TEAM == BLOCK),
                "a team is a lane group of one warp or the whole block");
  constexpr int RPB = BLOCK / TEAM;
  const int lane = TEAM == BLOCK ? threadIdx.x : threadIdx.x % TEAM;
  const int team = TEAM == BLOCK ? 0 : threadIdx.x / TEAM;
  for (i64 r0 = static_cast<i64>(blockIdx.x) * RPB; r0 < rows;
       r0 += static_cast<i64>(gridDim.x) * RPB) {
    const i64 r = r0 + team;
    f(r, lane, RPB == 1 || r < rows);
  }
}

/// Softmax (or log-softmax) of rows of LEN contiguous elements (INNER == 1):
/// max, then the sum of exp(x - max), then exp(x - max) / sum (log:
/// x - max - log(sum)).
template <class P>
__device__ __forceinline__ void
softmax_row(const typename P::In *__restrict__ in,
            typename P::In *__restrict__ out) {
  typedef typename P::C C;
  typedef typename P::In T;
  constexpr int V = P::VEC; // LEN % V == 0 and both buffers V-aligned
  constexpr int TEAM = P::TEAM, ITEMS = P::ITEMS;
  constexpr i64 NV = P::LEN / V;
  __shared__ C scratch[32];
  for_each_team_row<P::BLOCK, TEAM>(P::OUTER, [&](i64 r, int lane, bool live) {
    const T *x = in + r * P::LEN;
    T *y = out + r * P::LEN;
    // Like the evaluator's std::max: NaN never becomes the maximum (it still
    // poisons the sum below).
    C m = neg_inf<C>();
    if constexpr (ITEMS > 0) {
      Vec<T, V> v[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane))
          v[i] = load_vec<V>(x + (i * TEAM + lane) * V);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane))
#pragma unroll
          for (int e = 0; e < V; ++e)
            m = MaxNum()(m, to_compute(v[i][e]));
      m = team_reduce<TEAM, P::BLOCK>(m, scratch, MaxNum());
      C s = C(0), amin = C(1);
      C ex[ITEMS][V]; // exp(x - max), kept for the outputs (unused by LOG)
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane))
#pragma unroll
          for (int e = 0; e < V; ++e) {
            ex[i][e] = exp_c(to_compute(v[i][e]) - m);
            s += ex[i][e];
            amin = MinNum()(amin, ex[i][e]); // a NaN shows in s
          }
      s = team_reduce<TEAM, P::BLOCK>(s, scratch, AddPlain());
      // out(i, e): the stored value of element e of vector i.
      auto store = [&](auto out) {
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
          if (live && held_item<NV, TEAM, ITEMS>(i, lane)) {
            Vec<T, V> o;
#pragma unroll
            for (int e = 0; e < V; ++e)
              o[e] = from_compute<T>(out(i, e));
            store_vec<V>(y + (i * TEAM + lane) * V, o);
          }
      };
      if constexpr (P::LOG) {
        const C logSum = log_c(s);
        store([&](int i, int e) { return (to_compute(v[i][e]) - m) - logSum; });
      } else if (fast_div_ok(amin, s)) {
        const auto q = fast_div_of(s);
        store([&](int i, int e) { return q(ex[i][e]); });
      } else {
        store([&](int i, int e) { return ex[i][e] / s; });
      }
    } else {
      const i64 first = live ? static_cast<i64>(lane) * V : P::LEN;
      for (i64 j = first; j < P::LEN; j += TEAM * V) {
        const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
        for (int e = 0; e < V; ++e)
          m = MaxPlain()(m, to_compute(v[e]));
      }
      m = team_reduce<TEAM, P::BLOCK>(m, scratch, MaxPlain());
      C s = C(0);
      for (i64 j = first; j < P::LEN; j += TEAM * V) {
        const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
        for (int e = 0; e < V; ++e)
          s += exp_c(to_compute(v[e]) - m);
      }
      s = team_reduce<TEAM, P::BLOCK>(s, scratch, AddPlain());
      const C logSum = log_c(s);
      for (i64 j = first; j < P::LEN; j += TEAM * V) {
        const Vec<T, V> v = load_vec<V>(x + j);
        Vec<T, V> o;
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const C d = to_compute(v[e]) - m;
          o[e] = from_compute<T>(P::LOG ? d - logSum : exp_c(d) / s);
        }
        store_vec<V>(y + j, o);
      }
    }
  });
}

/// Softmax along an axis with INNER > 1: a thread per (outer, inner) pair
/// walks its LEN elements at stride INNER (coalesced across the threads).
template <class P>
__device__ __forceinline__ void
softmax_col(const typename P::In *__restrict__ in,
            typename P::In *__restrict__ out) {
  typedef typename P::C C;
  for_each_index(P::OUTER * P::INNER, [&](i64 t) {
    const i64 o = t / P::INNER, i = t - o * P::INNER;
    const i64 base = o * P::LEN * P::INNER + i;
    C m = neg_inf<C>();
    for (i64 j = 0; j < P::LEN; ++j)
      m = MaxPlain()(m, to_compute(in[base + j * P::INNER]));
    C s = C(0);
    for (i64 j = 0; j < P::LEN; ++j)
      s += exp_c(to_compute(in[base + j * P::INNER]) - m);
    const C logSum = log_c(s);
    for (i64 j = 0; j < P::LEN; ++j) {
      const C d = to_compute(in[base + j * P::INNER]) - m;
      out[base + j * P::INNER] =
          from_compute<typename P::In>(P::LOG ? d - logSum : exp_c(d) / s);
    }
  });
}

/// The layer-norm outputs (x - mean) * inv * scale (+ bias) of the V
/// elements of `v`, elements j .. j + V - 1 of the row. Scale and bias come
/// as vectors when they run contiguously along the row (P::SVEC / P::BVEC),
/// else element by element through sidx / bidx.
template <class P, int V>
__device__ __forceinline__ Vec<typename P::In, V>
layer_norm_out(const Vec<typename P::In, V> &v, i64 j, typename P::C mean,
               typename P::C inv, const typename P::S *__restrict__ scale,
               const typename P::B *__restrict__ bias) {
  typedef typename P::C C;
  Vec<typename P::S, V> sv;
  Vec<typename P::B, V> bv;
  if constexpr (P::SVEC) {
    sv = load_vec<V>(scale + j);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      sv[e] = scale[P::sidx(j + e)];
  }
  if constexpr (P::HAS_BIAS) {
    if constexpr (P::BVEC) {
      bv = load_vec<V>(bias + j);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        bv[e] = bias[P::bidx(j + e)];
    }
  }
  Vec<typename P::In, V> o;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    C t = (to_compute(v[e]) - mean) * inv * P::ld_scale(sv[e]);
    if constexpr (P::HAS_BIAS)
      t += P::ld_bias(bv[e]);
    o[e] = from_compute<typename P::In>(t);
  }
  return o;
}

/// Layer norm of rows of N contiguous elements: mean, then the variance of
/// (x - mean) as a second reduction (as the evaluator), then the outputs.
/// RMS: the mean square about zero (no mean pass). Rows spread over teams as
/// softmax_row's; with ITEMS > 0 each row is read once.
template <class P>
__device__ __forceinline__ void
layer_norm(const typename P::In *__restrict__ in,
           const typename P::S *__restrict__ scale,
           const typename P::B *__restrict__ bias,
           typename P::In *__restrict__ out) {
  typedef typename P::C C;
  typedef typename P::In T;
  constexpr int V = P::VEC; // N % V == 0 and both buffers V-aligned
  constexpr int TEAM = P::TEAM, ITEMS = P::ITEMS;
  constexpr i64 NV = P::N / V;
  __shared__ C scratch[32];
  for_each_team_row<P::BLOCK, TEAM>(P::ROWS, [&](i64 r, int lane, bool live) {
    const T *x = in + r * P::N;
    T *y = out + r * P::N;
    C mean = C(0); // RMS: the mean square is taken about zero
    if constexpr (ITEMS > 0) {
      Vec<T, V> v[ITEMS];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane))
          v[i] = load_vec<V>(x + (i * TEAM + lane) * V);
      if constexpr (!P::RMS) {
        C s = C(0);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i)
          if (live && held_item<NV, TEAM, ITEMS>(i, lane))
#pragma unroll
            for (int e = 0; e < V; ++e)
              s += to_compute(v[i][e]);
        mean = team_reduce<TEAM, P::BLOCK>(s, scratch, AddPlain()) / C(P::N);
      }
      C q = C(0);
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane))
#pragma unroll
          for (int e = 0; e < V; ++e) {
            const C d = to_compute(v[i][e]) - mean;
            q += d * d;
          }
      const C var =
          team_reduce<TEAM, P::BLOCK>(q, scratch, AddPlain()) / C(P::N);
      const C inv = C(1) / sqrt_c(var + P::eps());
#pragma unroll
      for (int i = 0; i < ITEMS; ++i)
        if (live && held_item<NV, TEAM, ITEMS>(i, lane)) {
          const int j = (i * TEAM + lane) * V;
          store_vec<V>(y + j,
                       layer_norm_out<P, V>(v[i], j, mean, inv, scale, bias));
        }
    } else {
      const i64 first = live ? static_cast<i64>(lane) * V : P::N;
      if constexpr (!P::RMS) {
        C s = C(0);
        for (i64 j = first; j < P::N; j += TEAM * V) {
          const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
          for (int e = 0; e < V; ++e)
            s += to_compute(v[e]);
        }
        mean = team_reduce<TEAM, P::BLOCK>(s, scratch, AddPlain()) / C(P::N);
      }
      C q = C(0);
      for (i64 j = first; j < P::N; j += TEAM * V) {
        const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const C d = to_compute(v[e]) - mean;
          q += d * d;
        }
      }
      const C var =
          team_reduce<TEAM, P::BLOCK>(q, scratch, AddPlain()) / C(P::N);
      const C inv = C(1) / sqrt_c(var + P::eps());
      for (i64 j = first; j < P::N; j += TEAM * V)
        store_vec<V>(y + j, layer_norm_out<P, V>(load_vec<V>(x + j), j, mean,
                                                 inv, scale, bias));
    }
  });
}

} // namespace red
} // namespace kiln
