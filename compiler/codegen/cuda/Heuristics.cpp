//===- Heuristics.cpp - Default configs and launch geometry per kind ------===//
//
// Fixed heuristics (autotune off): each kind's tuning keys get a value that
// is good across shapes, and the geometry follows from config and shapes.
// Tuning keys already in the config (set by autotuning or a test) are kept
// and only checked.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/KernelSpec.h"
#include "compiler/codegen/cuda/EmitterSupport.h"
#include "compiler/codegen/cuda/IndexSpace.h"
#include "compiler/codegen/LibraryCalls.h"
#include "compiler/codegen/cuda/Layouts.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {

/// The SMs the heuristics fill: an H100/H200-class part's 132.
constexpr int64_t kTargetSMs = 132;

/// Split-K's default: the largest power of two up to 8 that keeps
/// tiles x split within `maxBlocks`, each block at `minKTiles` k tiles or
/// more, and `fits(split)` (the path's own tile condition).
template <class Fits>
int64_t defaultSplitK(int64_t tiles, int64_t kTiles, int64_t maxBlocks,
                      int64_t minKTiles, Fits fits) {
  int64_t split = 1;
  while (split < 8 && tiles * split * 2 <= maxBlocks &&
         kTiles / (split * 2) >= minKTiles && fits(split * 2))
    split *= 2;
  return split;
}
/// Blocks a grid-stride kernel needs at most: enough to fill an H200 (132
/// SMs x 2048 threads) several times over; more only adds scheduling.
constexpr int64_t kMaxGridStrideBlocks = 8192;
constexpr int64_t kMaxGridX = 2147483647;
/// Shared memory one block may opt into on sm_90 (227 KiB).
constexpr int64_t kMaxDynamicSmem = 227 * 1024;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// What validMmaTiles requires, for error messages ("mma ..." / "igemm ...").
constexpr const char *kMmaTileRule =
    "tiles must split into 16x16 warp tiles, tile_k a multiple of 16 up to "
    "64, at most 16 warps";

int64_t gridStrideBlocks(int64_t items, int64_t block) {
  return std::clamp<int64_t>(ceilDiv(items, block), 1, kMaxGridStrideBlocks);
}

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

const std::set<std::string> &unaryOps() {
  static const std::set<std::string> ops = {
      "sqrt", "reciprocal", "exp",   "log",        "erf",  "tanh", "sigmoid",
      "sin",  "cos",        "floor", "ceil",       "neg",  "abs",  "relu",
      "not",  "is_nan",     "gelu",  "leaky_relu", "clip", "cast", "copy"};
  return ops;
}
const std::set<std::string> &binaryOps() {
  static const std::set<std::string> ops = {
      "add", "sub",   "mul",  "div",           "max",     "min",
      "pow", "equal", "less", "less_or_equal", "greater", "greater_or_equal",
      "and", "or",    "xor"};
  return ops;
}

/// Vector width for kernels that copy contiguous runs of `inner` elements
/// of `bytes` each between `buffers` (concat pieces, gathered rows): the
/// config's "vec" if legal, else the widest legal width of at most 16 bytes
/// (recorded in the config). Legal: divides the run, and every buffer is
/// aligned to a whole vector.
bool chooseRunVec(Config &c, int64_t inner, int64_t bytes,
                  const std::vector<const BufferSpec *> &buffers, int64_t &v,
                  std::string &why) {
  auto legal = [&](int64_t w) {
    if (w == 1)
      return true;
    if (inner % w != 0 || w * bytes > 16)
      return false;
    for (const BufferSpec *b : buffers)
      if (b->alignment % (w * bytes) != 0)
        return false;
    return true;
  };
  v = c.getInt("vec", 0);
  if (v == 0) {
    for (v = 16 / bytes; v > 1 && !legal(v); v /= 2) {
    }
    c.set("vec", ConfigValue::ofInt(v));
    return true;
  }
  if (!legal(v)) {
    why = "vec " + std::to_string(v) + " is not legal for these buffers";
    return false;
  }
  return true;
}

bool checkVec(LaunchSpec &s, const IndexSpace &space, std::string &why) {
  int64_t v = s.config.getInt("vec", 0);
  if (v == 0) {
    s.config.set("vec", ConfigValue::ofInt(maxVectorWidth(space)));
    return true;
  }
  if (v < 1 || (v & (v - 1)) != 0 || !vectorWidthLegal(space, v)) {
    why = "vec " + std::to_string(v) + " is not legal for these buffers";
    return false;
  }
  return true;
}

void setGridStride(LaunchSpec &s, int64_t items, int64_t block = 256) {
  s.block = {block, 1, 1};
  s.grid = {gridStrideBlocks(items, block), 1, 1};
  s.smem = 0;
}

/// Elementwise and fused elementwise launches over `items` vectors: each
/// thread takes enough items per pass (EmitElementwise.cpp's unroll, which
/// it derives from this grid) for about four loads of 16 bytes or less in
/// flight from the inputs that stream along the innermost axis (a broadcast
/// along it is one cached scalar), and the grid covers the tensor in one
/// pass up to 2^20 blocks of 256.
void setElementwiseGrid(LaunchSpec &s, const IndexSpace &space, int64_t items) {
  constexpr int64_t kBlock = 256, kLoads = 4, kMaxBlocks = int64_t(1) << 20;
  int64_t streamed = 0;
  for (size_t k = 0; k < s.inputs.size(); ++k)
    streamed += space.accesses[k].strides.back() != 0;
  const int64_t unroll = std::clamp<int64_t>(
      ceilDiv(kLoads, std::max<int64_t>(1, streamed)), 1, 4);
  s.block = {kBlock, 1, 1};
  s.grid = {std::clamp<int64_t>(ceilDiv(items, kBlock * unroll), 1, kMaxBlocks),
            1, 1};
  s.smem = 0;
}

/// Whether the mma.sync path takes the launch's operands: f16, bf16, or f32
/// with tf32 = true (rounded to tf32, the m16n8k8 variant). wgmma takes
/// f16 and bf16 only.
bool mmaTakes(const LaunchSpec &s) {
  const DType t = s.inputs[0].dtype;
  return t == DType::F16 || t == DType::BF16 ||
         (t == DType::F32 && s.config.getBool("tf32"));
}

/// The matmul path of a launch whose config names none (TargetOptions).
bool chooseMatmulPath(const LaunchSpec &s, const MatmulLayout &l,
                      const TargetOptions &target, std::string &path,
                      std::string &why) {
  const DType t = s.inputs[0].dtype;
  const bool tensorCores = mmaTakes(s);
  // tf32 (f32 with --precision=tf32) on wgmma: single products with both
  // operands K-major (A [M, K], B [N, K]; the instruction has no transposes
  // for it), on the TMA kernel.
  const bool wgmmaTakes =
      t == DType::F16 || t == DType::BF16 ||
      (t == DType::F32 && s.config.getBool("tf32") && l.batch == 1 &&
       !l.transA && l.transB);
  const std::string &want = target.matmulPath;
  if (want != "auto" && want != "mma" && want != "wgmma" && want != "simt") {
    why = "unknown matmul path '" + want + "' (auto, mma, wgmma or simt)";
    return false;
  }
  if (want == "wgmma" && !archHasWgmma(target.arch)) {
    why = "the wgmma matmul path needs an sm_90 target (Hopper), not " +
          target.arch;
    return false;
  }
  bool aVec = false, bVec = false;
  matmulVectorLoads(s, l, aVec, bVec);
  // auto: wgmma on sm_90 once there are 32 or more 128 x 128 output tiles;
  // below that mma.sync with split-K wins. On the H200 (micro.py,
  // 2026-12-02) wgmma took 0.55-0.9x mma's time from 32 tiles (Llama's K/V
  // projection, 2048 x 512) up to 8192^3, and 1.2-3.5x at BERT's batch-1
  // shapes (3 to 24 tiles), where split-K fills the GPU.
  // Single products of 64 rows or more take the TMA wgmma kernel even when
  // small: at BERT's batch-1 shapes (M = 128) it took 0.49-0.82x the time
  // of mma with split-K (H200, micro-084418: QKV 0.0100 vs 0.0122 ms, FFN1
  // 0.0084 vs 0.0172, FFN2 0.0154 vs 0.0163).
  // tf32 keeps mma.sync with split-K for small products with a long K:
  // wgmma rounds A in shared memory every k step (round_a_tf32), which
  // little work per step cannot hide. H200, 2026-12-04: BERT 1x128 FFN2
  // (128 x 768, K = 3072) 0.0402 ms on wgmma (micro-152228) against 0.0249
  // on mma (micro-145616); with K = 768 wgmma was as fast or faster (FFN1
  // 0.0146 against 0.0293).
  const int64_t tiles128 = ceilDiv(l.m, 128) * ceilDiv(l.n, 128) * l.batch;
  const bool tf32SmallLongK =
      t == DType::F32 && tiles128 < 32 && l.k >= 2048;
  const bool wgmmaWins = wgmmaTakes && archHasWgmma(target.arch) &&
                         !tf32SmallLongK &&
                         (tiles128 >= 32 || (l.batch == 1 && l.m >= 64));
  // (Other tf32 products have no wgmma kernel: --matmul-path=wgmma keeps
  // mma for them.)
  const bool wgmma =
      (want == "wgmma" && wgmmaTakes) || (want == "auto" && wgmmaWins);
  path = !tensorCores || want == "simt" ? "simt"
         : wgmma && aVec && bVec        ? "wgmma"
                                        : "mma";
  return true;
}

