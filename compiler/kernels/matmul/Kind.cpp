//===- Kind.cpp - the matmul kind ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/matmul/Matmul.h"

namespace kiln::codegen {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
using autotune::SearchLevel;
using autotune::TuningConfig;
void mmaSpace(SearchLevel level, std::vector<TuningConfig> &out) {
  struct Warps {
    int64_t m, n;
  };
  const bool max = level == SearchLevel::Max;
  const std::vector<int64_t> tiles = {64, 128};
  const std::vector<int64_t> tileK = max ? std::vector<int64_t>{32, 64}
                                         : std::vector<int64_t>{32};
  const std::vector<int64_t> stages = max ? std::vector<int64_t>{2, 3, 4}
                                          : std::vector<int64_t>{2, 3};
  const std::vector<int64_t> splits = max ? std::vector<int64_t>{1, 2, 4, 8}
                                          : std::vector<int64_t>{1, 2, 4};
  const std::vector<Warps> warps = max ? std::vector<Warps>{{2, 2}, {2, 4}, {4, 2}}
                                       : std::vector<Warps>{};
  for (int64_t bm : tiles)
    for (int64_t bn : tiles) {
      // Default: square tiles with their usual warps (2x2 for 64, 2x4 for
      // 128), the shapes the heuristic picks from.
      if (!max && bm != bn)
        continue;
      std::vector<Warps> ws = max ? warps
                                  : std::vector<Warps>{{2, bm == 64 ? 2 : 4}};
      for (int64_t bk : tileK)
        for (const Warps &w : ws)
          for (int64_t st : stages)
            for (int64_t sk : splits)
              out.push_back({{keys::path.name(), "mma"},
                             {keys::tile_m.name(), str(bm)},
                             {keys::tile_n.name(), str(bn)},
                             {keys::tile_k.name(), str(bk)},
                             {keys::warps_m.name(), str(w.m)},
                             {keys::warps_n.name(), str(w.n)},
                             {keys::stage_out.name(), "false"},
                             {keys::stages.name(), str(st)},
                             {keys::split_k.name(), str(sk)}});
    }
}

void wgmmaSpace(SearchLevel level, std::vector<TuningConfig> &out) {
  struct Tile {
    int64_t m, n, groups;
  };
  const bool max = level == SearchLevel::Max;
  const std::vector<Tile> tiles =
      // Max also has the heuristics' one-wave shapes: 128 x 64 in two
      // consumer warpgroups (Llama's k/v) and 64 x 32 (short-K products
      // of a few tiles, BERT 1x128's QKV).
      max ? std::vector<Tile>{{64, 64, 1},   {64, 128, 1},  {64, 256, 1},
                              {128, 64, 1},  {128, 128, 1}, {128, 128, 2},
                              {128, 256, 2}, {256, 128, 2}, {64, 256, 2},
                              {128, 64, 2},  {64, 32, 1}}
          : std::vector<Tile>{{64, 128, 1}, {128, 128, 2}, {128, 256, 2}};
  const std::vector<int64_t> stages = max ? std::vector<int64_t>{3, 4, 5}
                                          : std::vector<int64_t>{3, 4};
  // The TMA kernel (batched products too, with 3-D tensor maps): deeper
  // pipelines fit since no thread holds load addresses, and the group of
  // tile rows that sweep the columns together.
  const std::vector<int64_t> tmaStages = max
                                             ? std::vector<int64_t>{3, 4, 5, 6}
                                             : std::vector<int64_t>{4, 6};
  const std::vector<int64_t> groups = max ? std::vector<int64_t>{1, 8, 16}
                                          : std::vector<int64_t>{8};
  for (const Tile &t : tiles) {
    // tile_k is the heuristic's: one 128-byte row of k, 64 f16/bf16 or 32
    // tf32 elements.
    auto config = [&](int64_t st, bool tma) {
      return TuningConfig{{keys::path.name(), "wgmma"},
                          {keys::tile_m.name(), str(t.m)},
                          {keys::tile_n.name(), str(t.n)},
                          {keys::warpgroups.name(), str(t.groups)},
                          {keys::stages.name(), str(st)},
                          {keys::split_k.name(), "1"},
                          {keys::tma.name(), tma ? "true" : "false"}};
    };
    for (int64_t st : stages)
      out.push_back(config(st, false));
    for (bool pingpong : {false, true}) {
      // Ping-pong: each of two warpgroups takes whole tiles of up to 128
      // rows.
      if (pingpong && (t.groups != 2 || t.m > 128))
        continue;
      for (int64_t st : tmaStages) {
        for (int64_t g : groups) {
          TuningConfig c = config(st, true);
          c[keys::group_m.name()] = str(g);
          c[keys::pingpong.name()] = pingpong ? "true" : "false";
          out.push_back(std::move(c));
        }
        // Split-K: clusters of blocks sharing each tile's K range, for
        // products whose tiles do not fill the GPU (the heuristics reject
        // the others, so they cost no compile there); cooperative tiles
        // with four stages, which leave room for the f32 reduction tile.
        if (!pingpong && st == 4)
          for (int64_t sk : {2, 4, 8}) {
            TuningConfig c = config(st, true);
            c[keys::group_m.name()] = "8";
            c[keys::pingpong.name()] = "false";
            c[keys::split_k.name()] = str(sk);
            out.push_back(std::move(c));
          }
        // Max: pairs of blocks sharing B tiles through TMA multicast, with
        // the default group. On the H200 (micro-183010) they were within
        // 7% of single blocks either way, depending on the shape.
        if (max) {
          TuningConfig c = config(st, true);
          c[keys::group_m.name()] = "8";
          c[keys::pingpong.name()] = pingpong ? "true" : "false";
          c[keys::cluster.name()] = "2";
          out.push_back(std::move(c));
        }
      }
    }
  }
  // Max: the product as its transpose (swap_ab: tile_m runs along the
  // output's columns, the tiles are stored transposed) in cuBLAS's 128 x 96
  // tiles of the ResNet 1x1 and in 128 x 128; the heuristics complete the
  // rest (stages; swapped tiles take the direct stores).
  if (max)
    for (int64_t n : {96, 128})
      out.push_back({{keys::path.name(), "wgmma"},
                     {keys::tile_m.name(), "128"},
                     {keys::tile_n.name(), str(n)},
                     {keys::warpgroups.name(), "2"},
                     {keys::tma.name(), "true"},
                     {keys::swap_ab.name(), "true"}});
}

void simtSpace(SearchLevel level, std::vector<TuningConfig> &out) {
  const bool max = level == SearchLevel::Max;
  const std::vector<int64_t> tiles = max ? std::vector<int64_t>{32, 64, 128}
                                         : std::vector<int64_t>{32, 64};
  const std::vector<int64_t> tileK = max ? std::vector<int64_t>{8, 16, 32}
                                         : std::vector<int64_t>{16};
  for (int64_t bm : tiles)
    for (int64_t bn : tiles)
      for (int64_t bk : tileK)
        out.push_back({{keys::path.name(), "simt"},
                       {keys::tile_m.name(), str(bm)},
                       {keys::tile_n.name(), str(bn)},
                       {keys::tile_k.name(), str(bk)}});
}
} // namespace

void matmulSpace(SearchLevel level, const std::string &arch,
                 std::vector<TuningConfig> &out) {
  mmaSpace(level, out);
  if (archHasWgmma(arch))
    wgmmaSpace(level, out);
  simtSpace(level, out);
}


const KernelKind kMatmulKind = {
    "matmul",
    {&keys::path.info, &keys::tile_m.info, &keys::tile_n.info,
     &keys::tile_k.info, &keys::warps_m.info, &keys::warps_n.info,
     &keys::stage_out.info, &keys::stages.info, &keys::split_k.info,
     &keys::warpgroups.info, &keys::tma.info, &keys::group_m.info,
     &keys::pingpong.info, &keys::cluster.info, &keys::algo.info,
     &keys::lt_version.info, &keys::tma_store.info, &keys::stream_k.info,
     &keys::swap_ab.info, &keys::epi_rows.info, &keys::epi_regs.info},
    configureMatmul, cuda::emitMatmul, matmulSpace};

} // namespace kiln::codegen
