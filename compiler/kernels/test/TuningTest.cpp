// Tests of compiler/kernels/Tuning.h: signatures, applying tuning configs
// through configureLaunch, and search spaces pruned by configureLaunch.
#include "compiler/kernels/Tuning.h"
#include "compiler/kernels/Autotune.h"
#include "compiler/kernels/library/LibraryCalls.h"

#include <gtest/gtest.h>

#include <set>

using namespace kiln;
using namespace kiln::codegen;

namespace {

LaunchSpec matmul(DType t, int64_t m, int64_t k, int64_t n) {
  LaunchSpec s;
  s.name = "MatMul_0";
  s.kind = "matmul";
  s.config.set("trans_a", ConfigValue::ofBool(false));
  s.config.set("trans_b", ConfigValue::ofBool(false));
  s.inputs = {{t, {m, k}, 256}, {t, {k, n}, 256}};
  s.outputs = {{t, {m, n}, 256}};
  return s;
}

LaunchSpec configured(LaunchSpec s, const TargetOptions &target = {}) {
  std::string error;
  EXPECT_TRUE(configureLaunch(s, error, target)) << error;
  return s;
}

} // namespace

TEST(Tuning, SignatureLeavesTuningKeysOut) {
  LaunchSpec s = configured(matmul(DType::F16, 128, 768, 3072));
  autotune::KernelSignature sig = kernelSignature(s, {"sm_90", "13.0", "none"});
  EXPECT_EQ(sig.kind, "matmul");
  EXPECT_EQ(sig.attrs.count("trans_b"), 1u);
  EXPECT_EQ(sig.attrs.count("stages"), 0u);
  EXPECT_EQ(sig.attrs.count("path"), 0u);
  EXPECT_EQ(sig.inputs[1].shape, (std::vector<int64_t>{768, 3072}));
  // The heuristics' config and a tuned one share the signature.
  LaunchSpec tuned = s;
  std::string error;
  ASSERT_TRUE(applyTuningConfig(tuned, {{"path", "mma"}, {"stages", "4"}},
                                TargetOptions(), error))
      << error;
  EXPECT_EQ(kernelSignature(tuned, {}).key(), kernelSignature(s, {}).key());
  EXPECT_EQ(tuned.config.getInt("stages"), 4);
  // Keys the entry leaves out get the heuristics' values again.
  EXPECT_TRUE(tuned.config.has("split_k"));
  EXPECT_EQ(tuningConfigOf(tuned).at("stages"), "4");
}

TEST(Tuning, ApplyRefusesInvalidConfigs) {
  LaunchSpec s = configured(matmul(DType::F16, 128, 768, 3072));
  std::string error;
  LaunchSpec t = s;
  // (On sm_90 this product takes the TMA wgmma kernel, 3 to 12 stages.)
  EXPECT_FALSE(applyTuningConfig(t, {{"stages", "13"}}, {}, error));
  EXPECT_NE(error.find("launch @MatMul_0 (matmul): wgmma stages must be in "
                       "[3, 12] on the TMA kernel"),
      std::string::npos)
      << error;
  EXPECT_EQ(t.config.getInt("stages"), s.config.getInt("stages")); // untouched
  EXPECT_FALSE(applyTuningConfig(t, {{"trans_b", "true"}}, {}, error));
  EXPECT_NE(error.find("'trans_b' is not a tuning key of matmul"),
            std::string::npos)
      << error;
}

TEST(Tuning, CandidatesArePrunedByConfigureLaunch) {
  TargetOptions sm90;
  LaunchSpec s = configured(matmul(DType::F16, 128, 768, 3072), sm90);
  autotune::PrunedSpace max =
      tuningCandidates(s, autotune::SearchLevel::Max, sm90);
  autotune::PrunedSpace def =
      tuningCandidates(s, autotune::SearchLevel::Default, sm90);
  ASSERT_FALSE(max.kept.empty());
  EXPECT_EQ(max.kept[0], tuningConfigOf(s)); // the heuristic first
  EXPECT_LT(def.kept.size(), max.kept.size());
  // 128-row tiles cannot split K (a 128 x 132 f32 partial tile > 48 KiB).
  bool refusedSplit = false;
  for (const auto &[c, why] : max.dropped)
    refusedSplit |= c.at("tile_m") == "128" && c.count("split_k") &&
                    c.at("split_k") != "1" &&
                    why.find("split_k needs") != std::string::npos;
  EXPECT_TRUE(refusedSplit);
  // Every kept candidate is a valid launch, and none repeats.
  for (size_t i = 0; i < max.kept.size(); ++i) {
    LaunchSpec t = s;
    std::string error;
    EXPECT_TRUE(applyTuningConfig(t, max.kept[i], sm90, error)) << error;
    EXPECT_EQ(tuningConfigOf(t), max.kept[i]);
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(max.kept[i], max.kept[j]);
  }
  // Deterministic.
  EXPECT_EQ(tuningCandidates(s, autotune::SearchLevel::Max, sm90).kept,
            max.kept);
}

