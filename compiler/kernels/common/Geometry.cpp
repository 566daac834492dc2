//===- Geometry.cpp - Launch-geometry helpers shared by the kinds ---------===//
#include "compiler/kernels/common/Geometry.h"

#include <algorithm>

namespace kiln::codegen {

int64_t gridStrideBlocks(int64_t items, int64_t block) {
  return std::clamp<int64_t>(ceilDiv(items, block), 1, kMaxGridStrideBlocks);
}

void setGridStride(LaunchSpec &s, int64_t items, int64_t block) {
  s.block = {block, 1, 1};
  s.grid = {gridStrideBlocks(items, block), 1, 1};
  s.smem = 0;
}

/// Whether mma.sync block tiles split into 16x16 warp tiles (warps_m x
/// warps_n warps, at most 16) with a tile_k of 16 to 64 in steps of 16.
bool validMmaTiles(int64_t bm, int64_t bn, int64_t bk, int64_t wm,
                   int64_t wn) {
  return wm >= 1 && wn >= 1 && bm % (16 * wm) == 0 && bn % (16 * wn) == 0 &&
         bk % 16 == 0 && bk >= 16 && bk <= 64 && wm * wn <= 16;
}

bool archHasWgmma(const std::string &arch) {
  return arch == "sm_90" || arch == "sm_90a";
}

bool archAtLeast(const std::string &arch, int smVersion) {
  if (arch.rfind("sm_", 0) != 0)
    return false;
  int v = 0;
  size_t i = 3;
  for (; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i)
    v = v * 10 + (arch[i] - '0');
  return i > 3 && v >= smVersion;
}

} // namespace kiln::codegen
