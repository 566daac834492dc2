// Unit tests of autotune/: the tuning cache's text format, search spaces,
// pruning and the deterministic choice of a winner.
#include "autotune/SearchSpace.h"
#include "autotune/TuningCache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace kiln::autotune;

namespace {

KernelSignature matmulSig() {
  KernelSignature s;
  s.kind = "matmul";
  s.inputs = {{"f16", {128, 768}, 16}, {"f16", {768, 3072}, 256}};
  s.outputs = {{"f16", {128, 3072}, 16}};
  s.attrs = {{"trans_a", "false"}, {"trans_b", "true"}, {"alpha", "1"}};
  s.toolchain = {"sm_90", "13.0", "none"};
  return s;
}

TuningEntry matmulEntry() {
  TuningEntry e;
  e.signature = matmulSig();
  e.config = {{"path", "mma"}, {"stages", "3"}, {"split_k", "1"}};
  e.winnerMs = 0.0123;
  e.runnerUpMs = 0.015;
  return e;
}

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/" + name;
}

} // namespace

TEST(TuningCache, RoundTripsAndIsSorted) {
  TuningCache a;
  TuningEntry softmax;
  softmax.signature.kind = "softmax";
  softmax.signature.inputs = {{"f32", {}, 256}}; // rank 0 prints as '-'
  softmax.signature.outputs = {{"f32", {}, 256}};
  // Values with spaces, '|', '=' and '%' must survive escaping.
  softmax.signature.attrs = {{"program", "t0 = add(i0, i1) : f16 | 100%"}};
  softmax.config = {{"block_size", "32"}, {"variant", "row"}};
  a.insert(matmulEntry());
  a.insert(softmax);
  const std::string text = a.serialize();

  TuningCache b;
  std::string error;
  ASSERT_TRUE(b.parse(text, "mem", error)) << error;
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.serialize(), text);
  const TuningEntry *e = b.lookup(softmax.signature, false);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->signature.attrs.at("program"), "t0 = add(i0, i1) : f16 | 100%");
  EXPECT_EQ(e->signature.inputs[0].shape.size(), 0u);
  const TuningEntry *m = b.lookup(matmulSig(), false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->config.at("stages"), "3");
  ASSERT_TRUE(m->winnerMs && m->runnerUpMs);
  EXPECT_DOUBLE_EQ(*m->winnerMs, 0.0123);

  // Insertion order does not matter: the file is sorted by signature.
  TuningCache c;
  c.insert(softmax);
  c.insert(matmulEntry());
  EXPECT_EQ(c.serialize(), text);
  EXPECT_EQ(text.rfind("kiln-tuning-cache 1\nentry kind=matmul", 0), 0u);
}