TEST(Tuning, CandidatesFollowDtypeAndAlignment) {
  auto paths = [](const autotune::PrunedSpace &p) {
    std::set<std::string> out;
    for (const autotune::TuningConfig &c : p.kept)
      out.insert(c.at("path"));
    return out;
  };
  TargetOptions sm90;
  // f32: no tensor-core path survives.
  LaunchSpec f32 = configured(matmul(DType::F32, 256, 64, 256), sm90);
  EXPECT_EQ(paths(tuningCandidates(f32, autotune::SearchLevel::Max, sm90)),
            (std::set<std::string>{"simt"}));
  // K = 100: A's rows are not 16-byte aligned, so no wgmma.
  LaunchSpec odd = configured(matmul(DType::F16, 256, 100, 256), sm90);
  EXPECT_EQ(paths(tuningCandidates(odd, autotune::SearchLevel::Max, sm90)),
            (std::set<std::string>{"mma", "simt"}));
  LaunchSpec big = configured(matmul(DType::F16, 1024, 1024, 1024), sm90);
  EXPECT_EQ(paths(tuningCandidates(big, autotune::SearchLevel::Max, sm90)),
            (std::set<std::string>{"mma", "simt", "wgmma"}));
  TargetOptions sm80;
  sm80.arch = "sm_80";
  LaunchSpec big80 = configured(matmul(DType::F16, 1024, 1024, 1024), sm80);
  EXPECT_EQ(paths(tuningCandidates(big80, autotune::SearchLevel::Max, sm80)),
            (std::set<std::string>{"mma", "simt"}));
}

// tf32 (--precision=tf32) is the launch's arithmetic, not a tuning choice:
// it is in the signature (a tf32 launch never takes an exact f32 launch's
// cache entry or the reverse), a tuning config cannot set or clear it, and
// every candidate keeps it: mma (the tf32 kernel) and simt (rounding its
// loads), never wgmma with an N-major B (below: a K-major one). A plain f32
// launch gets no tensor-core candidate.
TEST(Tuning, TF32StaysWhatTheLaunchAsked) {
  TargetOptions sm90;
  LaunchSpec exact = configured(matmul(DType::F32, 1024, 1024, 1024), sm90);
  LaunchSpec asked = matmul(DType::F32, 1024, 1024, 1024);
  asked.config.set("tf32", ConfigValue::ofBool(true));
  LaunchSpec tf32 = configured(asked, sm90);
  EXPECT_EQ(exact.config.getString("path"), "simt");
  EXPECT_FALSE(exact.config.has("tf32"));
  EXPECT_EQ(tf32.config.getString("path"), "mma");
  autotune::KernelSignature sig = kernelSignature(tf32, {});
  EXPECT_EQ(sig.attrs.at("tf32"), "true");
  EXPECT_NE(sig.key(), kernelSignature(exact, {}).key());
  EXPECT_FALSE(codegen::tuningKeyNames("matmul").count("tf32"));
  std::string error;
  LaunchSpec t = tf32;
  EXPECT_FALSE(applyTuningConfig(t, {{"tf32", "false"}}, sm90, error));
  EXPECT_NE(error.find("'tf32' is not a tuning key of matmul"),
            std::string::npos)
      << error;
  LaunchSpec e = exact;
  EXPECT_FALSE(applyTuningConfig(e, {{"path", "mma"}}, sm90, error));
  EXPECT_NE(error.find("the mma path needs f16 or bf16 operands"),
            std::string::npos)
      << error;
  // The paths of `launch`'s candidates; each keeps the launch's tf32.
  auto candidatePaths = [&](const LaunchSpec &launch,
                            autotune::SearchLevel level) {
    std::set<std::string> paths;
    for (const autotune::TuningConfig &c :
         tuningCandidates(launch, level, sm90).kept) {
      paths.insert(c.at("path"));
      LaunchSpec applied = launch;
      EXPECT_TRUE(applyTuningConfig(applied, c, sm90, error)) << error;
      EXPECT_EQ(applied.config.has("tf32"), launch.config.has("tf32"));
      EXPECT_EQ(applied.config.getBool("tf32"), launch.config.getBool("tf32"));
    }
    return paths;
  };
  for (autotune::SearchLevel level :
       {autotune::SearchLevel::Default, autotune::SearchLevel::Max}) {
    EXPECT_EQ(candidatePaths(tf32, level),
              (std::set<std::string>{"mma", "simt"}));
    EXPECT_EQ(candidatePaths(exact, level), (std::set<std::string>{"simt"}));
  }
}

