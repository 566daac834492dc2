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
//   layer norm:  In, S, B (scale/bias types), C; ROWS, N, BLOCK, HAS_BIAS, VEC;
//                eps(); sidx(j) / bidx(j): scale and bias offsets of the
//                row's j-th element.
// "row" variants give each output a block (threads stride over its elements,
// partial results meet through warp shuffles); "col" variants give each
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

/// Softmax (or log-softmax) of rows of LEN contiguous elements (INNER == 1):
/// max, then the sum of exp(x - max), then the outputs; each pass re-reads
/// the row (from L1/L2 for rows of a few KiB).
template <class P>
__device__ __forceinline__ void
softmax_row(const typename P::In *__restrict__ in,
            typename P::In *__restrict__ out) {
  typedef typename P::C C;
  typedef typename P::In T;
  constexpr int V = P::VEC; // LEN % V == 0 and both buffers V-aligned
  __shared__ C scratch[32];
  for (i64 r = blockIdx.x; r < P::OUTER; r += gridDim.x) {
    const T *x = in + r * P::LEN;
    T *y = out + r * P::LEN;
    // Like the evaluator's std::max: NaN never becomes the maximum (it still
    // poisons the sum below).
    C m = neg_inf<C>();
    for (i64 j = threadIdx.x * V; j < P::LEN; j += P::BLOCK * V) {
      const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
      for (int e = 0; e < V; ++e)
        m = MaxPlain()(m, to_compute(v[e]));
    }
    m = block_reduce<P::BLOCK>(m, scratch, MaxPlain());
    C s = C(0);
    for (i64 j = threadIdx.x * V; j < P::LEN; j += P::BLOCK * V) {
      const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
      for (int e = 0; e < V; ++e)
        s += exp_c(to_compute(v[e]) - m);
    }
    s = block_reduce<P::BLOCK>(s, scratch, AddPlain());
    const C logSum = log_c(s);
    for (i64 j = threadIdx.x * V; j < P::LEN; j += P::BLOCK * V) {
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

/// Layer norm of rows of N contiguous elements: mean, then the variance of
/// (x - mean) (two passes, as the evaluator), then the outputs.
template <class P>
__device__ __forceinline__ void
layer_norm(const typename P::In *__restrict__ in,
           const typename P::S *__restrict__ scale,
           const typename P::B *__restrict__ bias,
           typename P::In *__restrict__ out) {
  typedef typename P::C C;
  typedef typename P::In T;
  constexpr int V = P::VEC; // N % V == 0 and both buffers V-aligned
  __shared__ C scratch[32];
  for (i64 r = blockIdx.x; r < P::ROWS; r += gridDim.x) {
    const T *x = in + r * P::N;
    T *y = out + r * P::N;
    C mean = C(0); // RMS: the mean square is taken about zero
    if (!P::RMS) {
      C s = C(0);
      for (i64 j = threadIdx.x * V; j < P::N; j += P::BLOCK * V) {
        const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
        for (int e = 0; e < V; ++e)
          s += to_compute(v[e]);
      }
      mean = block_reduce<P::BLOCK>(s, scratch, AddPlain()) / C(P::N);
    }
    C q = C(0);
    for (i64 j = threadIdx.x * V; j < P::N; j += P::BLOCK * V) {
      const Vec<T, V> v = load_vec<V>(x + j);
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const C d = to_compute(v[e]) - mean;
        q += d * d;
      }
    }
    const C var = block_reduce<P::BLOCK>(q, scratch, AddPlain()) / C(P::N);
    const C inv = C(1) / sqrt_c(var + P::eps());
    for (i64 j = threadIdx.x * V; j < P::N; j += P::BLOCK * V) {
      const Vec<T, V> v = load_vec<V>(x + j);
      Vec<T, V> o;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        C t = (to_compute(v[e]) - mean) * inv *
              P::ld_scale(scale[P::sidx(j + e)]);
        if (P::HAS_BIAS)
          t += P::ld_bias(bias[P::bidx(j + e)]);
        o[e] = from_compute<T>(t);
      }
      store_vec<V>(y + j, o);
    }
  }
}

} // namespace red
} // namespace kiln
