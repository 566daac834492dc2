//===- SearchSpace.cpp - Candidate configs per kernel kind ----------------===//
#include "autotune/SearchSpace.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>

namespace kiln::autotune {

namespace {
std::string str(int64_t v) { return std::to_string(v); }

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
              out.push_back({{"path", "mma"},
                             {"tile_m", str(bm)},
                             {"tile_n", str(bn)},
                             {"tile_k", str(bk)},
                             {"warps_m", str(w.m)},
                             {"warps_n", str(w.n)},
                             {"stage_out", "false"},
                             {"stages", str(st)},
                             {"split_k", str(sk)}});
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
      return TuningConfig{{"path", "wgmma"},
                          {"tile_m", str(t.m)},
                          {"tile_n", str(t.n)},
                          {"warpgroups", str(t.groups)},
                          {"stages", str(st)},
                          {"split_k", "1"},
                          {"tma", tma ? "true" : "false"}};
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
          c["group_m"] = str(g);
          c["pingpong"] = pingpong ? "true" : "false";
          out.push_back(std::move(c));
        }
        // Split-K: clusters of blocks sharing each tile's K range, for
        // products whose tiles do not fill the GPU (the heuristics reject
        // the others, so they cost no compile there); cooperative tiles
        // with four stages, which leave room for the f32 reduction tile.
        if (!pingpong && st == 4)
          for (int64_t sk : {2, 4, 8}) {
            TuningConfig c = config(st, true);
            c["group_m"] = "8";
            c["pingpong"] = "false";
            c["split_k"] = str(sk);
            out.push_back(std::move(c));
          }
        // Max: pairs of blocks sharing B tiles through TMA multicast, with
        // the default group. On the H200 (micro-183010) they were within
        // 7% of single blocks either way, depending on the shape.
        if (max) {
          TuningConfig c = config(st, true);
          c["group_m"] = "8";
          c["pingpong"] = pingpong ? "true" : "false";
          c["cluster"] = "2";
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
      out.push_back({{"path", "wgmma"},
                     {"tile_m", "128"},
                     {"tile_n", str(n)},
                     {"warpgroups", "2"},
                     {"tma", "true"},
                     {"swap_ab", "true"}});
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
        out.push_back({{"path", "simt"},
                       {"tile_m", str(bm)},
                       {"tile_n", str(bn)},
                       {"tile_k", str(bk)}});
}

/// Threads per row of softmax "row" and layer_norm: sub-warp teams (several
/// rows a block) and whole blocks.
std::vector<int64_t> rowTeams(SearchLevel level) {
  if (level == SearchLevel::Max)
    return {4, 8, 16, 32, 64, 128, 256, 512, 1024};
  return {32, 128, 256, 512};
}
} // namespace

std::optional<SearchLevel> parseSearchLevel(const std::string &text) {
  if (text == "default")
    return SearchLevel::Default;
  if (text == "max")
    return SearchLevel::Max;
  return std::nullopt;
}

namespace {
const std::map<std::string, std::set<std::string>> &allTuningKeys() {
  static const std::map<std::string, std::set<std::string>> keys = {
      {"matmul",
       {"path", "tile_m", "tile_n", "tile_k", "warps_m", "warps_n",
        "stage_out", "stages", "split_k", "warpgroups", "tma", "group_m",
        "pingpong", "cluster", "algo", "lt_version", "tma_store", "stream_k",
        "swap_ab", "epi_rows", "epi_regs"}},
      {"attention", {"variant", "block_m", "block_n", "q_tiles"}},
      {"conv",
       {"path", "tile_m", "tile_n", "tile_k", "warps_m", "warps_n", "stage_out",
        "stages"}},
      {"softmax", {"variant", "block_size"}},
      {"reduce", {"variant", "block_size"}},
      {"layer_norm", {"block_size"}},
      {"transpose", {"variant", "vec"}},
      {"elementwise", {"vec"}},
      {"fused_elementwise", {"vec"}},
      {"slice", {"vec"}},
      {"trilu", {"vec"}},
      {"concat", {"vec"}},
      {"gather", {"vec"}},
  };
  return keys;
}
} // namespace

const std::set<std::string> &tuningKeys(const std::string &kind) {
  static const std::set<std::string> none;
  auto it = allTuningKeys().find(kind);
  return it == allTuningKeys().end() ? none : it->second;
}

std::vector<std::string> tunableKinds() {
  std::vector<std::string> out;
  for (const auto &[kind, keys] : allTuningKeys())
    out.push_back(kind);
  return out;
}

bool checkTuningValue(const std::string &key, const std::string &text,
                      std::string &why) {
  static const std::set<std::string> names = {"path", "variant"};
  static const std::set<std::string> switches = {
      "stage_out", "tma", "pingpong", "tma_store", "stream_k", "swap_ab",
      "epi_regs"};
  if (names.count(key)) {
    if (!text.empty())
      return true;
    why = key + " needs a name, not an empty value";
    return false;
  }
  if (switches.count(key)) {
    if (text == "true" || text == "false")
      return true;
    why = key + "=" + text + ": " + key + " is true or false";
    return false;
  }
  const int64_t lo = key == "algo" || key == "lt_version" ? 0 : 1;
  const int64_t hi = key == "lt_version" ? INT32_MAX : 65536;
  int64_t v = 0;
  const char *first = text.data(), *last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last || v < lo || v > hi) {
    why = key + "=" + text + ": " + key + " is a whole number in [" +
          std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  return true;
}