// A tf32 launch with both operands K-major (B [N, K]: what the lowering
// makes of a constant weight) also gets wgmma candidates on sm_90, each on
// the TMA kernel with k tiles of 32 (one 128-byte row of f32), none with
// the f16 row of 64; every candidate keeps tf32.
TEST(Tuning, TF32WithKMajorOperandsTakesWgmmaCandidates) {
  TargetOptions sm90;
  LaunchSpec asked = matmul(DType::F32, 2048, 1024, 2048);
  asked.config.set("trans_b", ConfigValue::ofBool(true));
  asked.inputs[1].shape = {2048, 1024};
  asked.config.set("tf32", ConfigValue::ofBool(true));
  LaunchSpec tf32 = configured(asked, sm90);
  EXPECT_EQ(tf32.config.getString("path"), "wgmma");
  EXPECT_EQ(tf32.config.getInt("tile_k"), 32);
  EXPECT_TRUE(tf32.config.getBool("tma"));
  for (autotune::SearchLevel level :
       {autotune::SearchLevel::Default, autotune::SearchLevel::Max}) {
    std::set<std::string> paths;
    int wgmma = 0;
    for (const autotune::TuningConfig &c :
         tuningCandidates(tf32, level, sm90).kept) {
      paths.insert(c.at("path"));
      if (c.at("path") != "wgmma")
        continue;
      ++wgmma;
      EXPECT_EQ(c.at("tile_k"), "32");
      EXPECT_EQ(c.at("tma"), "true");
      LaunchSpec applied = tf32;
      std::string error;
      EXPECT_TRUE(applyTuningConfig(applied, c, sm90, error)) << error;
      EXPECT_TRUE(applied.config.getBool("tf32"));
    }
    EXPECT_EQ(paths, (std::set<std::string>{"wgmma", "mma", "simt"}));
    EXPECT_GT(wgmma, 1);
  }
}

TEST(Tuning, ConfigValueText) {
  EXPECT_EQ(configValueText(ConfigValue::ofInts({0, 2, 1})), "[0,2,1]");
  EXPECT_EQ(configValueText(ConfigValue::ofBool(true)), "true");
  EXPECT_EQ(configValueFromText("12").kind, ConfigValue::Kind::Int);
  EXPECT_EQ(configValueFromText("false").kind, ConfigValue::Kind::Bool);
  EXPECT_EQ(configValueFromText("mma").s, "mma");
  EXPECT_EQ(configValueFromText("").kind, ConfigValue::Kind::String);
}

TEST(Tuning, MeasureBuffersKeepGatherIndicesInTheAxis) {
  LaunchSpec g;
  g.name = "Gather_0";
  g.kind = "gather";
  g.config.set("axis", ConfigValue::ofInt(1));
  g.inputs = {{DType::F16, {4, 7, 3}, 16}, {DType::I64, {5}, 16}};
  g.outputs = {{DType::F16, {4, 5, 3}, 16}};
  std::vector<autotune::BufferDesc> in, out;
  std::string why;
  ASSERT_TRUE(measureBuffers(g, in, out, why)) << why;
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].dtype, "f16");
  EXPECT_EQ(in[0].elements, 84);
  EXPECT_EQ(in[1].dtype, "i64");
  EXPECT_EQ(in[1].intLo, 0);
  EXPECT_EQ(in[1].intHi, 7); // data.shape[axis]
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].elements, 60);
  // An axis out of range: no safe indices, so the launch is not tuned.
  g.config.set("axis", ConfigValue::ofInt(3));
  EXPECT_FALSE(measureBuffers(g, in, out, why));
  EXPECT_NE(why.find("gather indices"), std::string::npos) << why;
  // Other integer inputs get the small non-zero default range.
  LaunchSpec e;
  e.kind = "elementwise";
  e.inputs = {{DType::I32, {8}, 16}, {DType::I32, {8}, 16}};
  e.outputs = {{DType::I32, {8}, 16}};
  ASSERT_TRUE(measureBuffers(e, in, out, why)) << why;
  EXPECT_EQ(in[1].intLo, 1);
  EXPECT_EQ(in[1].intHi, 8);
}

