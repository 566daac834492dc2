//===- Geometry.h - Launch-geometry helpers every kind uses -----*- C++ -*-===//
//
// The GPU's limits and the small rules the kinds' heuristics share (target
// SMs, grid limits, grid-stride grids, mma tile rules). No kind includes
// another kind's folder; what two kinds share lives here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_COMMON_GEOMETRY_H
#define KILN_COMPILER_KERNELS_COMMON_GEOMETRY_H

#include "compiler/kernels/common/KernelSpec.h"

#include <cstdint>
#include <string>

namespace kiln::codegen {

/// The SMs the heuristics fill: an H100/H200-class part's 132.
inline constexpr int64_t kTargetSMs = 132;

/// Split-K's default: the largest power of two up to 8 that keeps
/// tiles x split within `maxBlocks`, each block at `minKTiles` k tiles or
/// more, and `fits(split)` (the path's own tile condition).
template <class Fits>
inline int64_t defaultSplitK(int64_t tiles, int64_t kTiles, int64_t maxBlocks,
                      int64_t minKTiles, Fits fits) {
  int64_t split = 1;
  while (split < 8 && tiles * split * 2 <= maxBlocks &&
         kTiles / (split * 2) >= minKTiles && fits(split * 2))
    split *= 2;
  return split;
}
/// Blocks a grid-stride kernel needs at most: enough to fill an H200 (132
/// SMs x 2048 threads) several times over; more only adds scheduling.
inline constexpr int64_t kMaxGridStrideBlocks = 8192;
inline constexpr int64_t kMaxGridX = 2147483647;
/// Shared memory one block may opt into on sm_90 (227 KiB).
inline constexpr int64_t kMaxDynamicSmem = 227 * 1024;

/// A kind's configure refusing a launch: `error` = `msg`, false.
inline bool refuse(std::string &error, const std::string &msg) {
  error = msg;
  return false;
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// What validMmaTiles requires, for error messages ("mma ..." / "igemm ...").
inline constexpr const char *kMmaTileRule =
    "tiles must split into 16x16 warp tiles, tile_k a multiple of 16 up to "
    "64, at most 16 warps";

/// Blocks of a grid-stride loop over `items` of `block` threads each, at
/// most kMaxGridStrideBlocks.
int64_t gridStrideBlocks(int64_t items, int64_t block);
/// A grid-stride launch over `items`: blocks of `block` threads.
void setGridStride(LaunchSpec &s, int64_t items, int64_t block = 256);

/// Whether mma.sync block tiles split into 16x16 warp tiles (warps_m x
/// warps_n warps, at most 16) with a tile_k of 16 to 64 in steps of 16
/// (matmul's mma path and conv's igemm share matmul.cuh's tiles).
bool validMmaTiles(int64_t bm, int64_t bn, int64_t bk, int64_t wm, int64_t wn);

} // namespace kiln::codegen

#endif // KILN_COMPILER_KERNELS_COMMON_GEOMETRY_H
