// common.cuh - Kiln's CUDA kernel library: scalar types, conversions, vector
// access, math with the reference evaluator's semantics, block reductions.
//
// Every generated kernel starts with this file. It needs no CUDA toolkit
// header: f16 and bf16 are Kiln's own 16-bit types converted with PTX `cvt`
// (round to nearest even), so NVRTC compiles kernels without include paths.
// Floats compute in f32 (f16/bf16/f32) or f64 (f64); integers wrap like the
// evaluator (arithmetic through the unsigned type of the same width).
#pragma once

namespace kiln {

typedef long long i64;
typedef unsigned long long u64;
typedef int i32;
typedef unsigned int u32;
typedef short i16;
typedef unsigned short u16;
typedef signed char i8;
typedef unsigned char u8;

struct alignas(2) f16 {
  u16 bits;
};
struct alignas(2) bf16 {
  u16 bits;
};

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// The first statement of every Kiln kernel (CudaEmitter.cpp adds it):
/// under a programmatic dependent launch (sm_90+) the kernel may start while
/// the previous kernel of the stream still runs; wait until that grid has
/// finished and its memory is visible, then let the next kernel launch (its
/// blocks fill the SMs this one leaves idle and wait the same way). Without
/// such a launch both are no-ops.
__device__ __forceinline__ void grid_dependency_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// f16 add, subtract and multiply in one f16 instruction each: the same
/// results as the f32 operation rounded to f16 (the evaluator's and the
/// unfused kernels' semantics). The f32 product of two f16 values is exact
/// (22 bits); their f32 sum is exact unless the exponents differ by more
/// than 13, and then the smaller addend is below an eighth of the larger's
/// f16 ulp, so both roundings return the larger. (Checked against
/// round(f64) on 229M random and near-cancelling pairs.) Fused programs use
/// them for f16 steps (EmitElementwise.cpp): a matmul epilogue's bias add is
/// then one instruction, not a conversion, an add and a rounding.
__device__ __forceinline__ f16 add_f16(f16 a, f16 b) {
  f16 r;
  asm("add.rn.f16 %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));
  return r;
}
__device__ __forceinline__ f16 sub_f16(f16 a, f16 b) {
  f16 r;
  asm("sub.rn.f16 %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));
  return r;
}
__device__ __forceinline__ f16 mul_f16(f16 a, f16 b) {
  f16 r;
  asm("mul.rn.f16 %0, %1, %2;" : "=h"(r.bits) : "h"(a.bits), "h"(b.bits));
  return r;
}

__device__ __forceinline__ float f16_to_f32(f16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
__device__ __forceinline__ f16 f32_to_f16(float f) {
  f16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}
__device__ __forceinline__ float bf16_to_f32(bf16 b) {
  return __uint_as_float(static_cast<u32>(b.bits) << 16);
}
__device__ __forceinline__ bf16 f32_to_bf16(float f) {
  bf16 b;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b.bits) : "f"(f));
  return b;
}

/// The type a float dtype computes in: f32 for f16/bf16/f32, f64 for f64.
template <class T> struct compute { typedef float type; };
template <> struct compute<double> { typedef double type; };

/// Value of a float-typed element in its compute type.
__device__ __forceinline__ float to_compute(f16 v) { return f16_to_f32(v); }
__device__ __forceinline__ float to_compute(bf16 v) { return bf16_to_f32(v); }
__device__ __forceinline__ float to_compute(float v) { return v; }
__device__ __forceinline__ double to_compute(double v) { return v; }

/// Rounds a compute value to the storage type T (floats only).
template <class T> __device__ __forceinline__ T from_compute(float v);
template <> __device__ __forceinline__ f16 from_compute<f16>(float v) {
  return f32_to_f16(v);
}
template <> __device__ __forceinline__ bf16 from_compute<bf16>(float v) {
  return f32_to_bf16(v);
}
template <> __device__ __forceinline__ float from_compute<float>(float v) {
  return v;
}
template <> __device__ __forceinline__ double from_compute<double>(float v) {
  return v;
}
template <class T> __device__ __forceinline__ T from_compute(double v) {
  // f64 -> f16/bf16 rounds through f32, exactly as the evaluator does.
  return from_compute<T>(static_cast<float>(v));
}
template <> __device__ __forceinline__ double from_compute<double>(double v) {
  return v;
}

/// A double rounded to the precision of float type T, in T's compute type
/// (used for constants such as clip bounds).
template <class T>
__device__ __forceinline__ typename compute<T>::type round_const(double v) {
  return to_compute(from_compute<T>(v));
}

/// Any element as a double (ints exactly when they fit; unsigned as unsigned).
__device__ __forceinline__ double as_double(f16 v) { return f16_to_f32(v); }
__device__ __forceinline__ double as_double(bf16 v) { return bf16_to_f32(v); }
__device__ __forceinline__ double as_double(float v) { return v; }
__device__ __forceinline__ double as_double(double v) { return v; }
__device__ __forceinline__ double as_double(bool v) { return v ? 1.0 : 0.0; }
__device__ __forceinline__ double as_double(i8 v) { return v; }
__device__ __forceinline__ double as_double(i16 v) { return v; }
__device__ __forceinline__ double as_double(i32 v) { return v; }
__device__ __forceinline__ double as_double(i64 v) {
  return static_cast<double>(v);
}
__device__ __forceinline__ double as_double(u8 v) { return v; }
__device__ __forceinline__ double as_double(u16 v) { return v; }
__device__ __forceinline__ double as_double(u32 v) { return v; }
__device__ __forceinline__ double as_double(u64 v) {
  return static_cast<double>(v);
}

/// Integer type traits.
template <class T> struct int_traits;
#define KILN_INT_TRAITS(T, U, S, LO, HI)                                       \
  template <> struct int_traits<T> {                                           \
    typedef U unsigned_type;                                                   \
    static constexpr bool is_signed = S;                                       \
    __device__ static constexpr T lowest() { return LO; }                      \
    __device__ static constexpr T highest() { return HI; }                     \
  };
KILN_INT_TRAITS(i8, u8, true, -128, 127)
KILN_INT_TRAITS(i16, u16, true, -32768, 32767)
KILN_INT_TRAITS(i32, u32, true, (-2147483647 - 1), 2147483647)
KILN_INT_TRAITS(i64, u64, true, (-9223372036854775807LL - 1),
                9223372036854775807LL)
KILN_INT_TRAITS(u8, u8, false, 0, 255)
KILN_INT_TRAITS(u16, u16, false, 0, 65535)
KILN_INT_TRAITS(u32, u32, false, 0u, 4294967295u)
KILN_INT_TRAITS(u64, u64, false, 0ull, 18446744073709551615ull)
KILN_INT_TRAITS(bool, u8, false, false, true)
#undef KILN_INT_TRAITS

/// ONNX Cast of a float to an integer type: truncate toward zero, saturate,
/// NaN -> 0 (the evaluator's castFloatToInt).
template <class T> __device__ __forceinline__ T float_to_int(double v) {
  if (v != v)
    return T(0);
  v = trunc(v);
  const double lo = static_cast<double>(int_traits<T>::lowest());
  // 2^w (unsigned) or 2^(w-1) (signed): the first value above the range.
  const double hi = int_traits<T>::is_signed
                        ? -lo
                        : static_cast<double>(int_traits<T>::highest()) + 1.0;
  if (v <= lo)
    return int_traits<T>::lowest();
  if (v >= hi)
    return int_traits<T>::highest();
  return static_cast<T>(v);
}
template <> __device__ __forceinline__ bool float_to_int<bool>(double v) {
  return v != 0.0;
}

/// Conversion of any element to any element type with ONNX Cast semantics.
template <class To> struct convert {
  // Integer targets.
  template <class From> __device__ static To from(From v) {
    return float_to_int<To>(as_double(v));
  }
  __device__ static To from(bool v) { return static_cast<To>(v ? 1 : 0); }
#define KILN_INT_FROM(F)                                                       \
  __device__ static To from(F v) { return static_cast<To>(v); }
  KILN_INT_FROM(i8)
  KILN_INT_FROM(i16) KILN_INT_FROM(i32) KILN_INT_FROM(i64) KILN_INT_FROM(u8)
      KILN_INT_FROM(u16) KILN_INT_FROM(u32) KILN_INT_FROM(u64)
#undef KILN_INT_FROM
};
template <> struct convert<bool> {
  template <class From> __device__ static bool from(From v) {
    return as_double(v) != 0.0;
  }
  __device__ static bool from(bool v) { return v; }
#define KILN_BOOL_FROM(F)                                                      \
  __device__ static bool from(F v) { return v != 0; }
  KILN_BOOL_FROM(i8)
  KILN_BOOL_FROM(i16) KILN_BOOL_FROM(i32) KILN_BOOL_FROM(i64) KILN_BOOL_FROM(u8)
      KILN_BOOL_FROM(u16) KILN_BOOL_FROM(u32) KILN_BOOL_FROM(u64)
#undef KILN_BOOL_FROM
};
#define KILN_FLOAT_CONVERT(T)                                                  \
  template <> struct convert<T> {                                              \
    template <class From> __device__ static T from(From v) {                   \
      /* int64 -> double -> f32 -> T, as the evaluator rounds. */              \
      return from_compute<T>(as_double(v));                                    \
    }                                                                          \
    __device__ static T from(f16 v) { return from_compute<T>(f16_to_f32(v)); } \
    __device__ static T from(bf16 v) {                                         \
      return from_compute<T>(bf16_to_f32(v));                                  \
    }                                                                          \
    __device__ static T from(float v) { return from_compute<T>(v); }           \
    __device__ static T from(double v) { return from_compute<T>(v); }          \
  };
KILN_FLOAT_CONVERT(f16)
KILN_FLOAT_CONVERT(bf16)
KILN_FLOAT_CONVERT(float)
KILN_FLOAT_CONVERT(double)
#undef KILN_FLOAT_CONVERT

//===----------------------------------------------------------------------===//
// Vector access
//===----------------------------------------------------------------------===//

/// V consecutive elements, aligned so one load/store moves them all.
template <class T, int V> struct alignas(sizeof(T) * V) Vec {
  T v[V];
  __device__ __forceinline__ T &operator[](int i) { return v[i]; }
  __device__ __forceinline__ const T &operator[](int i) const { return v[i]; }
};

template <int V, class T>
__device__ __forceinline__ Vec<T, V> load_vec(const T *p) {
  return *reinterpret_cast<const Vec<T, V> *>(p);
}
template <int V, class T>
__device__ __forceinline__ void store_vec(T *p, const Vec<T, V> &v) {
  *reinterpret_cast<Vec<T, V> *>(p) = v;
}

/// Calls body(g) for g in [0, n), spread over the whole grid (grid-stride).
template <class F>
__device__ __forceinline__ void for_each_index(i64 n, F body) {
  const i64 step = static_cast<i64>(gridDim.x) * blockDim.x;
  for (i64 g = static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x; g < n;
       g += step)
    body(g);
}

//===----------------------------------------------------------------------===//
// Scalar math with the evaluator's semantics
//===----------------------------------------------------------------------===//

/// a / b, correctly rounded, for f32 operands far from the edges of the
/// range: callers keep a in [2^-64, 1] and b in [1, 2^32], where IEEE
/// division (div.rn.f32) takes its fast path. These are the instructions
/// div.rn runs there (approximate reciprocal, one Newton step, quotient, one
/// correction), so the result is the same, without the range check and the
/// slow-path call around them (checked against exact rational division over
/// those ranges, with the reciprocal off by up to an ulp either way). With b
/// fixed, construct once and divide many (the reciprocal is kept).
struct FastDiv {
  float b, y;
  __device__ __forceinline__ explicit FastDiv(float d) : b(d) {
    float y0;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(d));
    y = __fmaf_rn(y0, __fmaf_rn(-d, y0, 1.0f), y0);
  }
  __device__ __forceinline__ float operator()(float a) const {
    const float q = __fmul_rn(a, y);
    return __fmaf_rn(y, __fmaf_rn(-b, q, a), q);
  }
};

namespace op {
// Floats (compute types float and double).
template <class C> __device__ __forceinline__ C fmax_nan(C x, C y) {
  return (x != x || y != y) ? (x != x ? x : y) : (x > y ? x : y);
}
template <class C> __device__ __forceinline__ C fmin_nan(C x, C y) {
  return (x != x || y != y) ? (x != x ? x : y) : (x < y ? x : y);
}
__device__ __forceinline__ float sigmoid(float x) {
  // Stable on both sides: never exp of a large positive. 1 / (1 + exp(-x))
  // for x >= 0, exp(x) / (1 + exp(x)) below, with one exp and no branch (a
  // warp with both signs would run both sides). 1 + e rounds to 1 for
  // e <= 2^-24, where the quotient is the numerator itself; otherwise both
  // operands lie in [2^-24, 2], on the fast path of the correctly rounded
  // division (NaN stays NaN through it).
  const float e = expf(-fabsf(x));
  const float d = 1.0f + e, n = x >= 0.0f ? 1.0f : e;
  return d == 1.0f ? n : FastDiv(d)(n);
}
__device__ __forceinline__ double sigmoid(double x) {
  const double e = exp(-fabs(x));
  return (x >= 0.0 ? 1.0 : e) / (1.0 + e);
}
__device__ __forceinline__ float relu(float x) {
  return x != x ? x : (x > 0.0f ? x : 0.0f);
}
__device__ __forceinline__ double relu(double x) {
  return x != x ? x : (x > 0.0 ? x : 0.0);
}
/// erfc(a / sqrt(2)) / 2 for a >= 0 (or +inf; NaN stays NaN) with a
/// relative error of about 1.5e-6 below a = 5 and 8e-6 to the underflow
/// (test/tools/gelu_numerics.py): with z = a / sqrt(2),
/// erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z / 2), P of degree 7
/// (minimax over z in [0, 9.2], the range where erfc is a normal f32: fit
/// error 6.2e-7; Numerical Recipes' erfcc takes degree 9 for its 1.2e-7),
/// the reciprocal and exponential on the special function unit. One path
/// for every a: no selects of coefficient sets, which made erff's GELU
/// bound by the ALU pipe in matmul epilogues. The constants absorb
/// 1 / sqrt(2), the halving and the exponential's base: the polynomial here
/// is log2(e) (P + ln(1/2)) and u^2 = a^2 log2(e) / 2, so the result is
/// t 2^(P'(t) - u^2). The matmul epilogue's GELU costs by instruction
/// count (call31, H100: Estrin's scheme, 3 instructions more an element
/// for 5 fewer dependent steps, made BERT's FFN1 + GELU 4% slower), so
/// every instruction here counts.
__device__ __forceinline__ float half_erfc_abs(float a) {
  float t;
  asm("rcp.approx.ftz.f32 %0, %1;"
      : "=f"(t)
      : "f"(__fmaf_rn(0.35355339059327376220f, a, 1.0f)));
  float p = -0.262132661f;
  p = __fmaf_rn(p, t, 1.04644726f);
  p = __fmaf_rn(p, t, -1.37679792f);
  p = __fmaf_rn(p, t, 0.440681967f);
  p = __fmaf_rn(p, t, -0.0223313985f);
  p = __fmaf_rn(p, t, 0.557530065f);
  p = __fmaf_rn(p, t, 1.44241357f);
  p = __fmaf_rn(p, t, -2.82581177f);
  // -u^2 as a^2 (-log2(e) / 2): one multiply and the fma (ptxas made -u
  // and u two multiplies).
  p = __fmaf_rn(a * a, -0.72134752044448170368f, p);
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(p));
  return t * e;
}
/// GELU (erf): x Phi(x), Phi(x) = 1 - h for x >= 0 and h below, h =
/// erfc(|x| / sqrt(2)) / 2. Relative error about 1.5e-6 for |x| < 5 on both
/// sides (0.5 x (1 + erf(x / sqrt(2))) in f32 loses the negative tail to
/// cancellation); x = -inf gives NaN, as that formula does.
__device__ __forceinline__ float gelu(float x) {
  const float h = half_erfc_abs(fabsf(x));
  return x * (x >= 0.0f ? 1.0f - h : h);
}
__device__ __forceinline__ double gelu(double x) {
  return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
}
/// GELU (tanh approximation): 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)),
/// u = sqrt(2 / pi) (x + 0.044715 x^3): one exponential and one reciprocal,
/// no cancellation where tanh(u) nears -1. Where exp(-2u) overflows the
/// result is -0 (x = -inf: NaN, as the tanh form gives).
__device__ __forceinline__ float gelu_tanh(float x) {
  const float u = 0.79788456080286535588f * __fmaf_rn(0.044715f * x, x * x, x);
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;"
      : "=f"(e)
      : "f"(u * -2.88539008177792681472f)); // exp(-2u) = 2^(-2u log2 e)
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return x * r;
}
__device__ __forceinline__ double gelu_tanh(double x) {
  return 0.5 * x *
         (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
template <class C> __device__ __forceinline__ C clip(C v, C lo, C hi) {
  // NaN passes through; with lo > hi everything becomes hi (numpy).
  return v < lo ? (lo > hi ? hi : lo) : (v > hi ? hi : v);
}

// Integers: wrap-around through the unsigned type of the same width.
template <class T> __device__ __forceinline__ T iadd(T x, T y) {
  typedef typename int_traits<T>::unsigned_type U;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) + static_cast<U>(y)));
}
template <class T> __device__ __forceinline__ T isub(T x, T y) {
  typedef typename int_traits<T>::unsigned_type U;
  return static_cast<T>(static_cast<U>(static_cast<U>(x) - static_cast<U>(y)));
}
template <class T> __device__ __forceinline__ T imul(T x, T y) {
  typedef typename int_traits<T>::unsigned_type U;
  // Promote narrow types to 32-bit unsigned first: u16*u16 would overflow int.
  return static_cast<T>(static_cast<U>(static_cast<u64>(static_cast<U>(x)) *
                                       static_cast<u64>(static_cast<U>(y))));
}
template <class T> __device__ __forceinline__ T ineg(T x) {
  return isub<T>(T(0), x);
}
template <class T> __device__ __forceinline__ T idiv(T x, T y) {
  // Truncating division; by zero gives 0; MIN / -1 gives MIN (wraps).
  if (y == T(0))
    return T(0);
  if (int_traits<T>::is_signed) {
    if (x == int_traits<T>::lowest() && y == T(-1))
      return x;
    return static_cast<T>(static_cast<i64>(x) / static_cast<i64>(y));
  }
  return static_cast<T>(static_cast<u64>(x) / static_cast<u64>(y));
}
template <class T> __device__ __forceinline__ T imax(T x, T y) {
  return x > y ? x : y;
}
template <class T> __device__ __forceinline__ T imin(T x, T y) {
  return x < y ? x : y;
}
template <class T> __device__ __forceinline__ T iabs(T x) {
  return (int_traits<T>::is_signed && x < T(0)) ? ineg<T>(x) : x;
}
template <class T> __device__ __forceinline__ T irelu(T x) {
  return x > T(0) ? x : T(0);
}
/// Integer power with wrap-around; a negative exponent gives the truncated
/// 1 / base^-e (0 unless |base| == 1).
template <class T, class E> __device__ __forceinline__ T ipow(T base, E e) {
  if (int_traits<E>::is_signed && e < E(0)) {
    if (base == T(1))
      return T(1);
    if (int_traits<T>::is_signed && base == T(-1))
      return (static_cast<u64>(e) & 1u) ? T(-1) : T(1);
    return T(0);
  }
  u64 r = 1, b = static_cast<u64>(static_cast<i64>(base)),
      ue = static_cast<u64>(e);
  if (!int_traits<T>::is_signed)
    b = static_cast<u64>(base);
  for (; ue; ue >>= 1, b *= b)
    if (ue & 1u)
      r *= b;
  return static_cast<T>(r);
}
} // namespace op

//===----------------------------------------------------------------------===//
// Warp and block reductions
//===----------------------------------------------------------------------===//

template <class T, class F>
__device__ __forceinline__ T warp_reduce(T v, F combine) {
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    v = combine(v, __shfl_xor_sync(0xffffffffu, v, d));
  return v;
}

/// Reduces one value per thread over the whole block; every thread gets the
/// result. `scratch` holds at least 32 values; BLOCK is blockDim.x (a multiple
/// of 32). Ends with a barrier, so scratch can be reused right away.
template <int BLOCK, class T, class F>
__device__ __forceinline__ T block_reduce(T v, T *scratch, F combine) {
  v = warp_reduce(v, combine);
  if (BLOCK == 32)
    return v;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0)
    scratch[warp] = v;
  __syncthreads();
  T r = scratch[0];
#pragma unroll
  for (int w = 1; w < BLOCK / 32; ++w)
    r = combine(r, scratch[w]);
  __syncthreads();
  return r;
}

} // namespace kiln