std::vector<TuningConfig> searchSpace(const std::string &kind,
                                      SearchLevel level,
                                      const std::string &arch) {
  std::vector<TuningConfig> out;
  const bool max = level == SearchLevel::Max;
  if (kind == "matmul") {
    mmaSpace(level, out);
    if (arch == "sm_90" || arch == "sm_90a")
      wgmmaSpace(level, out);
    simtSpace(level, out);
  } else if (kind == "attention") {
    for (int64_t bm : max ? std::vector<int64_t>{32, 64, 128}
                          : std::vector<int64_t>{64, 128})
      for (int64_t bn : {32, 64})
        out.push_back({{"variant", "mma"},
                       {"block_m", str(bm)},
                       {"block_n", str(bn)}});
    // The wgmma kernel (64 x 64 blocks), one or two query tiles a block
    // (configureAttention rejects heads other than 64 or 128 wide, and two
    // tiles over more than 128 keys).
    if (arch == "sm_90" || arch == "sm_90a")
      for (int64_t qt : {1, 2})
        out.push_back({{"variant", "wgmma"},
                       {"block_m", "64"},
                       {"block_n", "64"},
                       {"q_tiles", str(qt)}});
  } else if (kind == "conv") {
    // The direct kernel, and the implicit GEMM on the tensor cores (f16 and
    // bf16 without groups; the heuristics reject the others). Every
    // candidate is checked against the reference before it may win.
    out.push_back({{"path", "direct"}});
    struct Tile {
      int64_t m, n, wm, wn;
    };
    const std::vector<Tile> tiles =
        max ? std::vector<Tile>{{64, 64, 2, 2},
                                {64, 128, 2, 2},
                                {128, 64, 2, 2},
                                {128, 128, 2, 4}}
            : std::vector<Tile>{{64, 64, 2, 2}, {128, 128, 2, 4}};
    for (const Tile &t : tiles)
      for (int64_t bk : max ? std::vector<int64_t>{32, 64}
                            : std::vector<int64_t>{32})
        for (bool stageOut : max ? std::vector<bool>{false, true}
                                 : std::vector<bool>{false})
          for (int64_t stages : max ? std::vector<int64_t>{1, 2}
                                    : std::vector<int64_t>{1})
            out.push_back({{"path", "igemm"},
                           {"tile_m", str(t.m)},
                           {"tile_n", str(t.n)},
                           {"tile_k", str(bk)},
                           {"warps_m", str(t.wm)},
                           {"warps_n", str(t.wn)},
                           {"stage_out", stageOut ? "true" : "false"},
                           {"stages", str(stages)}});
  } else if (kind == "softmax") {
    for (int64_t t : rowTeams(level))
      out.push_back({{"variant", "row"}, {"block_size", str(t)}});
  } else if (kind == "layer_norm") {
    for (int64_t t : rowTeams(level))
      out.push_back({{"block_size", str(t)}});
  } else if (kind == "reduce") {
    for (int64_t b : max ? std::vector<int64_t>{32, 64, 128, 256, 512, 1024}
                         : std::vector<int64_t>{128, 256, 512})
      out.push_back({{"variant", "row"}, {"block_size", str(b)}});
  } else if (kind == "transpose") {
    out.push_back({{"variant", "tiled"}});
    for (int64_t v : {1, 2, 4, 8})
      out.push_back({{"variant", "index"}, {"vec", str(v)}});
  } else if (tuningKeys(kind).count("vec")) {
    for (int64_t v : max ? std::vector<int64_t>{1, 2, 4, 8, 16}
                         : std::vector<int64_t>{1, 4, 8})
      out.push_back({{"vec", str(v)}});
  }
  return out;
}

PrunedSpace pruneSpace(const TuningConfig &baseline,
                       const std::vector<TuningConfig> &candidates,
                       const CandidateCheck &check) {
  PrunedSpace p;
  p.kept.push_back(baseline);
  for (const TuningConfig &c : candidates) {
    TuningConfig normalized;
    std::string why;
    if (!check(c, normalized, why)) {
      p.dropped.emplace_back(c, why);
      continue;
    }
    if (std::find(p.kept.begin(), p.kept.end(), normalized) == p.kept.end())
      p.kept.push_back(std::move(normalized));
  }
  return p;
}

std::string configFamily(const TuningConfig &config) {
  static const char *const keys[] = {"path",    "tile_m",     "tile_n",
                                     "warps_m", "warps_n",    "warpgroups",
                                     "tma",     "pingpong",   "variant",
                                     "block_m"};
  std::string out;
  for (const char *k : keys) {
    auto it = config.find(k);
    if (it != config.end())
      out += std::string(k) + "=" + it->second + " ";
  }
  return out;
}

double median(std::vector<double> ms) {
  if (ms.empty())
    return 0;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

Choice chooseWinner(const std::vector<Measurement> &measurements) {
  std::vector<const Measurement *> valid;
  for (const Measurement &m : measurements)
    if (m.medianMs)
      valid.push_back(&m);
  std::sort(valid.begin(), valid.end(),
            [](const Measurement *a, const Measurement *b) {
              if (*a->medianMs != *b->medianMs)
                return *a->medianMs < *b->medianMs;
              return a->candidate < b->candidate;
            });
  Choice c;
  if (!valid.empty()) {
    c.winner = valid[0]->candidate;
    c.winnerMs = valid[0]->medianMs;
  }
  if (valid.size() > 1) {
    c.runnerUp = valid[1]->candidate;
    c.runnerUpMs = valid[1]->medianMs;
  }
  return c;
}

} // namespace kiln::autotune