TEST(Tuning, StagedSearchTakesOneCandidatePerFamilyFirst) {
  // BERT 32x128's FFN1 at max: the families (path, tiles, thread layout)
  // are far fewer than the candidates, the reference leads, and no family
  // appears twice in the first stage.
  TargetOptions sm90;
  LaunchSpec s = configured(matmul(DType::F16, 4096, 768, 3072), sm90);
  autotune::PrunedSpace max =
      tuningCandidates(s, autotune::SearchLevel::Max, sm90);
  std::vector<size_t> first = firstOfEachFamily(max);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first[0], 0u);
  EXPECT_LT(3 * first.size(), max.kept.size());
  std::set<std::string> families;
  for (size_t i : first)
    EXPECT_TRUE(families.insert(codegen::configFamily(max.kept[i])).second);
  for (const autotune::TuningConfig &c : max.kept)
    EXPECT_TRUE(families.count(codegen::configFamily(c)))
        << autotune::printConfig(c);
  // Stages and split-K refine a family; tiles and the TMA kernel do not.
  autotune::TuningConfig a = {{"path", "wgmma"}, {"tile_m", "128"},
                              {"tile_n", "256"}, {"stages", "4"},
                              {"tma", "true"},   {"group_m", "8"}};
  autotune::TuningConfig b = a;
  b["stages"] = "3";
  b["group_m"] = "16";
  EXPECT_EQ(codegen::configFamily(a), codegen::configFamily(b));
  b["tma"] = "false";
  EXPECT_NE(codegen::configFamily(a), codegen::configFamily(b));
  b = a;
  b["tile_n"] = "128";
  EXPECT_NE(codegen::configFamily(a), codegen::configFamily(b));
}

TEST(Tuning, DeepTmaPipelinesDropTheStagedEpilogueRatherThanFail) {
  // 128 x 128 tiles of two warpgroups, 6 stages: 232448 bytes with the
  // staged epilogue's tiles, too many; the staging the candidate did not
  // ask for gives way, the stages stay.
  TargetOptions sm90;
  LaunchSpec s = configured(matmul(DType::F16, 128, 768, 3072), sm90);
  const autotune::TuningConfig deep = {
      {"path", "wgmma"}, {"tile_m", "128"},   {"tile_n", "128"},
      {"tile_k", "64"},  {"warpgroups", "2"}, {"stages", "6"},
      {"split_k", "1"},  {"tma", "true"},     {"group_m", "8"}};
  LaunchSpec t = s;
  std::string error;
  ASSERT_TRUE(applyTuningConfig(t, deep, sm90, error)) << error;
  EXPECT_EQ(t.config.getInt("stages"), 6);
  EXPECT_FALSE(t.config.getBool("stage_out"));
  // Asked for explicitly, the staging does not give way: the config fails.
  autotune::TuningConfig staged = deep;
  staged["stage_out"] = "true";
  LaunchSpec u = s;
  EXPECT_FALSE(applyTuningConfig(u, staged, sm90, error));
  EXPECT_NE(error.find("bytes of shared memory"), std::string::npos) << error;
}

// With no path set, a convolution takes the implicit GEMM where its default
// tiles give a block per SM of an H200 (132) or more, else the direct
// kernel; f32, groups and pre-sm_80 targets stay direct.
TEST(Tuning, ConvDefaultPathFollowsTheBlockCount) {
  auto conv = [](DType t, std::vector<int64_t> x, std::vector<int64_t> w,
                 std::vector<int64_t> o, int64_t group = 1) {
    LaunchSpec s;
    s.name = "Conv_0";
    s.kind = "conv";
    s.inputs = {{t, x, 256}, {t, w, 256}};
    s.outputs = {{t, o, 256}};
    s.config.set("strides", ConfigValue::ofInts({1, 1}));
    s.config.set("pads", ConfigValue::ofInts({1, 1, 1, 1}));
    s.config.set("dilations", ConfigValue::ofInts({1, 1}));
    s.config.set("group", ConfigValue::ofInt(group));
    return s;
  };
  auto path = [](const LaunchSpec &s, const TargetOptions &target = {}) {
    return configured(s, target).config.getString("path", "direct");
  };
  // ResNet50's 56x56 3x3 of 64 images: 49 x 1 x 64 blocks of 64 x 64.
  EXPECT_EQ(path(conv(DType::F16, {64, 64, 56, 56}, {64, 64, 3, 3},
                      {64, 64, 56, 56})),
            "igemm");
  // Its 7x7 3x3 of one image: 1 x 8 blocks, each a K of 4608.
  EXPECT_EQ(path(conv(DType::F16, {1, 512, 7, 7}, {512, 512, 3, 3},
                      {1, 512, 7, 7})),
            "direct");
  // One image's 56x56 3x3: 49 blocks.
  EXPECT_EQ(path(conv(DType::BF16, {1, 64, 56, 56}, {64, 64, 3, 3},
                      {1, 64, 56, 56})),
            "direct");
  EXPECT_EQ(path(conv(DType::F32, {64, 64, 56, 56}, {64, 64, 3, 3},
                      {64, 64, 56, 56})),
            "direct");
  EXPECT_EQ(path(conv(DType::F16, {64, 64, 56, 56}, {64, 32, 3, 3},
                      {64, 64, 56, 56}, 2)),
            "direct");
  TargetOptions turing;
  turing.arch = "sm_75";
  EXPECT_EQ(path(conv(DType::F16, {64, 64, 56, 56}, {64, 64, 3, 3},
                      {64, 64, 56, 56}),
                 turing),
            "direct");
}