/// Tiles, stages and geometry of the wgmma path (matmul_sm90.cuh): a block
/// of `warpgroups` x 128 threads, each warpgroup owning tile_m / warpgroups
/// rows (64 or 128) and all tile_n columns of one m64n<tile_n>k16 per k16
/// step; k tiles of 64 (one 128-byte swizzled row).
bool configureWgmma(LaunchSpec &s, const MatmulLayout &l,
                    const TargetOptions &target, int64_t &threads,
                    std::string &why) {
  Config &c = s.config;
  auto no = [&](std::string msg) {
    why = std::move(msg);
    return false;
  };
  const DType t = s.inputs[0].dtype;
  const bool tf32 = t == DType::F32 && c.getBool("tf32");
  if (t != DType::F16 && t != DType::BF16 && !tf32)
    return no("the wgmma path needs f16 or bf16 operands, or f32 ones with "
              "tf32 (--precision=tf32)");
  if (tf32) {
    if (l.batch != 1 || l.transA || !l.transB)
      return no("tf32 on the wgmma path takes single products with K-major "
                "operands (A [M, K], B [N, K])");
    if (!c.getBool("tma", true))
      return no("tf32 on the wgmma path takes the TMA kernel (tma = true)");
    if (c.has("stage_out") && c.getBool("stage_out"))
      return no("the staged epilogue stores 16-bit outputs; tf32 products "
                "store f32");
    c.set("stage_out", ConfigValue::ofBool(false));
  }
  // swap_ab: the TMA kernel on C^T = B^T A^T (`l` is swapped), its tiles
  // stored transposed by the direct or the staged epilogue: tile_m runs
  // along the output's columns, tile_n along its rows (cuBLAS's answer to
  // 100 tiles on 132 SMs: 96-row tiles along M make one wave of 132).
  if (l.swapped) {
    if (tf32 || !c.getBool("tma", true) || l.batch != 1)
      return no("swap_ab takes single f16/bf16 products on the TMA kernel");
    if (c.getInt("split_k", 1) != 1 || c.getBool("stream_k"))
      return no("swap_ab takes neither split_k nor stream_k");
    if (c.getBool("tma_store"))
      return no("swap_ab stores its tiles transposed, not through the TMA "
                "store");
    c.set("tma_store", ConfigValue::ofBool(false));
    c.set("split_k", ConfigValue::ofInt(1));
  }
  // Operand bytes: a k tile is one 128-byte row, 64 16-bit or 32 tf32.
  const int64_t eb = dtypeBytes(t), rowK = 128 / eb;
  if (!archHasWgmma(target.arch))
    return no("the wgmma path needs an sm_90 target (Hopper), not " +
              target.arch);
  bool aVec = false, bVec = false;
  matmulVectorLoads(s, l, aVec, bVec);
  if (!aVec || !bVec)
    return no("the wgmma path needs 16-byte loads of both operands (the "
              "contiguous extents and batch strides multiples of 8, "
              "16-byte aligned bases)");
  // 128 x 256 tiles (two warpgroups of 64 x 256) when they fill the GPU
  // (132 SMs), 128 x 128 when those do, else 64 x 128 (one warpgroup).
  auto tiles = [&](int64_t bm, int64_t bn) {
    return ceilDiv(l.m, bm) * ceilDiv(l.n, bn) * l.batch;
  };
  const bool wide = l.m > 64 && l.n > 128 && tiles(128, 256) >= kTargetSMs;
  const bool tall = l.m > 64 && tiles(128, 128) >= kTargetSMs;
  // The TMA kernel's persistent grid runs the tiles in waves of 132: pick
  // the tile with the least waves x per-tile time, a tile's time taken as
  // its area times (1 + 32 / (bm bn / (bm + bn))), the operand bytes per
  // output it loads; earlier (larger) tiles win ties. 128 x 192 makes
  // N = 768 and 2304 (BERT's) one and three full waves at M = 4096 where
  // 128 x 256 leaves SMs idle and 128 x 128 needs a wave more; square
  // products keep 128 x 256. 64 x 64 spreads small products (BERT 1x128's
  // 128 x 768 x 768 ... 3072: 24-72 tiles) over more SMs; the autotuner
  // chose it for all of them (H200, 2026-12-03, 1.2x the engine).
  // Many tiles (4+ waves of 128 x 128): 128 x 128 tiles in the ping-pong
  // schedule, one consumer warpgroup's epilogue running under the other's k
  // loop. On the H200 (micro-165727, the same flags as micro.py's
  // wgmma-pingpong side) against this function's other choice: BERT 32x128
  // FFN1 0.0441 vs 0.0496 ms, GPT-2 8x512 QKV 0.0371 vs 0.0394 and FFN1
  // 0.0439 vs 0.0502, ViT FFN1 0.1244 vs 0.1276, Llama gate/up 0.1132 vs
  // 0.1186, 8192^3 1.601 vs 1.737, with bias + GELU BERT 0.0524 vs 0.0560
  // and ViT 0.1408 vs 0.1514; 4096^3 0.2054 vs 0.2013. With one or two
  // waves (FFN2, the attention output, Llama down) it lost 5-25%.
  // Long k loops (K >= 4096; K >= 2048 without an epilogue program, below)
  // and tf32 keep the wave-cost choice (128 x 256
  // where it fills the GPU): what the ping-pong hides (an epilogue) matters
  // less against a long k loop, and a tf32 k tile holds half the k of
  // f16's, so the larger tile's reuse matters more. H200, 2026-12-04:
  // 4096^3 tf32 0.325 ms on 128 x 256 cooperative tiles against 0.375
  // ping-pong (tune-145600-tf32-4096.log), and every tf32 zoo shape as fast
  // or faster (session-150200-micro-tf32-tiles.log); f16, 128 x 256 with 4
  // stages against ping-pong (session-150300-micro-fp16-tiles.log): 4096^3
  // 0.198 vs 0.204 ms, 8192^3 1.653 vs 1.734, Llama gate/up (K = 2048)
  // 0.116 vs 0.114, BERT and GPT-2 FFN1 (K = 768) 0.048 vs 0.043, ViT FFN1
  // 0.128 vs 0.124. Since the TMA-store epilogue (which 128 x 256 tiles
  // take without an epilogue program), plain products with K >= 2048 keep
  // the wave-cost choice too: H200, 2026-12-04 (micro-204234), Llama
  // gate/up 2048 x 2048 x 8192 on 128 x 256 tiles with the TMA store
  // 0.0961 ms against 0.1009 ping-pong with the TMA store and 0.1137
  // ping-pong staged (cuBLAS replayed from a graph: 0.0995). With an
  // epilogue program the ping-pong still hides it up to K = 4096.
  const int64_t pingpongMaxK = c.has("epilogue") ? 4096 : 2048;
  if (l.batch == 1 && c.getBool("tma", true) && !c.has("tile_m") &&
      !c.has("tile_n")) {
    if (!c.has("pingpong") && !c.has("warpgroups") && l.m > 64 && l.n > 64 &&
        !tf32 && l.k < pingpongMaxK && tiles(128, 128) >= 4 * kTargetSMs &&
        !c.getBool("stream_k")) {
      c.set("tile_m", ConfigValue::ofInt(128));
      c.set("tile_n", ConfigValue::ofInt(128));
      c.set("warpgroups", ConfigValue::ofInt(2));
      c.set("pingpong", ConfigValue::ofBool(true));
      c.setDefault("stages", ConfigValue::ofInt(4));
    } else {
      // 128 x 64 (two consumer warpgroups of 64 x 64) comes before 64 x 128
      // (one of 64 x 128) and takes its ties where its rows fill (M >= 128):
      // the same bytes per k tile, two warpgroups' wgmma in flight. 64 x 32
      // comes last, for f16/bf16 products with fewer than 16 k tiles (too
      // few for split-K, below): it doubles the blocks a one-wave product
      // runs on. H100 80GB, 2026-12-06 (micro-050913, micro-050930, 20
      // back-to-back runs a sample, fp16 / bf16 against torch.matmul
      // replayed from a graph): Llama k/v (2048 x 512, K = 2048) 128 x 64
      // 0.0097 / 0.0095 ms against 64 x 128's 0.0104 / 0.0106 (cuBLAS
      // 0.0104 / 0.0103); BERT 1x128 QKV (128 x 768, K = 768) 64 x 32 whole
      // 0.0048 / 0.0046 against 64 x 64 in split-K pairs 0.0063 / 0.0063,
      // 64 x 64 whole 0.0051 / 0.0051 (cuBLAS 0.0045 / 0.0044).
      const int64_t kTiles = ceilDiv(l.k, rowK);
      // Split-K's least k tiles a block on the TMA kernel (below).
      constexpr int64_t kMinSplitKTiles = 8;
      int64_t bestM = 0, bestN = 0, bestCost = 0;
      for (auto [bm, bn] : {std::pair<int64_t, int64_t>{128, 256},
                            {128, 192},
                            {128, 128},
                            {128, 64},
                            {64, 128},
                            {64, 64},
                            {64, 32}}) {
        if (bn > 128 && l.n <= 128)
          continue;
        if (bm == 128 && bn == 64 && (l.m < 128 || eb != 2))
          continue;
        if (bn == 32 && (eb != 2 || kTiles >= 2 * kMinSplitKTiles ||
                         c.getBool("tma_store")))
          continue; // (the TMA store writes 64-column blocks)
        // Pairs sharing an N-major B split it in 64-column blocks (where N
        // has more than one, a narrow tile would leave them nothing).
        if (bn <= 64 && l.n > 64 && c.getInt("cluster", 1) == 2 && !l.transB)
          continue;
        // 64-row tiles hold one warpgroup: not what two (or ping-pong) asks.
        if (bm == 64 &&
            (c.getInt("warpgroups", 1) == 2 || c.getBool("pingpong")))
          continue;
        const int64_t cost = ceilDiv(tiles(bm, bn), kTargetSMs) *
                             (bm * bn + 32 * (bm + bn));
        if (!bestM || cost < bestCost) {
          bestM = bm;
          bestN = bn;
          bestCost = cost;
        }
      }
      c.set("tile_m", ConfigValue::ofInt(bestM));
      c.set("tile_n", ConfigValue::ofInt(bestN));
      // Split-K where the tiles leave most SMs idle and K is long: the
      // largest power of two up to 8 that keeps the clusters within one
      // wave and each block at 8 k tiles or more (BERT 1x128: FFN2's 24
      // tiles of 64 x 64 with K = 3072 take 4; QKV's K = 768 stays whole:
      // in pairs of 6 k tiles it took 0.0063 ms against 0.0051 whole on
      // the H100 at 20 runs a sample, micro-050913, the cluster's
      // reduction costing more than the halved k loop saves).
      // H100 80GB, 2026-12-05 (micro-190859-split-default-vs-sk1, against split_k = 1 in the
      // same invocation): FFN2 0.0116 vs 0.0166 ms, QKV 0.0090 vs 0.0094
      // (torch.matmul replayed from a graph: 0.0102, 0.0136); the BERT
      // 1x128 model 0.408 ms (run-191208). Llama's k/v (128 tiles of 64 x
      // 128) stays whole: split in pairs on 128 x 128 tiles it took 0.0182
      // ms against 0.0137 (micro-190831-split-paths).
      // (Not where the TMA store or stream-K was asked for: split-K has
      // its own epilogue and schedule.)
      if (eb == 2 && !c.has("split_k") && !c.has("cluster") &&
          !c.has("pingpong") && !c.getBool("stream_k") &&
          !c.getBool("tma_store")) {
        const int64_t split = defaultSplitK(
            tiles(bestM, bestN), kTiles, kTargetSMs, kMinSplitKTiles,
            [&](int64_t sp) { return bestM % (8 * sp) == 0; });
        if (split > 1)
          c.set("split_k", ConfigValue::ofInt(split));
      }
    }
  }
  // Batched products whose A is one matrix for the whole batch (a 1x1
  // convolution as a matmul: the weights times each image) with rows of 512
  // or more pixels: the TMA kernel, 128 x 128 tiles where M allows, the
  // output staged through shared memory. H200, 2026-12-04 (session-134700,
  // ResNet50 64x224 fp16, profiles b1 vs b3): the 56x56 ones 0.017-0.047 vs
  // 0.057-0.206 ms, the 28x28 ones 0.027-0.031 vs 0.048-0.105; the model
  // 9.653 vs 10.403 ms with the setting everywhere, which made the 7x7
  // ones 1.4-1.7x slower, so smaller images keep the defaults: 9.063 ms
  // with this rule (session-135100, PASS against eager).
  const bool aShared =
      l.batch > 1 && std::all_of(l.aBatchStrides.begin(), l.aBatchStrides.end(),
                                 [](int64_t st) { return st == 0; });
  if (aShared && l.n >= 512 && !c.has("tma") && !c.has("tile_m") &&
      !c.has("tile_n") && !c.has("warpgroups") && !c.has("pingpong")) {
    c.set("tma", ConfigValue::ofBool(true));
    c.setDefault("stages", ConfigValue::ofInt(4)); // As measured.
    if (l.m > 64) {
      c.set("tile_m", ConfigValue::ofInt(128));
      c.set("tile_n", ConfigValue::ofInt(128));
      c.setDefault("stage_out", ConfigValue::ofBool(true));
    }
  }
  c.setDefault("tile_m", ConfigValue::ofInt(wide || tall ? 128 : 64));
  c.setDefault("tile_n", ConfigValue::ofInt(wide ? 256 : 128));
  c.setDefault("tile_k", ConfigValue::ofInt(rowK));
  c.setDefault("warpgroups",
               ConfigValue::ofInt(c.getInt("tile_m") == 64 ? 1 : 2));
  // The warp-specialized kernel fed by TMA for single products; batched
  // ones (3-D tensor maps) take it when asked (tma=true, or the autotuner)
  // until a GPU run has checked them.
  c.setDefault("tma", ConfigValue::ofBool(l.batch == 1));
  const bool tma = c.getBool("tma");
  const int64_t bRows0 = l.transB ? c.getInt("tile_n")
                                  : ceilDiv(c.getInt("tile_n"), 64) * 64;
  const int64_t stageBytes0 = (c.getInt("tile_m") + bRows0) * 128;
  // The staged epilogue's bytes if it is on (an upper bound: it may turn
  // out ineligible below, leaving room unused).
  // Large outputs leave in whole 32-byte sectors: the direct path's pair
  // stores fill half of each (Nsight Compute, H200, BERT's FFN1 as a plain
  // product: 50 MB of L2 writes for a 25 MB output, L2 at 71% of its peak,
  // cuBLAS 36%). Ping-pong tiles stage their epilogue (below); cooperative
  // ones of two waves or more without an epilogue program, whose staged
  // tile would not fit beside the stages, take the TMA store. H200,
  // 2026-12-04, fp16 (micro-204234, micro-205700), against the direct
  // stores: staged ping-pong BERT 32x128 FFN1 0.0320 vs 0.0419 ms, GPT-2
  // QKV 0.0273 vs 0.0378, ViT FFN1 0.0892 vs 0.1218; TMA store on 128 x 256
  // tiles 4096^3 0.1819 vs 0.1991, 8192^3 1.467 vs 1.709. With an epilogue
  // program the TMA store lost to the staged path (BERT's FFN1 + erf GELU
  // 0.0613 vs 0.0501), and with a wave or less to the direct stores.
  const bool pingpong0 = tma && c.getBool("pingpong", false);
  // Split-K (TMA kernel): its reduction buffer, an f32 tile, takes the
  // place of the epilogue's shared memory (it has its own epilogue).
  const int64_t split0 = tma ? c.getInt("split_k", 1) : 1;
  if (tma && split0 == 1 && !pingpong0 && !c.has("epilogue") &&
      l.batch == 1 && eb == 2 &&
      dtypeBytes(s.outputs[0].dtype) == 2 && l.n % 8 == 0 &&
      s.outputs[0].alignment % 16 == 0 && c.getInt("tile_n") % 64 == 0 &&
      tiles(c.getInt("tile_m"), c.getInt("tile_n")) >= 2 * kTargetSMs)
    c.setDefault("tma_store", ConfigValue::ofBool(true));
  const bool storeAsked = tma && c.getBool("tma_store", false);
  const int64_t stagingBytes0 =
      split0 > 1 ? c.getInt("tile_m") * (c.getInt("tile_n") + 8) * 4
      : tma && c.getBool("stage_out",
                       !storeAsked &&
                           (c.has("epilogue") || pingpong0 ||
                            ceilDiv(l.m, c.getInt("tile_m")) *
                                    ceilDiv(l.n, c.getInt("tile_n")) <=
                                kTargetSMs))
          ? (l.swapped // transposed: tile_n rows of each warpgroup's rows
                 ? c.getInt("tile_n") *
                       (c.getInt("tile_m") + 8 * c.getInt("warpgroups"))
                 : c.getInt("tile_m") * (c.getInt("tile_n") + 8)) *
                eb * (c.getBool("pingpong") ? 2 : 1)
      : storeAsked
          ? c.getInt("tile_m") * std::min<int64_t>(2, c.getInt("tile_n") / 64) *
                128 * (c.getBool("pingpong") ? 2 : 1)
          : 0;
  // cp.async: 4 stages (H200, 2026-12-02). TMA: as many as fit, up to 6
  // (4 at 128 x 256, 6 at 128 x 128; a stage less with a staged epilogue).
  c.setDefault("stages",
               ConfigValue::ofInt(
                   tma ? std::clamp<int64_t>((kMaxDynamicSmem - 1024 - 256 -
                                              stagingBytes0) /
                                                 stageBytes0,
                                             3, 6)
                       : 4));
  c.setDefault("split_k", ConfigValue::ofInt(1));
  if (tma) {
    c.setDefault("group_m", ConfigValue::ofInt(8));
    c.setDefault("pingpong", ConfigValue::ofBool(false));
  }
  const bool pingpong = tma && c.getBool("pingpong");
  const int64_t bm = c.getInt("tile_m"), bn = c.getInt("tile_n"),
                bk = c.getInt("tile_k"), wg = c.getInt("warpgroups"),
                stages = c.getInt("stages");
  if (tma && (c.getInt("group_m") < 1 || c.getInt("group_m") > 64))
    return no("group_m must be in [1, 64]");
  if (!tma) { // The cp.async kernel has no tile order or schedules.
    c.erase("group_m");
    c.erase("pingpong");
    c.erase("cluster");
    c.erase("tma_store");
  }
  // cluster (TMA kernel): pairs of blocks on vertically adjacent tiles,
  // sharing each B tile through TMA multicast (matmul_sm90.cuh); a K-major
  // B tile splits into halves of whole 8-row swizzle atoms. Absent: 1.
  if (tma) {
    const int64_t cluster = c.getInt("cluster", 1);
    if (cluster != 1 && cluster != 2)
      return no("cluster must be 1 or 2 (blocks sharing B tiles)");
    if (cluster == 2 && l.transB && c.getInt("tile_n") % 16 != 0)
      return no("cluster = 2 with a K-major B needs tile_n a multiple of 16");
    // An N-major B tile is copied in 64-column blocks, split between the
    // two blocks: with one, the pair would share nothing.
    if (cluster == 2 && !l.transB && c.getInt("tile_n") <= 64)
      return no("cluster = 2 with an N-major B needs tile_n above 64");
  }
  if (pingpong && wg != 2)
    return no("pingpong takes two consumer warpgroups (warpgroups = 2)");
  if (bm != 64 && bm != 128 && bm != 256)
    return no("wgmma tile_m must be 64, 128 or 256");
  if (wg != 1 && wg != 2)
    return no("wgmma warpgroups must be 1 or 2");
  // Rows per warpgroup: its share of the tile, or in ping-pong all of it.
  const int64_t rows = pingpong ? bm : bm / wg;
  if (rows != 64 && rows != 128)
    return no(pingpong ? "wgmma ping-pong tile_m must be 64 or 128 rows"
                       : "wgmma tile_m / warpgroups must be 64 or 128 rows");
  if (bn % 8 != 0 || bn < 8 || bn > 256)
    return no("wgmma tile_n must be a multiple of 8 up to 256");
  if (rows / 64 * bn / 2 > 128)
    return no("wgmma tiles would hold more than 128 f32 accumulators a "
              "thread (tile_m / warpgroups / 64 * tile_n / 2)");
  if (bk != rowK)
    return no("wgmma tile_k must be " + std::to_string(rowK) +
              " (one 128-byte swizzled row of " + dtypeName(t) + ")");
  // The TMA kernel's barrier block holds 15 stages' barriers; 12 keep
  // every k tile of a 64 x 64 split-K share (K = 768) in flight at once.
  if (stages < 3 || stages > (tma ? 12 : 8))
    return no(tma ? "wgmma stages must be in [3, 12] on the TMA kernel"
                  : "wgmma stages must be in [3, 8] on the cp.async kernel");
  // split_k (TMA kernel, matmul_sm90.cuh's reduce_split_tile): clusters
  // of split_k blocks share each tile's K range and sum their partial
  // tiles through distributed shared memory, for products whose tiles do
  // not fill the GPU (pruning the autotuner's space elsewhere).
  const int64_t split = c.getInt("split_k");
  if (split != 1) {
    if (!tma)
      return no("split_k above 1 on the wgmma path takes the TMA kernel "
                "(tma = true)");
    if (split != 2 && split != 4 && split != 8)
      return no("wgmma split_k must be 1, 2, 4 or 8 (blocks of one "
                "cluster)");
    if (c.getInt("cluster", 1) != 1)
      return no("split_k and cluster (multicast pairs) exclude each other");
    if (pingpong)
      return no("split_k takes cooperative tiles (pingpong = false)");
    if (l.batch != 1)
      return no("split_k takes single products (batch 1)");
    if (bm % (8 * split) != 0)
      return no("split_k needs tile_m a multiple of 8 * split_k (each "
                "block sums whole 8-row groups)");
    if (ceilDiv(l.k, bk) < split)
      return no("split_k exceeds the product's " +
                std::to_string(ceilDiv(l.k, bk)) + " k tiles");
    if (tiles(bm, bn) >= kTargetSMs)
      return no("split_k is for products whose tiles do not fill the GPU "
                "(" +
                std::to_string(tiles(bm, bn)) + " tiles of " +
                std::to_string(bm) + " x " + std::to_string(bn) + ")");
  }
  // stream_k (TMA kernel, matmul_sm90.cuh): the tiles of the partial wave
  // (with one whole wave before them, where there is one) are cut along K
  // into one even share of k tiles per block of a grid of kTargetSMs; the
  // shares of a tile are summed in the engine's workspace
  // (launchWorkspaceBytes). Not a default: no GPU has timed it yet.
  if (c.getBool("stream_k")) {
    if (!tma)
      return no("stream_k takes the TMA kernel (tma = true)");
    if (split != 1)
      return no("stream_k and split_k exclude each other");
    if (c.getInt("cluster", 1) != 1)
      return no("stream_k and cluster (multicast pairs) exclude each other");
    if (pingpong)
      return no("stream_k takes cooperative tiles (pingpong = false)");
    if (l.batch != 1)
      return no("stream_k takes single products (batch 1)");
    const int64_t n = tiles(bm, bn);
    if (n % kTargetSMs == 0)
      return no("stream_k is for products whose tiles leave a partial wave "
                "(" +
                std::to_string(n) + " tiles of " + std::to_string(bm) +
                " x " + std::to_string(bn) + ")");
    const int64_t cut = n > kTargetSMs ? n % kTargetSMs + kTargetSMs : n;
    if (cut * ceilDiv(l.k, bk) < 2 * kTargetSMs)
      return no("stream_k needs 2 k tiles a block or more (" +
                std::to_string(cut * ceilDiv(l.k, bk)) + " k tiles for " +
                std::to_string(kTargetSMs) + " blocks)");
  }
  // stage_out (TMA kernel): the epilogue through shared memory with 16-byte
  // rows, where the output rows are 16-byte aligned and the epilogue rounds
  // the product to the output type first (a program, or no alpha/beta/C);
  // elsewhere it quietly stays off, as on the mma path.
  // swap_ab stages its tiles transposed (store_wgmma_tile_staged_swapped):
  // the epilogue runs in registers first, so any epilogue stages, and the
  // output's rows are 8-output chunks along the swapped l.m.
  const bool stageable =
      eb == 2 && s.outputs[0].alignment % 16 == 0 &&
      (l.swapped ? l.m % 8 == 0
                 : l.n % 8 == 0 &&
                       (c.has("epilogue") ||
                        (!l.hasC && c.getFloat("alpha", 1.0) == 1.0)));
  // On by default where there is an epilogue program to run, the tiles
  // take one wave (BERT 1x128's FFN1: 0.0084 ms staged, 0.0112 direct) or
  // ping-pong (whole-sector stores, above); off for large cooperative
  // tiles, which take the TMA store or keep a stage more.
  const bool oneWave =
      ceilDiv(l.m, c.getInt("tile_m")) * ceilDiv(l.n, c.getInt("tile_n")) <=
      kTargetSMs;
  const bool stageAsked = c.has("stage_out");
  // (split_k has its own epilogue: a staged one, maybe left by an earlier
  // configuration, quietly gives way.)
  bool stageOut = tma && split == 1 && stageable &&
                  c.getBool("stage_out", !storeAsked && (c.has("epilogue") ||
                                                         oneWave || pingpong));
  // matmul_sm90.cuh's wgmma_smem_bytes: the stages, each A (tile_m rows of
  // 128 bytes) and B (tile_n rows, or 64-column blocks of 64 k rows when B
  // is N-major), plus 1 KiB to align them to 1024 bytes.
  // The TMA kernel adds 256 bytes of mbarriers and, staging its epilogue,
  // a rows x (tile_n + 8) tile per consumer warpgroup (wgmma_tma_smem_bytes).
  const int64_t bRows = l.transB ? bn : ceilDiv(bn, 64) * 64;
  const int64_t base = 1024 + stages * (bm + bRows) * 128 + (tma ? 256 : 0);
  const int64_t staging =
      wg * (l.swapped ? bn * (rows + 8) : rows * (bn + 8)) * eb;
  // A staged epilogue nobody asked for gives way to stages that were asked
  // for (the autotuner's deep pipelines), rather than the config failing.
  if (stageOut && !stageAsked && base + staging > kMaxDynamicSmem)
    stageOut = false;
  if (tma)
    c.set("stage_out", ConfigValue::ofBool(stageOut));
  else
    c.erase("stage_out");
  // tma_store (TMA kernel): the epilogue's results written to shared memory
  // in 64-column blocks and stored by the copy engine (matmul_sm90.cuh's
  // store_wgmma_tile_tma): whole 32-byte sectors, where the direct path's
  // pair stores fill half of each (Nsight Compute, H200, BERT's FFN1:
  // 50 MB of L2 writes for a 25 MB output, and L2 at 71% of its peak).
  // Two buffers of rows x 64 outputs per consumer warpgroup (one where
  // tile_n is 64).
  const bool tmaStore = storeAsked;
  int64_t storeBytes = 0;
  if (tmaStore) {
    // The two epilogues exclude each other; the TMA store, where asked,
    // takes the place of the staged one (which may have been a default).
    if (stageOut) {
      stageOut = false;
      c.set("stage_out", ConfigValue::ofBool(false));
    }
    if (l.batch != 1)
      return no("tma_store takes single products (batch 1)");
    if (split > 1)
      return no("split_k has its own epilogue: tma_store must be false");
    if (eb != 2 || dtypeBytes(s.outputs[0].dtype) != 2)
      return no("tma_store writes 16-bit outputs");
    if (l.n % 8 != 0 || s.outputs[0].alignment % 16 != 0)
      return no("tma_store needs 16-byte aligned output rows (N % 8 == 0)");
    if (bn % 64 != 0)
      return no("tma_store stores 64-column blocks: tile_n must be a "
                "multiple of 64");
    storeBytes = wg * std::min<int64_t>(2, bn / 64) * rows * 128;
  }
  if (tma)
    c.set("tma_store", ConfigValue::ofBool(tmaStore));
  // epi_regs (staged epilogue): the epilogue program on the accumulators
  // in registers, the staged tile holding its results. Elsewhere it quietly
  // stays off, as stage_out does (the swapped staged epilogue always works
  // so; the other epilogues have no staged tile).
  if (c.has("epi_regs") && (!stageOut || l.swapped))
    c.erase("epi_regs");
  if (c.getBool("epi_regs", false) && c.has("epi_rows"))
    return no("epi_rows is the row walk's: with epi_regs there is none");
  // epi_rows (staged epilogue): rows of 8 outputs a thread loads, computes
  // and stores at once in its row walk (matmul_sm90.cuh), where the walk
  // keeps a thread's column (tile_n / 8 divides 128, not swapped). A thread
  // walks rows * tile_n / 1024 rows; epi_rows must divide them.
  if (c.has("epi_rows")) {
    const int64_t u = c.getInt("epi_rows");
    const int64_t walked = rows * bn / 1024;
    if (!stageOut || l.swapped || 128 % (bn / 8) != 0 || bn % 8 != 0)
      return no("epi_rows applies to the staged epilogue of tiles whose "
                "tile_n / 8 divides 128 (not swapped)");
    if (u < 1 || walked % u != 0)
      return no("epi_rows must divide the " + std::to_string(walked) +
                " rows a thread's epilogue walks");
  }
  const int64_t bytes = base + (stageOut ? staging : 0) + storeBytes +
                        (split > 1 ? bm * (bn + 8) * 4 : 0);
  if (bytes > kMaxDynamicSmem)
    return no("wgmma tiles need " + std::to_string(bytes) +
              " bytes of shared memory for " + std::to_string(stages) +
              " stages; a block has at most " +
              std::to_string(kMaxDynamicSmem));
  // TMA: a producer warpgroup beside the consumers.
  threads = 128 * (wg + (tma ? 1 : 0));
  s.smem = bytes;
  return true;
}
/// Whether mma.sync block tiles split into 16x16 warp tiles (warps_m x
/// warps_n warps, at most 16) with a tile_k of 16 to 64 in steps of 16.
bool validMmaTiles(int64_t bm, int64_t bn, int64_t bk, int64_t wm,
                   int64_t wn) {
  return wm >= 1 && wn >= 1 && bm % (16 * wm) == 0 && bn % (16 * wn) == 0 &&
         bk % 16 == 0 && bk >= 16 && bk <= 64 && wm * wn <= 16;
}

