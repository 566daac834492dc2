//===- Heuristic.cpp - Matmul: path, tiles, stages and geometry -----------------===//
#include "compiler/kernels/matmul/Matmul.h"
#include "compiler/kernels/common/Geometry.h"
#include "compiler/kernels/common/Layouts.h"
#include "compiler/kernels/library/LibraryCalls.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace kiln::codegen {

using namespace cuda;

namespace {
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
    if (!c.get(keys::tma, true))
      return no("tf32 on the wgmma path takes the TMA kernel (tma = true)");
    if (c.has(keys::stage_out) && c.get(keys::stage_out))
      return no("the staged epilogue stores 16-bit outputs; tf32 products "
                "store f32");
    c.set(keys::stage_out, false);
  }
  // swap_ab: the TMA kernel on C^T = B^T A^T (`l` is swapped), its tiles
  // stored transposed by the direct or the staged epilogue: tile_m runs
  // along the output's columns, tile_n along its rows (cuBLAS's answer to
  // 100 tiles on 132 SMs: 96-row tiles along M make one wave of 132).
  if (l.swapped) {
    if (tf32 || !c.get(keys::tma, true) || l.batch != 1)
      return no("swap_ab takes single f16/bf16 products on the TMA kernel");
    if (c.get(keys::split_k, 1) != 1 || c.get(keys::stream_k))
      return no("swap_ab takes neither split_k nor stream_k");
    if (c.get(keys::tma_store))
      return no("swap_ab stores its tiles transposed, not through the TMA "
                "store");
    c.set(keys::tma_store, false);
    c.set(keys::split_k, 1);
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
  if (l.batch == 1 && c.get(keys::tma, true) && !c.has(keys::tile_m) &&
      !c.has(keys::tile_n)) {
    if (!c.has(keys::pingpong) && !c.has(keys::warpgroups) && l.m > 64 && l.n > 64 &&
        !tf32 && l.k < pingpongMaxK && tiles(128, 128) >= 4 * kTargetSMs &&
        !c.get(keys::stream_k)) {
      c.set(keys::tile_m, 128);
      c.set(keys::tile_n, 128);
      c.set(keys::warpgroups, 2);
      c.set(keys::pingpong, true);
      c.setDefault(keys::stages, 4);
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
                         c.get(keys::tma_store)))
          continue; // (the TMA store writes 64-column blocks)
        // Pairs sharing an N-major B split it in 64-column blocks (where N
        // has more than one, a narrow tile would leave them nothing).
        if (bn <= 64 && l.n > 64 && c.get(keys::cluster, 1) == 2 && !l.transB)
          continue;
        // 64-row tiles hold one warpgroup: not what two (or ping-pong) asks.
        if (bm == 64 &&
            (c.get(keys::warpgroups, 1) == 2 || c.get(keys::pingpong)))
          continue;
        const int64_t cost = ceilDiv(tiles(bm, bn), kTargetSMs) *
                             (bm * bn + 32 * (bm + bn));
        if (!bestM || cost < bestCost) {
          bestM = bm;
          bestN = bn;
          bestCost = cost;
        }
      }
      c.set(keys::tile_m, bestM);
      c.set(keys::tile_n, bestN);
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
      if (eb == 2 && !c.has(keys::split_k) && !c.has(keys::cluster) &&
          !c.has(keys::pingpong) && !c.get(keys::stream_k) &&
          !c.get(keys::tma_store)) {
        const int64_t split = defaultSplitK(
            tiles(bestM, bestN), kTiles, kTargetSMs, kMinSplitKTiles,
            [&](int64_t sp) { return bestM % (8 * sp) == 0; });
        if (split > 1)
          c.set(keys::split_k, split);
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
  if (aShared && l.n >= 512 && !c.has(keys::tma) && !c.has(keys::tile_m) &&
      !c.has(keys::tile_n) && !c.has(keys::warpgroups) && !c.has(keys::pingpong)) {
    c.set(keys::tma, true);
    c.setDefault(keys::stages, 4); // As measured.
    if (l.m > 64) {
      c.set(keys::tile_m, 128);
      c.set(keys::tile_n, 128);
      c.setDefault(keys::stage_out, true);
    }
  }
  c.setDefault(keys::tile_m, wide || tall ? 128 : 64);
  c.setDefault(keys::tile_n, wide ? 256 : 128);
  c.setDefault(keys::tile_k, rowK);
  c.setDefault(keys::warpgroups, c.get(keys::tile_m) == 64 ? 1 : 2);
  // The warp-specialized kernel fed by TMA for single products; batched
  // ones (3-D tensor maps) take it when asked (tma=true, or the autotuner)
  // until a GPU run has checked them.
  c.setDefault(keys::tma, l.batch == 1);
  const bool tma = c.get(keys::tma);
  const int64_t bRows0 = l.transB ? c.get(keys::tile_n)
                                  : ceilDiv(c.get(keys::tile_n), 64) * 64;
  const int64_t stageBytes0 = (c.get(keys::tile_m) + bRows0) * 128;
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
  const bool pingpong0 = tma && c.get(keys::pingpong, false);
  // Split-K (TMA kernel): its reduction buffer, an f32 tile, takes the
  // place of the epilogue's shared memory (it has its own epilogue).
  const int64_t split0 = tma ? c.get(keys::split_k, 1) : 1;
  if (tma && split0 == 1 && !pingpong0 && !c.has("epilogue") &&
      l.batch == 1 && eb == 2 &&
      dtypeBytes(s.outputs[0].dtype) == 2 && l.n % 8 == 0 &&
      s.outputs[0].alignment % 16 == 0 && c.get(keys::tile_n) % 64 == 0 &&
      tiles(c.get(keys::tile_m), c.get(keys::tile_n)) >= 2 * kTargetSMs)
    c.setDefault(keys::tma_store, true);
  const bool storeAsked = tma && c.get(keys::tma_store, false);
  const int64_t stagingBytes0 =
      split0 > 1 ? c.get(keys::tile_m) * (c.get(keys::tile_n) + 8) * 4
      : tma && c.get(keys::stage_out,
                       !storeAsked &&
                           (c.has("epilogue") || pingpong0 ||
                            ceilDiv(l.m, c.get(keys::tile_m)) *
                                    ceilDiv(l.n, c.get(keys::tile_n)) <=
                                kTargetSMs))
          ? (l.swapped // transposed: tile_n rows of each warpgroup's rows
                 ? c.get(keys::tile_n) *
                       (c.get(keys::tile_m) + 8 * c.get(keys::warpgroups))
                 : c.get(keys::tile_m) * (c.get(keys::tile_n) + 8)) *
                eb * (c.get(keys::pingpong) ? 2 : 1)
      : storeAsked
          ? c.get(keys::tile_m) * std::min<int64_t>(2, c.get(keys::tile_n) / 64) *
                128 * (c.get(keys::pingpong) ? 2 : 1)
          : 0;
  // cp.async: 4 stages (H200, 2026-12-02). TMA: as many as fit, up to 6
  // (4 at 128 x 256, 6 at 128 x 128; a stage less with a staged epilogue).
  c.setDefault(keys::stages, 
                   tma ? std::clamp<int64_t>((kMaxDynamicSmem - 1024 - 256 -
                                              stagingBytes0) /
                                                 stageBytes0,
                                             3, 6)
                       : 4);
  c.setDefault(keys::split_k, 1);
  if (tma) {
    c.setDefault(keys::group_m, 8);
    c.setDefault(keys::pingpong, false);
  }
  const bool pingpong = tma && c.get(keys::pingpong);
  const int64_t bm = c.get(keys::tile_m), bn = c.get(keys::tile_n),
                bk = c.get(keys::tile_k), wg = c.get(keys::warpgroups),
                stages = c.get(keys::stages);
  if (tma && (c.get(keys::group_m) < 1 || c.get(keys::group_m) > 64))
    return no("group_m must be in [1, 64]");
  if (!tma) { // The cp.async kernel has no tile order or schedules.
    c.erase(keys::group_m);
    c.erase(keys::pingpong);
    c.erase(keys::cluster);
    c.erase(keys::tma_store);
  }
  // cluster (TMA kernel): pairs of blocks on vertically adjacent tiles,
  // sharing each B tile through TMA multicast (matmul_sm90.cuh); a K-major
  // B tile splits into halves of whole 8-row swizzle atoms. Absent: 1.
  if (tma) {
    const int64_t cluster = c.get(keys::cluster, 1);
    if (cluster != 1 && cluster != 2)
      return no("cluster must be 1 or 2 (blocks sharing B tiles)");
    if (cluster == 2 && l.transB && c.get(keys::tile_n) % 16 != 0)
      return no("cluster = 2 with a K-major B needs tile_n a multiple of 16");
    // An N-major B tile is copied in 64-column blocks, split between the
    // two blocks: with one, the pair would share nothing.
    if (cluster == 2 && !l.transB && c.get(keys::tile_n) <= 64)
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
  const int64_t split = c.get(keys::split_k);
  if (split != 1) {
    if (!tma)
      return no("split_k above 1 on the wgmma path takes the TMA kernel "
                "(tma = true)");
    if (split != 2 && split != 4 && split != 8)
      return no("wgmma split_k must be 1, 2, 4 or 8 (blocks of one "
                "cluster)");
    if (c.get(keys::cluster, 1) != 1)
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
  if (c.get(keys::stream_k)) {
    if (!tma)
      return no("stream_k takes the TMA kernel (tma = true)");
    if (split != 1)
      return no("stream_k and split_k exclude each other");
    if (c.get(keys::cluster, 1) != 1)
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
      ceilDiv(l.m, c.get(keys::tile_m)) * ceilDiv(l.n, c.get(keys::tile_n)) <=
      kTargetSMs;
  const bool stageAsked = c.has(keys::stage_out);
  // (split_k has its own epilogue: a staged one, maybe left by an earlier
  // configuration, quietly gives way.)
  bool stageOut = tma && split == 1 && stageable &&
                  c.get(keys::stage_out, !storeAsked && (c.has("epilogue") ||
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
    c.set(keys::stage_out, stageOut);
  else
    c.erase(keys::stage_out);
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
      c.set(keys::stage_out, false);
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
    c.set(keys::tma_store, tmaStore);
  // epi_regs (staged epilogue): the epilogue program on the accumulators
  // in registers, the staged tile holding its results. Elsewhere it quietly
  // stays off, as stage_out does (the swapped staged epilogue always works
  // so; the other epilogues have no staged tile).
  if (c.has(keys::epi_regs) && (!stageOut || l.swapped))
    c.erase(keys::epi_regs);
  if (c.get(keys::epi_regs, false) && c.has(keys::epi_rows))
    return no("epi_rows is the row walk's: with epi_regs there is none");
  // epi_rows (staged epilogue): rows of 8 outputs a thread loads, computes
  // and stores at once in its row walk (matmul_sm90.cuh), where the walk
  // keeps a thread's column (tile_n / 8 divides 128, not swapped). A thread
  // walks rows * tile_n / 1024 rows; epi_rows must divide them.
  if (c.has(keys::epi_rows)) {
    const int64_t u = c.get(keys::epi_rows);
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
} // namespace

bool configureMatmul(LaunchSpec &s, std::string &error,
                     const TargetOptions &target) {
  const BufferSpec &out = s.outputs[0];
  const int64_t n = out.numElements();
  Config &c = s.config;
  std::string why;
  auto fail = [&](const std::string &msg) { return refuse(error, msg); };
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
    if (!c.has(keys::path)) {
      std::string path;
      if (!chooseMatmulPath(s, l, target, path, why))
        return fail(why);
      c.set(keys::path, path);
    }
    std::string path = c.get(keys::path);
    // Options of the wgmma path mean nothing on the others (a --set or a
    // path change can leave them behind).
    if (path != "wgmma") {
      c.erase(keys::tma);
      c.erase(keys::group_m);
      c.erase(keys::pingpong);
      c.erase(keys::cluster);
      c.erase(keys::tma_store);
      c.erase(keys::stream_k);
      c.erase(keys::swap_ab);
    }
    // swap_ab (TMA kernel): the kernel computes C^T = B^T A^T and stores
    // its tiles transposed; from here on `l` describes that product. The
    // default where 128 x 128 tiles fill under 80% of the GPU and 128 x 96
    // tiles of the transpose (96 rows along M) make one wave of 126-132:
    // the ResNet 1x1 (3136 x 512, K = 2048; 100 tiles, or 4 x 33 = 132
    // swapped). H100 80GB, 2026-12-05 (session-221300), against the
    // staged 128 x 128 default: fp16 0.0157 vs 0.0165 ms, bf16 0.0155 vs
    // 0.0164 (torch.matmul replayed from a graph: 0.0148, 0.0144).
    if (path == "wgmma" && !c.has(keys::swap_ab) && !c.has(keys::tile_m) &&
        !c.has(keys::tile_n) && !c.has(keys::split_k) && !c.has(keys::stream_k) &&
        !c.has(keys::pingpong) && !c.getBool("tf32") && l.batch == 1 &&
        c.get(keys::tma, true) && dtypeBytes(t) == 2 &&
        ceilDiv(l.m, 128) * ceilDiv(l.n, 128) * 5 < kTargetSMs * 4) {
      const int64_t swapped = ceilDiv(l.n, 128) * ceilDiv(l.m, 96);
      if (swapped <= kTargetSMs && swapped * 100 >= kTargetSMs * 95) {
        c.set(keys::swap_ab, true);
        c.set(keys::tile_m, 128);
        c.set(keys::tile_n, 96);
        c.set(keys::warpgroups, 2);
      }
    }
    if (c.get(keys::swap_ab))
      swapOperands(l);
    if (path == "cublaslt") {
      // A library call (LibraryCalls.h), never the heuristic's choice: only
      // a measurement or --set puts it here. No kernel of Kiln's runs.
      engine::LibraryCallSpec call;
      if (!cublasLtCall(s, call, why))
        return fail("cuBLASLt cannot run this matmul: " + why);
      for (const KeyInfo *k :
           {&keys::tile_m.info, &keys::tile_n.info, &keys::tile_k.info,
            &keys::warps_m.info, &keys::warps_n.info, &keys::stage_out.info,
            &keys::stages.info, &keys::split_k.info, &keys::warpgroups.info})
        c.erase(k->name);
      c.setDefault(keys::algo, 0);
      if (c.get(keys::algo) < 0 || c.get(keys::algo) > 7)
        return fail("algo must be in [0, 7] (an answer of cuBLASLt's "
                    "heuristic)");
      // The library version that measured it (cublasLtGetVersion; 0:
      // unknown), recorded in the engine. An integer, as a cache entry's
      // text reads back.
      c.setDefault(keys::lt_version, std::strtoll(
                       target.cublasLtVersion.c_str(), nullptr, 10));
      if (c.get(keys::lt_version) < 0)
        return fail("lt_version must be a cuBLASLt version (>= 0)");
      s.grid = {1, 1, 1};
      s.block = {1, 1, 1};
      s.smem = 0;
      return true;
    }
    c.erase(keys::algo);
    c.erase(keys::lt_version);
    // 128x128 tiles only when they fill the GPU (one block per SM of an
    // H100/H200-class part); otherwise 64x64 tiles give 4x the blocks.
    bool big = l.m >= 128 && l.n >= 128 &&
               ceilDiv(l.m, 128) * ceilDiv(l.n, 128) * l.batch >= kTargetSMs;
    int64_t threads;
    if (path == "mma") {
      if (!tensorCores)
        return fail("the mma path needs f16 or bf16 operands, or f32 ones "
                    "with tf32 (--precision=tf32)");
      c.setDefault(keys::tile_m, big ? 128 : 64);
      c.setDefault(keys::tile_n, big ? 128 : 64);
      // tf32: 16-deep k tiles of 4-byte elements, the bytes and the mma
      // steps of a stage of f16's 32 (so the same shared memory, static
      // up to 64 x 64 tiles with 3 stages).
      c.setDefault(keys::tile_k, t == DType::F32 ? 16 : 32);
      c.setDefault(keys::warps_m, 2);
      c.setDefault(keys::warps_n, big ? 4 : 2);
      c.setDefault(keys::stage_out, false);
      int64_t bm = c.get(keys::tile_m), bn = c.get(keys::tile_n),
              bk = c.get(keys::tile_k);
      int64_t wm = c.get(keys::warps_m), wn = c.get(keys::warps_n);
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
      c.setDefault(keys::stages, big ? 2 : 3);
      const int64_t stages = c.get(keys::stages);
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
      if (!c.has(keys::split_k))
        c.set(keys::split_k, defaultSplitK(
                  tiles, kTiles, 2 * kTargetSMs, /*minKTiles=*/4,
                  [&](int64_t sp) {
                    return bm % sp == 0 && bm * (bn + 4) * 4 <= 48 * 1024;
                  }));
      const int64_t split = c.get(keys::split_k);
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
      c.setDefault(keys::tile_m, tile);
      c.setDefault(keys::tile_n, tile);
      c.setDefault(keys::tile_k, 16);
      int64_t bm = c.get(keys::tile_m), bn = c.get(keys::tile_n),
              bk = c.get(keys::tile_k);
      if (bm % 16 != 0 || bn % 16 != 0 || bm > 128 || bn > 128 || bk < 1 ||
          bk > 32)
        return fail("simt tiles must be multiples of 16 up to 128 and tile_k "
                    "in [1, 32]");
      threads = 256;
      s.smem = 0;
      if (c.get(keys::split_k, 1) != 1)
        return fail("split_k is a tensor-core (mma) path option");
      int64_t accBytes = t == DType::F64 || isInteger(t) ? 8 : 4;
      if (bk * (bm + 1 + bn + 1) * accBytes > 48 * 1024)
        return fail("simt tiles need more than 48 KiB of static shared memory");
    } else {
      return fail("unknown matmul path '" + path +
                  "' (mma, wgmma, simt or cublaslt)");
    }
    int64_t bm = c.get(keys::tile_m), bn = c.get(keys::tile_n);
    s.block = {threads, 1, 1};
    if (path == "wgmma" && c.get(keys::tma)) {
      // Persistent: a block per SM (kTargetSMs), each taking output tiles
      // (clusters: pairs of them) in grouped order; any grid of whole
      // clusters is correct.
      // Split-K: clusters of split_k blocks, one tile each at a time.
      const int64_t cluster =
          c.get(keys::cluster, 1) * c.get(keys::split_k, 1);
      s.grid = {std::clamp<int64_t>(ceilDiv(ceilDiv(l.m, bm),
                                            c.get(keys::cluster, 1)) *
                                        ceilDiv(l.n, bn) * l.batch,
                                    1, kTargetSMs / cluster) *
                    cluster,
                1, 1};
      // Stream-K: every SM takes a share, however few the tiles.
      if (c.get(keys::stream_k))
        s.grid = {kTargetSMs, 1, 1};
      return true;
    }
    s.grid = {std::clamp<int64_t>(ceilDiv(l.n, bn) * c.get(keys::split_k, 1), 1,
                                  kMaxGridX),
              std::clamp<int64_t>(ceilDiv(l.m, bm), 1, 65535),
              std::clamp<int64_t>(l.batch, 1, 65535)};
    return true;
  }
  return fail("unknown kernel kind");
}

} // namespace kiln::codegen