// A batched product whose A is shared by the batch (a 1x1 convolution as a
// matmul) with 512+ columns takes the TMA kernel, 128 x 128 tiles where M
// allows and the staged epilogue; smaller images, per-matrix A operands
// and explicit settings keep the defaults.
TEST(Tuning, SharedWeightProductsOfWideImagesTakeTma) {
  TargetOptions sm90;
  auto product = [](std::vector<int64_t> a, std::vector<int64_t> b,
                    std::vector<int64_t> o) {
    LaunchSpec s;
    s.name = "Conv_0";
    s.kind = "matmul";
    s.config.set("trans_a", ConfigValue::ofBool(false));
    s.config.set("trans_b", ConfigValue::ofBool(false));
    s.inputs = {{DType::F16, a, 256}, {DType::F16, b, 256}};
    s.outputs = {{DType::F16, o, 256}};
    return s;
  };
  // ResNet50's 56x56 64 -> 256 of 64 images.
  LaunchSpec wide = configured(
      product({256, 64}, {64, 64, 3136}, {64, 256, 3136}), sm90);
  EXPECT_EQ(wide.config.getString("path"), "wgmma");
  EXPECT_TRUE(wide.config.getBool("tma"));
  EXPECT_EQ(wide.config.getInt("tile_m"), 128);
  EXPECT_EQ(wide.config.getInt("tile_n"), 128);
  EXPECT_TRUE(wide.config.getBool("stage_out"));
  EXPECT_EQ(wide.config.getInt("stages"), 4);
  // 64 output channels: TMA with the default 64-row tiles.
  LaunchSpec narrow = configured(
      product({64, 64}, {64, 64, 3136}, {64, 64, 3136}), sm90);
  EXPECT_TRUE(narrow.config.getBool("tma"));
  EXPECT_EQ(narrow.config.getInt("tile_m"), 64);
  // 7x7 images keep the cp.async kernel.
  LaunchSpec small = configured(
      product({2048, 512}, {64, 512, 49}, {64, 2048, 49}), sm90);
  EXPECT_FALSE(small.config.getBool("tma"));
  // Each matrix its own A (attention-like): the defaults.
  LaunchSpec own = configured(
      product({64, 256, 64}, {64, 64, 3136}, {64, 256, 3136}), sm90);
  EXPECT_FALSE(own.config.getBool("tma"));
  // What the user set stands.
  LaunchSpec asked = product({256, 64}, {64, 64, 3136}, {64, 256, 3136});
  asked.config.set("tma", ConfigValue::ofBool(false));
  EXPECT_FALSE(configured(asked, sm90).config.getBool("tma"));
}

namespace {

/// A [M, K] x [K, N] f16 product with an epilogue program over extra
/// inputs of the given shapes.
LaunchSpec withEpilogue(const std::string &program,
                        const std::vector<std::vector<int64_t>> &extra,
                        int64_t m = 128, int64_t k = 768, int64_t n = 3072) {
  LaunchSpec s = matmul(DType::F16, m, k, n);
  s.config.set("epilogue", ConfigValue::ofString(program));
  for (const auto &shape : extra)
    s.inputs.push_back({DType::F16, shape, 256});
  return s;
}

} // namespace

