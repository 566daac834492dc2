// gather.cuh - Index normalization for gather kernels, and the module's
// error flag.
//
// An index outside [-dim, dim) would read out of bounds. Kernels clamp it to
// [0, dim) and set `kiln_error` (a u32 global of the module, never cleared by
// the kernel) so the runtime can report the bad input after the run:
// cuModuleGetGlobal(module, "kiln_error").
#pragma once

extern "C" __device__ unsigned int kiln_error = 0u;

namespace kiln {

/// An index of any integer type as a position in [0, dim): negative values
/// count from the end; out-of-range values are clamped and flagged.
template <class Idx>
__device__ __forceinline__ i64 normalize_index(Idx v, i64 dim) {
  i64 r;
  if (int_traits<Idx>::is_signed) {
    r = static_cast<i64>(v);
    if (r < 0)
      r += dim;
  } else {
    const u64 u = static_cast<u64>(v);
    r = u < static_cast<u64>(dim) ? static_cast<i64>(u) : dim;
  }
  if (r < 0 || r >= dim) {
    atomicOr(&kiln_error, 1u);
    r = r < 0 ? 0 : dim - 1;
  }
  return r;
}

} // namespace kiln
