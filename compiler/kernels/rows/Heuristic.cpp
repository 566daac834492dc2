//===- Heuristic.cpp - Row kernels: reduce, softmax, layer_norm, batch_norm -----===//
#include "compiler/kernels/rows/Rows.h"
#include "compiler/kernels/common/Geometry.h"
#include "compiler/kernels/common/Layouts.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {
/// Threads per block for one row of `len` elements reduced by a block.
int64_t rowBlockSize(int64_t len) {
  if (len <= 64)
    return 32;
  if (len <= 1024)
    return 128;
  if (len <= 8192)
    return 256;
  return 512;
}

/// Threads per row for softmax and layer norm over `rows` rows of `len`
/// elements of `bytes` each: about four 16-byte vectors a thread, so the row
/// stays in registers (reduce.cuh, P::ITEMS), and more threads while the
/// rows alone would leave the GPU (132 SMs x 2048 threads) idle. A power of
/// two up to 32 (several rows share a block) or a multiple of 32 up to 512
/// (the block; 1024 would halve the registers a thread may hold).
/// `warpCap`: with 1024 rows or more (8 warps an SM), never grow a team that
/// fits in a warp past it (layer norm: a warp per row reduces with shuffles
/// alone; on the H200, BERT 32x128's and GPT-2 8x512's 4096 rows of 768
/// f16, 3 vectors a lane, ran the whole model 1.6% / 2.6% faster than with
/// 96-thread teams of one vector each, run-163947 against run-163718).
int64_t rowTeamSize(int64_t rows, int64_t len, int64_t bytes,
                    bool warpCap = false) {
  constexpr int64_t kFillThreads = kTargetSMs * 2048, kItems = 4, kMaxTeam = 512;
  const int64_t nv = std::max<int64_t>(1, ceilDiv(len * bytes, 16));
  auto items = [&](int64_t t) { return ceilDiv(nv, t); };
  int64_t team = 1;
  while (team < 32 && items(team) > kItems)
    team *= 2;
  if (items(team) > kItems)
    team = std::min(kMaxTeam, ceilDiv(ceilDiv(nv, kItems), 32) * 32);
  const bool capped = warpCap && team <= 32 && rows >= 1024;
  while (rows * team < kFillThreads && team < kMaxTeam &&
         !(capped && team >= 32) && (team < 32 || items(team) > 1))
    team = team < 32 ? team * 2
                     : std::min(kMaxTeam,
                                ceilDiv(ceilDiv(nv, items(team) - 1), 32) * 32);
  return team;
}

/// block_size of softmax-"row" and layer_norm: threads per row.
bool validRowTeam(int64_t team) {
  return team >= 1 && team <= 1024 &&
         (team <= 32 ? (team & (team - 1)) == 0 : team % 32 == 0);
}
constexpr const char *kRowTeamRule =
    "block_size (threads per row) must be a power of two up to 32 or a "
    "multiple of 32 up to 1024";

/// Block and grid of a row kernel with `team` threads per row: teams of up
/// to a warp share a block of up to 128 threads (blocks of one warp would
/// cap an SM at 32 blocks, half its threads), but no fewer than 4 blocks
/// per SM where the rows allow.
void setRowGeometry(LaunchSpec &s, int64_t rows, int64_t team) {
  constexpr int64_t kTargetBlocks = 4 * kTargetSMs;
  int64_t perBlock = team <= 32 ? 128 / team : 1;
  while (perBlock > 1 && perBlock * team > 32 &&
         ceilDiv(rows, perBlock) < kTargetBlocks)
    perBlock /= 2;
  s.block = {team * perBlock, 1, 1};
  s.grid = {std::clamp<int64_t>(ceilDiv(rows, perBlock), 1, kMaxGridX), 1, 1};
  s.smem = 0;
}
} // namespace

bool configureRows(LaunchSpec &s, std::string &error,
                   const TargetOptions &target) {
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;
  auto fail = [&](const std::string &msg) { return refuse(error, msg); };
  if (s.kind == "batch_norm") {
    if (s.inputs.size() != 5 || out.rank() < 2)
      return fail(
          "batch_norm takes x, scale, bias, mean, var and x has rank >= 2");
    setGridStride(s, n);
    return true;
  }
  if (s.kind == "reduce") {
    if (s.inputs.size() != 1)
      return fail("reduce takes one input");
    ReduceLayout l = reduceLayout(s.inputs[0].shape, c.getInts("axes"));
    if (!c.has(keys::variant))
      c.set(keys::variant, 
                           l.innerReduced && l.redCount >= 32 ? "row" : "col");
    std::string variant = c.get(keys::variant);
    if (variant == "row") {
      int64_t block = c.get(keys::block_size, rowBlockSize(l.redCount));
      c.set(keys::block_size, block);
      if (block % 32 != 0 || block > 1024 || block < 32)
        return fail("block_size must be a multiple of 32 in [32, 1024]");
      s.block = {block, 1, 1};
      s.grid = {std::clamp<int64_t>(l.outCount, 1, kMaxGridX), 1, 1};
    } else if (variant == "col") {
      setGridStride(s, l.outCount);
    } else {
      return fail("unknown reduce variant '" + variant + "'");
    }
    return true;
  }
  if (s.kind == "softmax") {
    if (s.inputs.size() != 1 || !isFloat(out.dtype))
      return fail("softmax takes one float input");
    int64_t axis = c.getInt("axis", -1);
    if (axis < 0 || axis >= out.rank())
      return fail("axis out of range");
    SoftmaxLayout l = softmaxLayout(out.shape, axis);
    if (!c.has(keys::variant))
      c.set(keys::variant, l.inner == 1 ? "row" : "col");
    std::string variant = c.get(keys::variant);
    if (variant == "row") {
      if (l.inner != 1)
        return fail("the row variant needs the softmax axis innermost");
      int64_t team = c.get(keys::block_size, rowTeamSize(l.outer, l.len, dtypeBytes(out.dtype)));
      c.set(keys::block_size, team);
      if (!validRowTeam(team))
        return fail(kRowTeamRule);
      setRowGeometry(s, l.outer, team);
    } else if (variant == "col") {
      setGridStride(s, l.outer * l.inner);
    } else {
      return fail("unknown softmax variant '" + variant + "'");
    }
    return true;
  }
  if (s.kind == "layer_norm") {
    if (s.inputs.size() < 2 || s.inputs.size() > 3 || !isFloat(out.dtype))
      return fail("layer_norm takes a float x, scale[, bias]");
    int64_t axis = c.getInt("axis", -1);
    if (axis < 0 || axis >= out.rank())
      return fail("axis out of range");
    int64_t norm = 1;
    for (int64_t d = axis; d < out.rank(); ++d)
      norm *= out.shape[d];
    int64_t rows = norm == 0 ? 0 : n / norm;
    int64_t team =
        c.get(keys::block_size,
                 rowTeamSize(rows, norm, dtypeBytes(out.dtype), true));
    c.set(keys::block_size, team);
    if (!validRowTeam(team))
      return fail(kRowTeamRule);
    setRowGeometry(s, rows, team);
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen
