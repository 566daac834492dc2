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