TEST(CublasLt, RowMajorProductIsTheSwappedColumnMajorOne) {
  LaunchSpec s = withEpilogue(
      "t0 = add(i0, i1) : f16; t1 = gelu{approximate=tanh}(t0) : f16",
      {{3072}});
  engine::LibraryCallSpec c;
  std::string why;
  ASSERT_TRUE(cublasLtCall(s, c, why)) << why;
  // D^T [N x M] = B^T A^T: cuBLASLt's A is Kiln's B (input 1).
  EXPECT_EQ(c.m, 3072u);
  EXPECT_EQ(c.n, 128u);
  EXPECT_EQ(c.k, 768u);
  EXPECT_EQ(c.a, 1);
  EXPECT_EQ(c.b, 0);
  EXPECT_EQ(c.d, 3);
  EXPECT_EQ(c.bias, 2);
  EXPECT_EQ(c.c, -1);
  EXPECT_FALSE(c.transA);
  EXPECT_FALSE(c.transB);
  EXPECT_EQ(c.lda, 3072u);
  EXPECT_EQ(c.ldb, 768u);
  EXPECT_EQ(c.ldc, 3072u);
  EXPECT_EQ(c.epilogue, engine::MatmulEpilogue::GeluTanhBias);
  EXPECT_EQ(c.beta, 0.0f);
  EXPECT_EQ(c.dtype, KILN_DTYPE_F16);

  // A weight stored [N, K] (trans_b) is cuBLASLt's transposed A.
  LaunchSpec t = matmul(DType::F16, 128, 768, 3072);
  t.config.set("trans_b", ConfigValue::ofBool(true));
  t.inputs[1].shape = {3072, 768};
  ASSERT_TRUE(cublasLtCall(t, c, why)) << why;
  EXPECT_TRUE(c.transA);
  EXPECT_EQ(c.lda, 768u);
  EXPECT_EQ(c.epilogue, engine::MatmulEpilogue::None);
}

TEST(CublasLt, ResidualIsCAndReluComesLast) {
  engine::LibraryCallSpec c;
  std::string why;
  LaunchSpec s = withEpilogue("t0 = add(i0, i1) : f16; t1 = add(t0, i2) : f16; "
                              "t2 = relu(t1) : f16",
                              {{3072}, {128, 3072}});
  ASSERT_TRUE(cublasLtCall(s, c, why)) << why;
  EXPECT_EQ(c.bias, 2);
  EXPECT_EQ(c.c, 3);
  EXPECT_EQ(c.beta, 1.0f);
  EXPECT_EQ(c.epilogue, engine::MatmulEpilogue::ReluBias);
  // An add after the activation is not cuBLASLt's order.
  s = withEpilogue("t0 = relu(i0) : f16; t1 = add(t0, i1) : f16",
                   {{128, 3072}});
  EXPECT_FALSE(cublasLtCall(s, c, why));
  EXPECT_NE(why.find("activation is the epilogue's last step"),
            std::string::npos)
      << why;
  // Two biases, or a bias along M, have no cuBLASLt form.
  s = withEpilogue("t0 = add(i0, i1) : f16; t1 = add(t0, i2) : f16",
                   {{3072}, {3072}});
  EXPECT_FALSE(cublasLtCall(s, c, why));
  s = withEpilogue("t0 = mul(i0, i1) : f16", {{3072}});
  EXPECT_FALSE(cublasLtCall(s, c, why));
  EXPECT_NE(why.find("no epilogue for step 0 ('mul')"), std::string::npos)
      << why;
}

TEST(CublasLt, TheErfGeluNeverMaps) {
  engine::LibraryCallSpec c;
  std::string why;
  for (const char *program :
       {"t0 = add(i0, i1) : f16; t1 = gelu{approximate=none}(t0) : f16",
        "t0 = add(i0, i1) : f16; t1 = gelu(t0) : f16"}) {
    LaunchSpec s = withEpilogue(program, {{3072}});
    EXPECT_FALSE(cublasLtCall(s, c, why)) << program;
    EXPECT_NE(why.find("with the erf form"), std::string::npos) << why;
    // And so it is no candidate, even where the library is present.
    TargetOptions target;
    target.cublasLtVersion = "130100";
    LaunchSpec conf = configured(s, target);
    for (const autotune::TuningConfig &k :
         tuningCandidates(conf, autotune::SearchLevel::Max, target).kept)
      EXPECT_NE(k.at("path"), "cublaslt");
  }
}

TEST(CublasLt, BatchesNeedOneStride) {
  engine::LibraryCallSpec c;
  std::string why;
  // Attention scores: [4, 12, 128, 64] x [4, 12, 64, 128].
  LaunchSpec s;
  s.name = "bmm";
  s.kind = "matmul";
  s.inputs = {{DType::BF16, {4, 12, 128, 64}, 256},
              {DType::BF16, {4, 12, 64, 128}, 256}};
  s.outputs = {{DType::BF16, {4, 12, 128, 128}, 256}};
  ASSERT_TRUE(cublasLtCall(s, c, why)) << why;
  EXPECT_EQ(c.batch, 48u);
  EXPECT_EQ(c.strideA, 64u * 128u);
  EXPECT_EQ(c.strideB, 128u * 64u);
  EXPECT_EQ(c.strideC, 128u * 128u);
  // One weight for every batch: stride 0.
  s.inputs[1].shape = {64, 128};
  ASSERT_TRUE(cublasLtCall(s, c, why)) << why;
  EXPECT_EQ(c.strideA, 0u);
  // A weight per head but not per batch entry has no single stride.
  s.inputs[1].shape = {1, 12, 64, 128};
  EXPECT_FALSE(cublasLtCall(s, c, why));
  // Integer products stay on Kiln's kernels.
  s = matmul(DType::I32, 64, 64, 64);
  EXPECT_FALSE(cublasLtCall(s, c, why));
}

