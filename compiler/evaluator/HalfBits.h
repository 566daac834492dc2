//===- HalfBits.h - Bit-exact f16 / bf16 conversions (no MLIR) --*- C++ -*-===//
//
// IEEE binary16 and bfloat16 from and to binary32, round to nearest even;
// NaNs stay quiet NaNs with their sign, overflow becomes infinity. Shared by
// the evaluator and the CUDA emitters (which spell half literals as bits).
// Also binary32 rounded to tf32 as the tensor cores' operands are.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_EVALUATOR_HALFBITS_H
#define KILN_COMPILER_EVALUATOR_HALFBITS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln::eval {
namespace detail {
inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
} // namespace detail

inline uint16_t floatToHalfBits(float f) {
  uint32_t x = detail::floatBits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) // Inf stays Inf; NaN keeps its top payload, quieted.
    return sign | 0x7c00 | (x > 0x7f800000u ? 0x200 | ((x >> 13) & 0x3ff) : 0);
  if (x >= 0x477ff000u) // >= 65520 rounds past the largest half (65504).
    return sign | 0x7c00;
  if (x < 0x38800000u) {
    // Below 2^-14 the result is subnormal: adding 0.5 puts the float's ulp at
    // 2^-24, the half subnormal step, so the FPU does the RNE rounding.
    float r = detail::bitsFloat(x) + 0.5f;
    return sign | static_cast<uint16_t>(detail::floatBits(r) - detail::floatBits(0.5f));
  }
  // Normal: rebias the exponent and round the 13 dropped bits to even.
  uint32_t odd = (x >> 13) & 1;
  x += (uint32_t(15 - 127) << 23) + 0xfff + odd;
  return sign | static_cast<uint16_t>(x >> 13);
}

inline float halfBitsToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31)
    return detail::bitsFloat(sign | 0x7f800000u | (mant << 13));
  return detail::bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t floatToBF16Bits(float f) {
  uint32_t x = detail::floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40); // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16BitsToFloat(uint16_t bits) { return detail::bitsFloat(uint32_t(bits) << 16); }

/// `f` rounded to tf32 (8 exponent bits, 10 explicit mantissa bits) as
/// PTX cvt.rna.tf32.f32 does: to nearest, ties away from zero (adding half
/// an ulp to the magnitude, then truncating 13 bits; a carry out of the
/// mantissa bumps the exponent, up to infinity). Infinities stay; NaNs stay
/// NaN. The result is an f32 with the 13 low mantissa bits zero.
inline float roundToTF32(float f) {
  uint32_t x = detail::floatBits(f);
  if ((x & 0x7fffffffu) >= 0x7f800000u) // Inf as is, NaN quieted.
    return detail::bitsFloat(
        (x & 0x7fffffffu) == 0x7f800000u ? x : x | 0x00400000u);
  return detail::bitsFloat((x + 0x1000u) & 0xffffe000u);
}

} // namespace kiln::eval

#endif // KILN_COMPILER_EVALUATOR_HALFBITS_H