/// The implicit-GEMM convolution (conv path "igemm", EmitConvPool.cpp): mma
/// tiles of tile_m output channels x tile_n output pixels x tile_k of
/// C * KH * KW, a block per tile and image. Not the default until a GPU run
/// has checked it; the autotuner tries it, each candidate checked against
/// the reference.
bool configureConvIgemm(LaunchSpec &s, std::string &why) {
  Config &c = s.config;
  const BufferSpec &x = s.inputs[0], &out = s.outputs[0];
  auto no = [&](std::string m) {
    why = std::move(m);
    return false;
  };
  if (x.rank() != 4 || s.inputs.size() < 2 || s.inputs[1].rank() != 4)
    return no("the igemm convolution takes 2-D images (NCHW)");
  if (x.dtype != DType::F16 && x.dtype != DType::BF16)
    return no("the igemm convolution needs f16 or bf16");
  if (c.getInt("group", 1) != 1)
    return no("the igemm convolution takes no groups");
  const int64_t cout = s.inputs[1].shape[0],
                pixels = out.shape[2] * out.shape[3];
  const bool large = cout >= 128 && pixels >= 128;
  c.setDefault("tile_m", ConfigValue::ofInt(large ? 128 : 64));
  c.setDefault("tile_n", ConfigValue::ofInt(large ? 128 : 64));
  c.setDefault("tile_k", ConfigValue::ofInt(32));
  c.setDefault("warps_m", ConfigValue::ofInt(2));
  c.setDefault("warps_n", ConfigValue::ofInt(large ? 4 : 2));
  const int64_t bm = c.getInt("tile_m"), bn = c.getInt("tile_n"),
                bk = c.getInt("tile_k"), wm = c.getInt("warps_m"),
                wn = c.getInt("warps_n");
  if (!validMmaTiles(bm, bn, bk, wm, wn))
    return no("igemm " + std::string(kMmaTileRule));
  c.setDefault("stage_out", ConfigValue::ofBool(false));
  // stages: 1 (synchronous loads) or 2 (the image's next k tile gathered
  // into registers during the products). On the H200, ResNet50 64x224 fp16
  // (2026-12-04): two stages (profiles-132700) made the 56x56 3x3
  // convolutions 14% faster but cost registers (168 at 64x64 tiles, 244 at
  // 128x128), and the 7x7 ones with 512 blocks took a second wave and ran
  // 15-25% slower; one stage with the same per-column gather (75 and 127
  // registers) made every convolution 17-30% faster than the old loads
  // (profiles-133500; the model 12.10 -> 10.33 ms). One by default; the
  // autotuner's max space tries both.
  c.setDefault("stages", ConfigValue::ofInt(1));
  const int64_t stages = c.getInt("stages");
  if (stages != 1 && stages != 2)
    return no("igemm stages must be 1 or 2");
  // matmul.cuh's stages: each A [tile_m][tile_k + 8] and B
  // [tile_k][tile_n + 8] of 2-byte elements; static up to 48 KiB, else
  // dynamic.
  const int64_t bytes = stages * (bm * (bk + 8) + bk * (bn + 8)) * 2;
  if (bytes > kMaxDynamicSmem)
    return no("igemm tiles need " + std::to_string(bytes) +
              " bytes of shared memory; a block has at most " +
              std::to_string(kMaxDynamicSmem));
  s.smem = bytes <= 48 * 1024 ? 0 : bytes;
  s.block = {32 * wm * wn, 1, 1};
  s.grid = {std::clamp<int64_t>(ceilDiv(pixels, bn), 1, kMaxGridX),
            std::clamp<int64_t>(ceilDiv(cout, bm), 1, 65535),
            std::clamp<int64_t>(x.shape[0], 1, 65535)};
  return true;
}
} // namespace

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