TEST(CublasLt, CandidateOnlyWhereTheLibraryIs) {
  LaunchSpec s = configured(matmul(DType::F16, 4096, 768, 3072));
  auto count = [&](const TargetOptions &target) {
    size_t n = 0;
    for (const autotune::TuningConfig &k :
         tuningCandidates(s, autotune::SearchLevel::Default, target).kept)
      if (k.at("path") == "cublaslt") {
        ++n;
        EXPECT_EQ(k.at("lt_version"), target.cublasLtVersion);
        EXPECT_EQ(k.count("tile_m"), 0u);
      }
    return n;
  };
  EXPECT_EQ(count(TargetOptions()), 0u);
  TargetOptions target;
  target.cublasLtVersion = "130100";
  EXPECT_EQ(count(target), 4u);
  // The heuristic never picks it.
  EXPECT_NE(configured(matmul(DType::F16, 4096, 768, 3072), target)
                .config.getString("path"),
            "cublaslt");
  // A config that names it is a library launch with no geometry of its own.
  LaunchSpec t = s;
  std::string error;
  ASSERT_TRUE(applyTuningConfig(t, {{"path", "cublaslt"}, {"algo", "3"}},
                                target, error))
      << error;
  EXPECT_EQ(t.grid, (std::array<int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(t.config.getInt("algo"), 3);
  EXPECT_EQ(t.config.getInt("lt_version"), 130100);
  // A cache entry's version (its text) reads back as the same integer,
  // whatever library this compile found.
  ASSERT_TRUE(applyTuningConfig(
      t, {{"path", "cublaslt"}, {"algo", "1"}, {"lt_version", "120905"}},
      TargetOptions(), error))
      << error;
  EXPECT_EQ(t.config.getInt("lt_version"), 120905);
  EXPECT_FALSE(applyTuningConfig(t, {{"path", "cublaslt"}, {"algo", "8"}},
                                 target, error));
  // Going back to a kernel path drops the library's keys.
  ASSERT_TRUE(applyTuningConfig(t, {{"path", "mma"}}, target, error)) << error;
  EXPECT_FALSE(t.config.has("algo"));
  EXPECT_FALSE(t.config.has("lt_version"));
}

TEST(CublasLt, CachedChoicesOfAnotherLibraryAreStale) {
  std::string why;
  const autotune::TuningConfig lt = {
      {"path", "cublaslt"}, {"algo", "2"}, {"lt_version", "130100"}};
  EXPECT_FALSE(cublasLtEntryStale(lt, "130100", why));
  EXPECT_TRUE(cublasLtEntryStale(lt, "130200", why));
  EXPECT_EQ(why, "the cache's cuBLASLt choice was measured with cuBLASLt "
                 "130100, this machine has 130200");
  // No cuBLASLt here: the engine could not run it.
  EXPECT_TRUE(cublasLtEntryStale(lt, "", why));
  EXPECT_NE(why.find("does not load on this machine"), std::string::npos);
  // Kiln's own kernels are never stale this way.
  EXPECT_FALSE(cublasLtEntryStale({{"path", "wgmma"}, {"stages", "4"}}, "",
                                  why));
}

namespace {
/// A tuning key's value check by the key's name, as the cache and --set do.
bool checkTuningText(const std::string &key, const std::string &value,
                     std::string &why) {
  const KeyInfo *k = findTuningKey(key);
  if (!k) {
    why = key + " is not a tuning key";
    return false;
  }
  return k->checkText(value, why);
}
} // namespace

TEST(KindSearchSpace, SizesAndOrder) {
  // How many configs of `space` set `key` to `value`.
  auto with = [](const std::vector<autotune::TuningConfig> &space, const char *key,
                 const char *value) {
    size_t n = 0;
    for (const autotune::TuningConfig &c : space)
      n += c.count(key) && c.at(key) == value;
    return n;
  };
  auto count = [&](const std::vector<autotune::TuningConfig> &space, const char *path) {
    return with(space, "path", path);
  };
  const auto max90 = searchSpace("matmul", autotune::SearchLevel::Max, "sm_90");
  const auto def90 = searchSpace("matmul", autotune::SearchLevel::Default, "sm_90");
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
  auto split = [](const std::vector<autotune::TuningConfig> &space) {
    size_t n = 0;
    for (const autotune::TuningConfig &c : space)
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
  EXPECT_EQ(count(searchSpace("matmul", autotune::SearchLevel::Max, "sm_80"), "wgmma"),
            0u);
  // Default is a subset of max, and the order is fixed.
  for (const autotune::TuningConfig &c : def90)
    EXPECT_NE(std::find(max90.begin(), max90.end(), c), max90.end())
        << autotune::printConfig(c);
  EXPECT_EQ(max90, searchSpace("matmul", autotune::SearchLevel::Max, "sm_90"));
  // Attention: the mma kernel's block shapes, then the wgmma kernel with one
  // and two query tiles a block (sm_90 only).
  const auto att = searchSpace("attention", autotune::SearchLevel::Max, "sm_90");
  EXPECT_EQ(att.size(), 8u);
  EXPECT_EQ(autotune::printConfig(att.front()), "block_m=32 block_n=32 variant=mma");
  EXPECT_EQ(autotune::printConfig(att[6]), "block_m=64 block_n=64 q_tiles=1 variant=wgmma");
  EXPECT_EQ(autotune::printConfig(att.back()), "block_m=64 block_n=64 q_tiles=2 variant=wgmma");
  EXPECT_EQ(searchSpace("attention", autotune::SearchLevel::Default, "sm_90").size(), 6u);
  EXPECT_EQ(searchSpace("attention", autotune::SearchLevel::Max, "sm_80").size(), 6u);
  // Convolutions: the direct kernel, then implicit-GEMM tiles (2 by
  // default; 4 x 2 tile_k x staged output or not x 1 or 2 stages at max).
  const auto conv = searchSpace("conv", autotune::SearchLevel::Max, "sm_90");
  ASSERT_EQ(conv.size(), 33u);
  EXPECT_EQ(autotune::printConfig(conv.front()), "path=direct");
  EXPECT_EQ(autotune::printConfig(conv.back()),
            "path=igemm stage_out=true stages=2 tile_k=64 tile_m=128 "
            "tile_n=128 warps_m=2 warps_n=4");
  EXPECT_EQ(searchSpace("conv", autotune::SearchLevel::Default, "sm_80").size(), 3u);
  EXPECT_EQ(searchSpace("attention", autotune::SearchLevel::Max, "sm_80").size(), 6u);
  EXPECT_FALSE(searchSpace("layer_norm", autotune::SearchLevel::Default, "sm_90").empty());
  EXPECT_TRUE(searchSpace("batch_norm", autotune::SearchLevel::Max, "sm_90").empty());
  // Every candidate sets only tuning keys of its kind.
  for (const char *kind : {"matmul", "attention", "conv", "softmax",
                           "layer_norm", "reduce", "transpose", "elementwise",
                           "concat"})
    for (const autotune::TuningConfig &c : searchSpace(kind, autotune::SearchLevel::Max, "sm_90"))
      for (const auto &kv : c)
        EXPECT_TRUE(tuningKeyNames(kind).count(kv.first)) << kind << " " << kv.first;
}

TEST(KindSearchSpace, ValuesHaveTheirKeysTypes) {
  std::string why;
  // Every candidate of every space is a value of its key's type.
  for (const std::string &kind : tunableKinds())
    for (const autotune::TuningConfig &c : searchSpace(kind, autotune::SearchLevel::Max, "sm_90"))
      for (const auto &[key, value] : c)
        EXPECT_TRUE(checkTuningText(key, value, why)) << kind << " " << why;
  const std::pair<const char *, const char *> good[] = {
      {"algo", "0"}, {"lt_version", "130100"}, {"tile_m", "65536"},
      {"stage_out", "false"}};
  for (const auto &[key, value] : good)
    EXPECT_TRUE(checkTuningText(key, value, why)) << why;
  // Zero tiles divide; out-of-range, partial and non-numbers are refused
  // by name.
  const std::pair<const char *, const char *> bad[] = {
      {"tile_m", "0"},      {"tile_n", "99999999999999999999"},
      {"split_k", "-1"},    {"stages", "4x"},
      {"vec", ""},          {"tile_k", "65537"},
      {"algo", "-1"},       {"stage_out", "maybe"},
      {"tma", "1"},         {"path", ""}};
  for (const auto &[key, value] : bad)
    EXPECT_FALSE(checkTuningText(key, value, why)) << key << "=" << value;
  EXPECT_FALSE(checkTuningText("tile_m", "0", why));
  EXPECT_EQ(why, "tile_m=0: tile_m is a whole number in [1, 65536]");
  EXPECT_FALSE(checkTuningText("stage_out", "maybe", why));
  EXPECT_EQ(why, "stage_out=maybe: stage_out is true or false");
  EXPECT_EQ(tunableKinds().front(), "attention");
}