TEST(TuningCache, WriteThenReadIsByteIdentical) {
  TuningCache a;
  a.insert(matmulEntry());
  const std::string p1 = tempPath("kiln-cache-1.txt"),
                    p2 = tempPath("kiln-cache-2.txt");
  std::string error;
  ASSERT_TRUE(a.write(p1, error)) << error;
  TuningCache b;
  ASSERT_TRUE(b.read(p1, error)) << error;
  ASSERT_TRUE(b.write(p2, error)) << error;
  auto slurp = [](const std::string &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(slurp(p1), slurp(p2));
  EXPECT_EQ(slurp(p1), a.serialize());
  std::remove(p1.c_str());
  std::remove(p2.c_str());
}

TEST(TuningCache, LookupMatchesTheWholeSignature) {
  TuningCache c;
  c.insert(matmulEntry());
  KernelSignature s = matmulSig();
  s.inputs[0].shape[0] = 256;
  EXPECT_EQ(c.lookup(s, true), nullptr);
  s = matmulSig();
  s.attrs["trans_b"] = "false";
  EXPECT_EQ(c.lookup(s, true), nullptr);
  s = matmulSig();
  s.toolchain.arch = "sm_80";
  EXPECT_EQ(c.lookup(s, true), nullptr);
  s = matmulSig();
  s.toolchain.nvrtc = "12.8";
  EXPECT_EQ(c.lookup(s, true), nullptr);
  s = matmulSig();
  s.inputs[0].alignment = 256;
  EXPECT_EQ(c.lookup(s, true), nullptr);
  // Another driver: only when the caller accepts any driver.
  s = matmulSig();
  s.toolchain.driver = "13000";
  EXPECT_EQ(c.lookup(s, false), nullptr);
  EXPECT_NE(c.lookup(s, true), nullptr);
}

TEST(TuningCache, CorruptFilesNameFileAndLine) {
  struct Case {
    std::string text, message;
  };
  const std::string sig = "entry kind=matmul arch=sm_90 nvrtc=13.0 "
                          "driver=none in=f16:4x4:16 out=f16:4x4:16";
  const std::vector<Case> cases = {
      {"", "c.txt:1: not a Kiln tuning cache"},
      {"hello\n", "c.txt:1: not a Kiln tuning cache"},
      {"# comment\nkiln-tuning-cache 1\nbogus\n", "c.txt:3: expected 'entry"},
      {"kiln-tuning-cache 1\n" + sig + "\n", "c.txt:2: an entry is"},
      {"kiln-tuning-cache 1\n" + sig + " | \n", "c.txt:2: the entry has no"},
      {"kiln-tuning-cache 1\nentry kind=matmul | stages=3\n",
       "c.txt:2: the signature has no 'arch'"},
      {"kiln-tuning-cache 1\n" + sig + " x | stages=3\n",
       "c.txt:2: bad signature token 'x'"},
      {"kiln-tuning-cache 1\n" + sig + " foo=1 | stages=3\n",
       "c.txt:2: unknown signature key 'foo'"},
      {"kiln-tuning-cache 1\n" +
           std::string("entry kind=matmul arch=sm_90 nvrtc=13.0 driver=none "
                       "in=f16:4y4:16 out=f16:4x4:16 | stages=3\n"),
       "c.txt:2: buffer 'f16:4y4:16' has a bad shape"},
      {"kiln-tuning-cache 1\n" + sig + " | stages=3 | winner_ms=fast\n",
       "c.txt:2: bad time 'winner_ms=fast'"},
      {"kiln-tuning-cache 1\n" + sig + " | stages=3 stages=4\n",
       "c.txt:2: bad or repeated config token 'stages=4'"},
      {"kiln-tuning-cache 1\n" + sig + " | stages=%4\n",
       "c.txt:2: bad or repeated config token"},
      {"kiln-tuning-cache 1\n" + sig + " | stages=3\n\n" + sig +
           " | stages=4\n",
       "c.txt:4: a second entry for the signature of line 2"},
  };
  for (const Case &c : cases) {
    TuningCache cache;
    std::string error;
    EXPECT_FALSE(cache.parse(c.text, "c.txt", error)) << c.text;
    EXPECT_EQ(error.rfind(c.message, 0), 0u)
        << "got '" << error << "' for:\n"
        << c.text;
    EXPECT_EQ(cache.size(), 0u);
  }
  TuningCache cache;
  std::string error;
  EXPECT_FALSE(cache.read(tempPath("no-such-kiln-cache"), error));
  EXPECT_NE(error.find("cannot open"), std::string::npos);
}

TEST(SearchSpace, SizesAndOrder) {
  // How many configs of `space` set `key` to `value`.
  auto with = [](const std::vector<TuningConfig> &space, const char *key,
                 const char *value) {
    size_t n = 0;
    for (const TuningConfig &c : space)
      n += c.count(key) && c.at(key) == value;
    return n;
  };
  auto count = [&](const std::vector<TuningConfig> &space, const char *path) {
    return with(space, "path", path);
  };
  const auto max90 = searchSpace("matmul", SearchLevel::Max, "sm_90");
  const auto def90 = searchSpace("matmul", SearchLevel::Default, "sm_90");
  // mma max: 2 x 2 tiles x 2 tile_k x 3 warp shapes x 3 stages x 4 split_k.
  EXPECT_EQ(count(max90, "mma"), 288u);
  // wgmma max: 11 tiles x (3 cp.async stage counts + 4 TMA stage counts x
  // (3 group_m + a cluster of 2) + 3 split_k clusters at 4 stages), and the
  // 4 two-warpgroup tiles of up to 128 rows again as ping-pong TMA kernels
  // (4 x 4 each), then 2 swap_ab tiles.
  EXPECT_EQ(count(max90, "wgmma"), 308u);
  EXPECT_EQ(with(max90, "swap_ab", "true"), 2u);
  EXPECT_EQ(with(def90, "swap_ab", "true"), 0u);
  // wgmma configs with split-K (the mma ones have their own split_k).
  auto split = [](const std::vector<TuningConfig> &space) {
    size_t n = 0;
    for (const TuningConfig &c : space)
      n += c.at("path") == "wgmma" && c.count("split_k") &&
           c.at("split_k") != "1";
    return n;
  };
  EXPECT_EQ(split(max90), 33u);
  EXPECT_EQ(split(def90), 9u);
  EXPECT_EQ(with(max90, "cluster", "2"), 60u);
  EXPECT_EQ(with(def90, "cluster", "2"), 0u);
  EXPECT_LT(count(def90, "mma"), count(max90, "mma"));
  EXPECT_GT(count(def90, "wgmma"), 0u);
  // No wgmma off Hopper.
  EXPECT_EQ(count(searchSpace("matmul", SearchLevel::Max, "sm_80"), "wgmma"),
            0u);
  // Default is a subset of max, and the order is fixed.
  for (const TuningConfig &c : def90)
    EXPECT_NE(std::find(max90.begin(), max90.end(), c), max90.end())
        << printConfig(c);
  EXPECT_EQ(max90, searchSpace("matmul", SearchLevel::Max, "sm_90"));
  // Attention: the mma kernel's block shapes, then the wgmma kernel with one
  // and two query tiles a block (sm_90 only).
  const auto att = searchSpace("attention", SearchLevel::Max, "sm_90");
  EXPECT_EQ(att.size(), 8u);
  EXPECT_EQ(printConfig(att.front()), "block_m=32 block_n=32 variant=mma");
  EXPECT_EQ(printConfig(att[6]), "block_m=64 block_n=64 q_tiles=1 variant=wgmma");
  EXPECT_EQ(printConfig(att.back()), "block_m=64 block_n=64 q_tiles=2 variant=wgmma");
  EXPECT_EQ(searchSpace("attention", SearchLevel::Default, "sm_90").size(), 6u);
  EXPECT_EQ(searchSpace("attention", SearchLevel::Max, "sm_80").size(), 6u);
  // Convolutions: the direct kernel, then implicit-GEMM tiles (2 by
  // default; 4 x 2 tile_k x staged output or not x 1 or 2 stages at max).
  const auto conv = searchSpace("conv", SearchLevel::Max, "sm_90");
  ASSERT_EQ(conv.size(), 33u);
  EXPECT_EQ(printConfig(conv.front()), "path=direct");
  EXPECT_EQ(printConfig(conv.back()),
            "path=igemm stage_out=true stages=2 tile_k=64 tile_m=128 "
            "tile_n=128 warps_m=2 warps_n=4");
  EXPECT_EQ(searchSpace("conv", SearchLevel::Default, "sm_80").size(), 3u);
  EXPECT_EQ(searchSpace("attention", SearchLevel::Max, "sm_80").size(), 6u);
  EXPECT_FALSE(searchSpace("layer_norm", SearchLevel::Default, "sm_90").empty());
  EXPECT_TRUE(searchSpace("batch_norm", SearchLevel::Max, "sm_90").empty());
  // Every candidate sets only tuning keys of its kind.
  for (const char *kind : {"matmul", "attention", "conv", "softmax",
                           "layer_norm", "reduce", "transpose", "elementwise",
                           "concat"})
    for (const TuningConfig &c : searchSpace(kind, SearchLevel::Max, "sm_90"))
      for (const auto &kv : c)
        EXPECT_TRUE(tuningKeys(kind).count(kv.first)) << kind << " " << kv.first;
}

TEST(SearchSpace, ValuesHaveTheirKeysTypes) {
  std::string why;
  // Every candidate of every space is a value of its key's type.
  for (const std::string &kind : tunableKinds())
    for (const TuningConfig &c : searchSpace(kind, SearchLevel::Max, "sm_90"))
      for (const auto &[key, value] : c)
        EXPECT_TRUE(checkTuningValue(key, value, why)) << kind << " " << why;
  const std::pair<const char *, const char *> good[] = {
      {"algo", "0"}, {"lt_version", "130100"}, {"tile_m", "65536"},
      {"stage_out", "false"}};
  for (const auto &[key, value] : good)
    EXPECT_TRUE(checkTuningValue(key, value, why)) << why;
  // Zero tiles divide; out-of-range, partial and non-numbers are refused
  // by name.
  const std::pair<const char *, const char *> bad[] = {
      {"tile_m", "0"},      {"tile_n", "99999999999999999999"},
      {"split_k", "-1"},    {"stages", "4x"},
      {"vec", ""},          {"tile_k", "65537"},
      {"algo", "-1"},       {"stage_out", "maybe"},
      {"tma", "1"},         {"path", ""}};
  for (const auto &[key, value] : bad)
    EXPECT_FALSE(checkTuningValue(key, value, why)) << key << "=" << value;
  EXPECT_FALSE(checkTuningValue("tile_m", "0", why));
  EXPECT_EQ(why, "tile_m=0: tile_m is a whole number in [1, 65536]");
  EXPECT_FALSE(checkTuningValue("stage_out", "maybe", why));
  EXPECT_EQ(why, "stage_out=maybe: stage_out is true or false");
  EXPECT_EQ(tunableKinds().front(), "attention");
}

TEST(SearchSpace, PruneKeepsBaselineFirstAndDropsDuplicates) {
  const std::vector<TuningConfig> space = {
      {{"block_size", "32"}}, {{"block_size", "2000"}}, {{"block_size", "64"}},
      {{"block_size", "33"}}};
  // A check that rounds 33 up to 64 (a duplicate) and refuses > 1024.
  auto check = [](const TuningConfig &c, TuningConfig &norm, std::string &why) {
    int v = std::stoi(c.at("block_size"));
    if (v > 1024) {
      why = "too big";
      return false;
    }
    norm = {{"block_size", std::to_string(v == 33 ? 64 : v)}};
    return true;
  };
  PrunedSpace p = pruneSpace({{"block_size", "64"}}, space, check);
  ASSERT_EQ(p.kept.size(), 2u);
  EXPECT_EQ(p.kept[0].at("block_size"), "64"); // the baseline
  EXPECT_EQ(p.kept[1].at("block_size"), "32");
  ASSERT_EQ(p.dropped.size(), 1u);
  EXPECT_EQ(p.dropped[0].second, "too big");
}

TEST(SearchSpace, MedianAndWinner) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
  // Candidate 2 failed its check; 1 and 3 tie: the lower index wins.
  Choice c = chooseWinner({{0, 2.0}, {1, 1.5}, {2, std::nullopt}, {3, 1.5}});
  ASSERT_TRUE(c.winner && c.runnerUp);
  EXPECT_EQ(*c.winner, 1u);
  EXPECT_EQ(*c.runnerUp, 3u);
  EXPECT_DOUBLE_EQ(*c.winnerMs, 1.5);
  Choice none = chooseWinner({{0, std::nullopt}});
  EXPECT_FALSE(none.winner);
  EXPECT_FALSE(none.runnerUp);
  EXPECT_TRUE(parseSearchLevel("max") && !parseSearchLevel("off"));
}