/// A fused_elementwise launch's explicit maps: `space` has the outputs'
/// element count, `input_strides` one non-negative stride per input and axis
/// of it, and no input is read past its last element.
static bool explicitMapsValid(const LaunchSpec &s, std::string &why) {
  if (!s.config.has("space")) {
    why = "input_strides needs a space";
    return false;
  }
  std::vector<int64_t> space = s.config.getInts("space"),
                       strides = s.config.getInts("input_strides");
  int64_t n = 1;
  for (int64_t e : space) {
    if (e < 1) {
      why = "space extents must be positive";
      return false;
    }
    n *= e;
  }
  if (n != s.outputs[0].numElements()) {
    why = "space has " + std::to_string(n) + " elements, the output " +
          std::to_string(s.outputs[0].numElements());
    return false;
  }
  if (strides.size() != s.inputs.size() * space.size()) {
    why = "input_strides needs " + std::to_string(space.size()) +
          " strides per input";
    return false;
  }
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    int64_t last = 0;
    for (size_t k = 0; k < space.size(); ++k) {
      int64_t st = strides[i * space.size() + k];
      if (st < 0) {
        why = "input_strides must not be negative";
        return false;
      }
      last += st * (space[k] - 1);
    }
    if (last >= s.inputs[i].numElements()) {
      why = "input " + std::to_string(i) + " is read past its " +
            std::to_string(s.inputs[i].numElements()) + " elements";
      return false;
    }
  }
  return true;
}

bool configureLaunch(LaunchSpec &s, std::string &error,
                     const TargetOptions &target) {
  auto fail = [&](const std::string &msg) {
    error = "launch @" + s.name + " (" + s.kind + "): " + msg;
    return false;
  };
  if (!outputCountValid(s))
    return fail("expects exactly one output buffer");
  if (s.kind == "attention")
    return configureAttention(s, error, target);
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;

  // Elementwise kinds: inputs broadcast to the output, a grid-stride loop.
  auto broadcastLaunch = [&]() {
    if (s.kind == "fused_elementwise" && c.has("input_strides")) {
      if (!explicitMapsValid(s, why))
        return fail(why);
    } else {
      for (const BufferSpec &in : s.inputs)
        if (in.rank() > out.rank())
          return fail("an input has a higher rank than the output");
    }
    IndexSpace space = collapse(broadcastSpace(s));
    if (!checkVec(s, space, why))
      return fail(why);
    setElementwiseGrid(s, space, n / c.getInt("vec"));
    return true;
  };
  if (s.kind == "elementwise") {
    std::string op = c.getString("op");
    size_t arity = binaryOps().count(op)  ? 2
                   : op == "where"        ? 3
                   : unaryOps().count(op) ? 1
                                          : 0;
    if (arity == 0)
      return fail("unknown elementwise op '" + op + "'");
    if (s.inputs.size() != arity)
      return fail("op '" + op + "' takes " + std::to_string(arity) +
                  " inputs, got " + std::to_string(s.inputs.size()));
    return broadcastLaunch();
  }
  if (s.kind == "fused_elementwise") {
    std::vector<FusedStep> steps;
    if (!parseFusedProgram(c.getString("program"), s.inputs.size(), steps,
                           why))
      return fail(why);
    for (const FusedStep &st : steps) {
      if (st.op == "const") { // A literal: a value and no operands.
        if (!st.args.empty() || !st.attrs.has("value"))
          return fail("step 'const' takes a value and no operands");
        continue;
      }
      size_t arity = binaryOps().count(st.op)  ? 2
                     : st.op == "where"        ? 3
                     : unaryOps().count(st.op) ? 1
                                               : 0;
      if (arity == 0 || st.args.size() != arity)
        return fail("step '" + st.op + "' is not an elementwise op of " +
                    std::to_string(st.args.size()) + " operands");
    }
    // Several outputs: `outputs` names the step each stores, all of one
    // shape (one index space).
    if (c.has("outputs")) {
      std::vector<int64_t> outs = c.getInts("outputs");
      if (outs.size() != s.outputs.size())
        return fail("outputs names " + std::to_string(outs.size()) +
                    " steps for " + std::to_string(s.outputs.size()) +
                    " output buffers");
      for (size_t k = 0; k < outs.size(); ++k) {
        if (outs[k] < 0 || outs[k] >= static_cast<int64_t>(steps.size()) ||
            steps[outs[k]].dtype != s.outputs[k].dtype)
          return fail("output " + std::to_string(k) + " is not a step of " +
                      "its dtype");
        if (s.outputs[k].shape != out.shape)
          return fail("the outputs must all have one shape");
      }
    }
    return broadcastLaunch();
  }
  if (s.kind == "transpose" || s.kind == "slice" || s.kind == "trilu") {
    if (s.inputs.size() != 1 || s.inputs[0].rank() != out.rank())
      return fail("expects one input of the output's rank");
    IndexSpace space;
    if (s.kind == "transpose") {
      if (c.getInts("perm").size() != static_cast<size_t>(out.rank()))
        return fail("perm must have one entry per axis");
      space = collapse(transposeSpace(s));
      TransposeTiles tiles;
      bool tiled = transposeTiles(space, tiles);
      if (!c.has("variant"))
        c.set("variant", ConfigValue::ofString(tiled ? "tiled" : "index"));
      std::string variant = c.getString("variant");
      if (variant == "tiled") {
        if (!tiled)
          return fail("the tiled variant needs an innermost output axis "
                      "strided in the input");
        s.block = {32, 8, 1};
        s.grid = {std::clamp<int64_t>(tiles.tiles, 1, kMaxGridX), 1, 1};
        s.smem = 0;
        return true;
      }
      if (variant != "index")
        return fail("unknown transpose variant '" + variant + "'");
    } else if (s.kind == "slice") {
      if (c.getInts("starts").size() != static_cast<size_t>(out.rank()) ||
          c.getInts("steps").size() != static_cast<size_t>(out.rank()))
        return fail("starts and steps must have one entry per axis");
      space = collapse(sliceSpace(s));
    } else {
      if (out.rank() < 2)
        return fail("trilu needs rank >= 2");
      space = collapse(broadcastSpace(s), 2);
    }
    if (!checkVec(s, space, why))
      return fail(why);
    setGridStride(s, n / c.getInt("vec"));
    return true;
  }
  if (s.kind == "concat") {
    int64_t axis = c.getInt("axis", -1);
    if (s.inputs.empty() || axis < 0 || axis >= out.rank())
      return fail("concat needs inputs and an axis within the output's rank");
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < out.rank(); ++d)
      inner *= out.shape[d];
    std::vector<const BufferSpec *> moved = {&out};
    for (const BufferSpec &b : s.inputs)
      moved.push_back(&b);
    int64_t v = 1;
    if (!chooseRunVec(c, inner, dtypeBytes(out.dtype), moved, v, why))
      return fail(why);
    setGridStride(s, n / v);
    return true;
  }
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
    if (!c.has("variant"))
      c.set("variant", ConfigValue::ofString(
                           l.innerReduced && l.redCount >= 32 ? "row" : "col"));
    std::string variant = c.getString("variant");
    if (variant == "row") {
      int64_t block = c.getInt("block_size", rowBlockSize(l.redCount));
      c.set("block_size", ConfigValue::ofInt(block));
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
    if (!c.has("variant"))
      c.set("variant", ConfigValue::ofString(l.inner == 1 ? "row" : "col"));
    std::string variant = c.getString("variant");
    if (variant == "row") {
      if (l.inner != 1)
        return fail("the row variant needs the softmax axis innermost");
      int64_t team = c.getInt(
          "block_size", rowTeamSize(l.outer, l.len, dtypeBytes(out.dtype)));
      c.set("block_size", ConfigValue::ofInt(team));
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
        c.getInt("block_size",
                 rowTeamSize(rows, norm, dtypeBytes(out.dtype), true));
    c.set("block_size", ConfigValue::ofInt(team));
    if (!validRowTeam(team))
      return fail(kRowTeamRule);
    setRowGeometry(s, rows, team);
    return true;
  }
  if (s.kind == "matmul") {
    MatmulLayout l;
    if (!matmulLayout(s, l, why))
      return fail(why);
    const DType t = s.inputs[0].dtype;
    if (s.inputs[1].dtype != t || out.dtype != t)
      return fail("a, b and the output must have one element type");
    // tf32 is the launch's arithmetic (set by --precision=tf32), not a
    // tuning choice: every path honors it, so no path change alters it.
    if (const ConfigValue *v = c.find("tf32")) {
      if (v->kind != ConfigValue::Kind::Bool)
        return fail("tf32 must be true or false");
      if (v->b && t != DType::F32)
        return fail(std::string("tf32 needs f32 operands, not ") +
                    dtypeName(t));
    }
    const bool tensorCores = mmaTakes(s);
    if (!c.has("path")) {
      std::string path;
      if (!chooseMatmulPath(s, l, target, path, why))
        return fail(why);
      c.set("path", ConfigValue::ofString(path));
    }
    std::string path = c.getString("path");
    // Options of the wgmma path mean nothing on the others (a --set or a
    // path change can leave them behind).
    if (path != "wgmma") {
      c.erase("tma");
      c.erase("group_m");
      c.erase("pingpong");
      c.erase("cluster");
      c.erase("tma_store");
      c.erase("stream_k");
      c.erase("swap_ab");
    }
    // swap_ab (TMA kernel): the kernel computes C^T = B^T A^T and stores
    // its tiles transposed; from here on `l` describes that product. The
    // default where 128 x 128 tiles fill under 80% of the GPU and 128 x 96
    // tiles of the transpose (96 rows along M) make one wave of 126-132:
    // the ResNet 1x1 (3136 x 512, K = 2048; 100 tiles, or 4 x 33 = 132
    // swapped). H100 80GB, 2026-12-05 (session-221300), against the
    // staged 128 x 128 default: fp16 0.0157 vs 0.0165 ms, bf16 0.0155 vs
    // 0.0164 (torch.matmul replayed from a graph: 0.0148, 0.0144).
    if (path == "wgmma" && !c.has("swap_ab") && !c.has("tile_m") &&
        !c.has("tile_n") && !c.has("split_k") && !c.has("stream_k") &&
        !c.has("pingpong") && !c.getBool("tf32") && l.batch == 1 &&
        c.getBool("tma", true) && dtypeBytes(t) == 2 &&
        ceilDiv(l.m, 128) * ceilDiv(l.n, 128) * 5 < kTargetSMs * 4) {
      const int64_t swapped = ceilDiv(l.n, 128) * ceilDiv(l.m, 96);
      if (swapped <= kTargetSMs && swapped * 100 >= kTargetSMs * 95) {
        c.set("swap_ab", ConfigValue::ofBool(true));
        c.set("tile_m", ConfigValue::ofInt(128));
        c.set("tile_n", ConfigValue::ofInt(96));
        c.set("warpgroups", ConfigValue::ofInt(2));
      }
    }
    if (c.getBool("swap_ab"))
      swapOperands(l);
    if (path == "cublaslt") {
      // A library call (LibraryCalls.h), never the heuristic's choice: only
      // a measurement or --set puts it here. No kernel of Kiln's runs.
      engine::LibraryCallSpec call;
      if (!cublasLtCall(s, call, why))
        return fail("cuBLASLt cannot run this matmul: " + why);
      for (const char *k : {"tile_m", "tile_n", "tile_k", "warps_m",
                            "warps_n", "stage_out", "stages", "split_k",
                            "warpgroups"})
        c.erase(k);
      c.setDefault("algo", ConfigValue::ofInt(0));
      if (c.getInt("algo") < 0 || c.getInt("algo") > 7)
        return fail("algo must be in [0, 7] (an answer of cuBLASLt's "
                    "heuristic)");
      // The library version that measured it (cublasLtGetVersion; 0:
      // unknown), recorded in the engine. An integer, as a cache entry's
      // text reads back.
      c.setDefault("lt_version",
                   ConfigValue::ofInt(std::strtoll(
                       target.cublasLtVersion.c_str(), nullptr, 10)));
      if (c.getInt("lt_version") < 0)
        return fail("lt_version must be a cuBLASLt version (>= 0)");
      s.grid = {1, 1, 1};
      s.block = {1, 1, 1};
      s.smem = 0;
      return true;
    }
    c.erase("algo");
    c.erase("lt_version");
    // 128x128 tiles only when they fill the GPU (one block per SM of an
    // H100/H200-class part); otherwise 64x64 tiles give 4x the blocks.
    bool big = l.m >= 128 && l.n >= 128 &&
               ceilDiv(l.m, 128) * ceilDiv(l.n, 128) * l.batch >= kTargetSMs;
    int64_t threads;
    if (path == "mma") {
      if (!tensorCores)
        return fail("the mma path needs f16 or bf16 operands, or f32 ones "
                    "with tf32 (--precision=tf32)");
      c.setDefault("tile_m", ConfigValue::ofInt(big ? 128 : 64));
      c.setDefault("tile_n", ConfigValue::ofInt(big ? 128 : 64));
      // tf32: 16-deep k tiles of 4-byte elements, the bytes and the mma
      // steps of a stage of f16's 32 (so the same shared memory, static
      // up to 64 x 64 tiles with 3 stages).
      c.setDefault("tile_k", ConfigValue::ofInt(t == DType::F32 ? 16 : 32));
      c.setDefault("warps_m", ConfigValue::ofInt(2));
      c.setDefault("warps_n", ConfigValue::ofInt(big ? 4 : 2));
      c.setDefault("stage_out", ConfigValue::ofBool(false));
      int64_t bm = c.getInt("tile_m"), bn = c.getInt("tile_n"),
              bk = c.getInt("tile_k");
      int64_t wm = c.getInt("warps_m"), wn = c.getInt("warps_n");
      if (!validMmaTiles(bm, bn, bk, wm, wn))
        return fail("mma " + std::string(kMmaTileRule));
      threads = 32 * wm * wn;
      // STAGES pipeline stages of padded A and B tiles (matmul.cuh's
      // mma_layout: rows padded by 8 elements, or for f32 by 4 where k is
      // contiguous and 8 where m or n is), in the larger of the two
      // layouts. On the H200 (2026-12-02): three for the
      // 64x64 tiles of small products (BERT / GPT-2 at batch 1: 0.637 /
      // 0.648 ms vs 0.658 / 0.658 with two, bench run-203224 vs
      // run-202745), two for 128x128 tiles (four made 4096^3 20% slower,
      // micro-200158; sm_90 gives those products to wgmma anyway).
      c.setDefault("stages", ConfigValue::ofInt(big ? 2 : 3));
      const int64_t stages = c.getInt("stages");
      if (stages < 2 || stages > 8)
        return fail("stages must be in [2, 8]");
      const int64_t eb = dtypeBytes(t), padK = t == DType::F32 ? 4 : 8,
                    padMN = 8;
      int64_t stage = std::max(bm * (bk + padK), bk * (bm + padMN)) * eb +
                      std::max(bk * (bn + padMN), bn * (bk + padK)) * eb;
      if (stages * stage > kMaxDynamicSmem)
        return fail("mma tiles need " + std::to_string(stages * stage) +
                    " bytes of shared memory for " + std::to_string(stages) +
                    " stages; a block has at most " +
                    std::to_string(kMaxDynamicSmem));
      // Split-K (matmul.cuh's SPLIT): with too few output tiles to fill the
      // GPU and a long K, clusters of blocks share each tile's K range,
      // doubling while that stays within two blocks per SM and leaves each
      // block at least 4 k tiles.
      const int64_t tiles = ceilDiv(l.m, bm) * ceilDiv(l.n, bn) * l.batch,
                    kTiles = ceilDiv(l.k, bk);
      if (!c.has("split_k"))
        c.set("split_k",
              ConfigValue::ofInt(defaultSplitK(
                  tiles, kTiles, 2 * kTargetSMs, /*minKTiles=*/4,
                  [&](int64_t sp) {
                    return bm % sp == 0 && bm * (bn + 4) * 4 <= 48 * 1024;
                  })));
      const int64_t split = c.getInt("split_k");
      if (split != 1 && split != 2 && split != 4 && split != 8)
        return fail("split_k must be 1, 2, 4 or 8 (blocks of one cluster)");
      if (split > 1 && (bm % split != 0 || bm * (bn + 4) * 4 > 48 * 1024))
        return fail("split_k needs tile_m divisible by it and a f32 tile_m x "
                    "tile_n partial tile within 48 KiB");
      // The kernel's shared memory (matmul.cuh's SMEM): static up to 48 KiB,
      // else dynamic (the runtime raises the kernel's limit).
      const int64_t bytes =
          std::max(stages * stage, split > 1 ? bm * (bn + 4) * 4 : 0);
      s.smem = bytes <= 48 * 1024 ? 0 : bytes;
    } else if (path == "wgmma") {
      if (!configureWgmma(s, l, target, threads, why))
        return fail(why);
    } else if (path == "simt") {
      // 16 x 16 threads, each with (tile / 16)^2 outputs: 2x2 for small
      // problems, 4x4 by default, 8x8 when there are enough tiles to fill
      // the GPU anyway.
      bool small = l.m <= 32 || l.n <= 32;
      bool large = l.m * l.n * l.batch >= int64_t(1024) * 1024;
      int64_t tile = small ? 32 : large ? 128 : 64;
      c.setDefault("tile_m", ConfigValue::ofInt(tile));
      c.setDefault("tile_n", ConfigValue::ofInt(tile));
      c.setDefault("tile_k", ConfigValue::ofInt(16));
      int64_t bm = c.getInt("tile_m"), bn = c.getInt("tile_n"),
              bk = c.getInt("tile_k");
      if (bm % 16 != 0 || bn % 16 != 0 || bm > 128 || bn > 128 || bk < 1 ||
          bk > 32)
        return fail("simt tiles must be multiples of 16 up to 128 and tile_k "
                    "in [1, 32]");
      threads = 256;
      s.smem = 0;
      if (c.getInt("split_k", 1) != 1)
        return fail("split_k is a tensor-core (mma) path option");
      int64_t accBytes = t == DType::F64 || isInteger(t) ? 8 : 4;
      if (bk * (bm + 1 + bn + 1) * accBytes > 48 * 1024)
        return fail("simt tiles need more than 48 KiB of static shared memory");
    } else {
      return fail("unknown matmul path '" + path +
                  "' (mma, wgmma, simt or cublaslt)");
    }
    int64_t bm = c.getInt("tile_m"), bn = c.getInt("tile_n");
    s.block = {threads, 1, 1};
    if (path == "wgmma" && c.getBool("tma")) {
      // Persistent: a block per SM (kTargetSMs), each taking output tiles
      // (clusters: pairs of them) in grouped order; any grid of whole
      // clusters is correct.
      // Split-K: clusters of split_k blocks, one tile each at a time.
      const int64_t cluster =
          c.getInt("cluster", 1) * c.getInt("split_k", 1);
      s.grid = {std::clamp<int64_t>(ceilDiv(ceilDiv(l.m, bm),
                                            c.getInt("cluster", 1)) *
                                        ceilDiv(l.n, bn) * l.batch,
                                    1, kTargetSMs / cluster) *
                    cluster,
                1, 1};
      // Stream-K: every SM takes a share, however few the tiles.
      if (c.getBool("stream_k"))
        s.grid = {kTargetSMs, 1, 1};
      return true;
    }
    s.grid = {std::clamp<int64_t>(ceilDiv(l.n, bn) * c.getInt("split_k", 1), 1,
                                  kMaxGridX),
              std::clamp<int64_t>(ceilDiv(l.m, bm), 1, 65535),
              std::clamp<int64_t>(l.batch, 1, 65535)};
    return true;
  }
  if (s.kind == "conv" || s.kind == "pool") {
    if (s.inputs.empty() || s.inputs[0].rank() < 3 ||
        out.rank() != s.inputs[0].rank())
      return fail("expects an input and output of one rank >= 3");
    // With no path given, the implicit GEMM where its default tiles make a
    // block for every SM of an H100/H200-class part, else the direct kernel.
    // H200, 2026-12-03 (session-211200, ResNet50 fp16 profiles): igemm was
    // 5-10x faster on every 3x3 and stem convolution of 64 images (e.g.
    // 56x56x64 3x3: 0.373 vs 2.652 ms) and on the stem of one (0.030 vs
    // 0.054 ms; 196 blocks), and 1.4-2.5x slower on the other 3x3
    // convolutions of one image (49 blocks or fewer, a long K each).
    if (s.kind == "conv" && !c.has("path") && archAtLeast(target.arch, 80)) {
      LaunchSpec trial = s;
      std::string ignored;
      if (configureConvIgemm(trial, ignored) &&
          trial.grid[0] * trial.grid[1] * trial.grid[2] >= kTargetSMs) {
        s = std::move(trial);
        s.config.set("path", ConfigValue::ofString("igemm"));
        return true;
      }
    }
    if (s.kind == "conv" && c.getString("path", "direct") == "igemm")
      return configureConvIgemm(s, why) || fail(why);
    if (s.kind == "conv" && c.getString("path", "direct") != "direct")
      return fail("conv path must be direct or igemm, not '" +
                  c.getString("path") + "'");
    setGridStride(s, n);
    return true;
  }
  if (s.kind == "gather" || s.kind == "gather_elements") {
    if (s.inputs.size() != 2 || !isInteger(s.inputs[1].dtype))
      return fail("expects data and integer indices");
    int64_t axis = c.getInt("axis", -1);
    if (axis < 0 || axis >= s.inputs[0].rank())
      return fail("axis out of range");
    int64_t v = 1;
    if (s.kind == "gather") {
      int64_t inner = 1;
      for (int64_t d = axis + 1; d < s.inputs[0].rank(); ++d)
        inner *= s.inputs[0].shape[d];
      if (!chooseRunVec(c, inner, dtypeBytes(out.dtype),
                        {&s.inputs[0], &out}, v, why))
        return fail(why);
    }
    setGridStride(s, n / v);
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen
