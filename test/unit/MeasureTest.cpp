// Unit tests of autotune/Measure.h: the GPU-free half of measuring (random
// inputs per dtype, output comparison, the budget, worker processes that
// survive crashing and hanging candidates).
#include "autotune/GpuMeasure.h"
#include "autotune/Measure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstring>
#include <set>
#include <unistd.h>

using namespace kiln::autotune;

namespace {

std::vector<char> fill(const std::string &dtype, int64_t n, uint64_t seed = 7,
                       int64_t lo = 1, int64_t hi = 8) {
  BufferDesc d;
  d.dtype = dtype;
  d.elements = n;
  d.intLo = lo;
  d.intHi = hi;
  std::vector<char> out;
  std::string error;
  EXPECT_TRUE(fillInput(d, seed, out, error)) << error;
  return out;
}

template <typename T> T at(const std::vector<char> &b, size_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

std::vector<char> floats(std::vector<float> v) {
  std::vector<char> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

TEST(MeasureInputs, FloatsAreNonZeroFiniteAndInRange) {
  const int64_t n = 4096;
  std::vector<char> f32 = fill("f32", n);
  ASSERT_EQ(f32.size(), size_t(n) * 4);
  bool negative = false, positive = false;
  for (int64_t i = 0; i < n; ++i) {
    float v = at<float>(f32, i);
    ASSERT_TRUE(std::isfinite(v));
    ASSERT_GE(std::fabs(v), 1.0f / 16);
    ASSERT_LE(std::fabs(v), 1.0f);
    (v < 0 ? negative : positive) = true;
  }
  EXPECT_TRUE(negative && positive);
  // f16: exponent field 11..15 is |v| in [2^-4, 2^0] (0 would be zero or a
  // subnormal, 31 inf or NaN); 2^0 only with a zero mantissa.
  std::vector<char> f16 = fill("f16", n);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t h = at<uint16_t>(f16, i);
    unsigned e = (h >> 10) & 31;
    ASSERT_GE(e, 11u) << i;
    ASSERT_LE(e, 15u) << i;
    if (e == 15)
      ASSERT_EQ(h & 0x3ff, 0);
  }
  // bf16 is the top half of the f32 of the same value.
  std::vector<char> bf16 = fill("bf16", n);
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = uint32_t(at<uint16_t>(bf16, i)) << 16;
    float v;
    std::memcpy(&v, &x, 4);
    ASSERT_GE(std::fabs(v), 1.0f / 16);
    ASSERT_LE(std::fabs(v), 1.0f);
  }
  for (int64_t i = 0; i < 64; ++i) {
    double v = at<double>(fill("f64", 64), i);
    ASSERT_GE(std::fabs(v), 1.0 / 16);
    ASSERT_LE(std::fabs(v), 1.0);
  }
}

TEST(MeasureInputs, IntegersStayInTheirRange) {
  std::set<int64_t> seen;
  std::vector<char> idx = fill("i64", 2000, 3, 0, 5); // gather indices, dim 5
  for (int64_t i = 0; i < 2000; ++i) {
    int64_t v = at<int64_t>(idx, i);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 5);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u); // every index is hit
  std::vector<char> i32 = fill("i32", 1000);
  for (int64_t i = 0; i < 1000; ++i) {
    int32_t v = at<int32_t>(i32, i);
    ASSERT_GE(v, 1); // the default range is non-zero (no division by zero)
    ASSERT_LT(v, 8);
  }
  std::vector<char> b = fill("i1", 1000);
  for (char c : b)
    ASSERT_TRUE(c == 0 || c == 1);
  for (char c : fill("ui8", 1000))
    ASSERT_TRUE(uint8_t(c) >= 1 && uint8_t(c) < 8);
}

TEST(MeasureInputs, DeterministicPerSeedAndRejectsWhatItCannotMake) {
  EXPECT_EQ(fill("f16", 256, 11), fill("f16", 256, 11));
  EXPECT_NE(fill("f16", 256, 11), fill("f16", 256, 12));
  BufferDesc d;
  std::vector<char> out;
  std::string error;
  d.dtype = "f8";
  d.elements = 4;
  EXPECT_FALSE(fillInput(d, 1, out, error));
  EXPECT_NE(error.find("f8"), std::string::npos);
  d.dtype = "i8";
  d.intLo = 200; // beyond i8
  d.intHi = 300;
  EXPECT_FALSE(fillInput(d, 1, out, error));
}

TEST(MeasureCompare, FloatToleranceIsRelativeToTheLargestReference) {
  EXPECT_DOUBLE_EQ(outputTolerance("f16"), 1e-2);
  EXPECT_DOUBLE_EQ(outputTolerance("bf16"), 1e-2);
  EXPECT_DOUBLE_EQ(outputTolerance("f32"), 1e-4);
  EXPECT_DOUBLE_EQ(outputTolerance("i32"), 0);
  std::string why;
  // max|ref| = 100: f32 allows 1e-2 on every element, also the small one.
  EXPECT_TRUE(
      outputsMatch("f32", floats({100, 1}), floats({100.005f, 1.009f}), why));
  EXPECT_FALSE(
      outputsMatch("f32", floats({100, 1}), floats({100, 1.02f}), why));
  EXPECT_NE(why.find("element 1"), std::string::npos) << why;
  // A NaN matches only a NaN; a finite reference needs a finite output.
  const float nan = std::nanf("");
  EXPECT_TRUE(outputsMatch("f32", floats({nan, 1}), floats({nan, 1}), why));
  EXPECT_FALSE(outputsMatch("f32", floats({1, 1}), floats({nan, 1}), why));
  EXPECT_FALSE(outputsMatch("f32", floats({1}), floats({1, 1}), why));
  // f16 (0x3c00 = 1.0, 0x3c01 = 1 + 2^-10, 0x3c1f = 1 + 31/1024): 1e-2.
  auto halfs = [](std::vector<uint16_t> v) {
    std::vector<char> out(v.size() * 2);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  EXPECT_TRUE(outputsMatch("f16", halfs({0x3c00}), halfs({0x3c01}), why));
  EXPECT_FALSE(outputsMatch("f16", halfs({0x3c00}), halfs({0x3c1f}), why));
}

TEST(MeasureCompare, IntegersAreBitwise) {
  std::vector<char> a = fill("i32", 16), b = a;
  std::string why;
  EXPECT_TRUE(outputsMatch("i32", a, b, why));
  b[9] ^= 1;
  EXPECT_FALSE(outputsMatch("i32", a, b, why));
  EXPECT_NE(why.find("byte 9"), std::string::npos) << why;
}

TEST(MeasureBudget, StopsOnceUsedUp) {
  double now = 100;
  TuneBudget unlimited(0, [&] { return now; });
  TuneBudget budget(10, [&] { return now; });
  now = 109.9;
  EXPECT_FALSE(budget.exceeded());
  EXPECT_NEAR(budget.elapsed(), 9.9, 1e-9);
  now = 110;
  EXPECT_TRUE(budget.exceeded());
  now = 1e9;
  EXPECT_FALSE(unlimited.exceeded());
}

TEST(MeasureWorker, ReportsLinesCrashesAndTimeouts) {
  std::vector<std::string> lines;
  WorkerEnd end = runWorker(
      [](const auto &emit) {
        emit("a");
        emit("b c");
      },
      5, lines);
  EXPECT_EQ(end.kind, WorkerEnd::Exited);
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b c"}));

  lines.clear();
  end = runWorker(
      [](const auto &emit) {
        emit("before");
        ::kill(::getpid(), SIGSEGV);
      },
      5, lines);
  EXPECT_EQ(end.kind, WorkerEnd::Crashed);
  EXPECT_EQ(end.code, SIGSEGV);
  EXPECT_EQ(lines, (std::vector<std::string>{"before"}));

  lines.clear();
  end = runWorker([](const auto &) { ::sleep(30); }, 0.3, lines);
  EXPECT_EQ(end.kind, WorkerEnd::TimedOut);

  end = runWorker([](const auto &) { ::_exit(5); }, 5, lines);
  EXPECT_EQ(end.kind, WorkerEnd::Crashed);
  EXPECT_EQ(end.code, 5);
}

TEST(MeasureWorker, CrashingAndHangingCandidatesAreDropped) {
  // 0 is the reference; 2 faults, 3 hangs, 4 is wrong, 5 loses its
  // context after answering ("bye"); the rest are timed as 10 - i ms.
  std::vector<std::string> notes;
  std::vector<Measurement> ms = measureInWorkers(
      7,
      [&](const std::vector<size_t> &todo, const auto &emit) {
        for (size_t i : todo) {
          if (i == 2)
            ::kill(::getpid(), SIGSEGV);
          if (i == 3)
            ::sleep(30);
          if (i == 4) {
            emit("4 fail output 0 differs from the reference");
            continue;
          }
          emit(std::to_string(i) + " ok " + std::to_string(10 - int(i)));
          if (i == 5) {
            emit("bye");
            ::_exit(0);
          }
        }
      },
      0.5, notes);
  ASSERT_EQ(ms.size(), 7u);
  EXPECT_EQ(ms[0].medianMs, 10.0);
  EXPECT_EQ(ms[1].medianMs, 9.0);
  EXPECT_FALSE(ms[2].medianMs);
  EXPECT_FALSE(ms[3].medianMs);
  EXPECT_FALSE(ms[4].medianMs);
  EXPECT_EQ(ms[5].medianMs, 5.0);
  EXPECT_EQ(ms[6].medianMs, 4.0);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("candidate 2: the worker killed by signal 11"),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("candidate 3: the worker no answer"),
            std::string::npos)
      << notes[1];
  EXPECT_NE(notes[2].find("candidate 4: output 0 differs"), std::string::npos)
      << notes[2];
  Choice c = chooseWinner(ms);
  EXPECT_EQ(c.winner, 6u);
  EXPECT_EQ(c.runnerUp, 5u);
}

TEST(MeasureWorker, NoReferenceNoCandidates) {
  std::vector<std::string> notes;
  std::vector<Measurement> ms = measureInWorkers(
      3,
      [](const std::vector<size_t> &todo, const auto &emit) {
        for (size_t i : todo) {
          if (i == 0)
            ::kill(::getpid(), SIGSEGV);
          emit(std::to_string(i) + " ok 1");
        }
      },
      5, notes);
  for (const Measurement &m : ms)
    EXPECT_FALSE(m.medianMs);
  EXPECT_EQ(notes.size(), 3u);
  // A reference that reports failure (and "bye") stops too, without looping.
  notes.clear();
  ms = measureInWorkers(
      3,
      [](const std::vector<size_t> &, const auto &emit) {
        emit("0 fail cuMemAlloc failed");
        emit("bye");
      },
      5, notes);
  for (const Measurement &m : ms)
    EXPECT_FALSE(m.medianMs);
  EXPECT_FALSE(chooseWinner(ms).winner);
}

// The job an exec'd GPU worker reads (autotune/GpuMeasure.h): every field
// round-trips, and a truncated, padded or foreign file is refused.
TEST(GpuJobFile, RoundTripsAndRefusesDamage) {
  kiln::autotune::GpuJob job;
  job.inputs = {{"f16", 4096, 1, 8}, {"i64", 3, 0, 100}};
  job.outputs = {{"bf16", 17, 1, 8}};
  job.warmup = 4;
  job.runs = 21;
  job.timeoutSeconds = 12.5;
  job.seed = 99;
  kiln::autotune::GpuKernel k;
  k.image = {'\x7f', 'E', 'L', 'F', '\0', 'x'};
  k.entry = "kiln_matmul_wgmma_tma";
  k.grid = {132, 1, 1};
  k.block = {384, 1, 1};
  k.smem = 197888;
  kiln::autotune::TensorMapArg m;
  m.buffer = 1;
  m.offset = 32;
  m.dtype = "f16";
  m.dims = {768, 4096};
  m.strides = {1536};
  m.box = {64, 128};
  m.swizzle = 128;
  k.tensorMaps = {m, m};
  kiln::autotune::GpuKernel lib;
  lib.hasLibrary = true;
  lib.library.dtype = KILN_DTYPE_BF16;
  lib.library.m = 3072;
  lib.library.n = 4096;
  lib.library.k = 768;
  lib.library.transA = true;
  lib.library.lda = 768;
  lib.library.batch = 3;
  lib.library.strideB = 12345;
  lib.library.beta = 0.5f;
  lib.library.epilogue = kiln::engine::MatmulEpilogue::GeluTanhBias;
  lib.library.bias = 2;
  lib.library.algo = 5;
  lib.library.workspaceBytes = 32 << 20;
  lib.library.alignment = 64;
  job.candidates = {k, k, lib};
  job.candidates[1].entry = "other";
  job.candidates[1].workspaceBytes = 4096 + 132 * 65536;
  const std::vector<char> bytes = kiln::autotune::encodeGpuJob(job);
  kiln::autotune::GpuJob back;
  ASSERT_TRUE(kiln::autotune::decodeGpuJob(bytes, back));
  EXPECT_EQ(kiln::autotune::encodeGpuJob(back), bytes);
  ASSERT_EQ(back.candidates.size(), 3u);
  EXPECT_FALSE(back.candidates[0].hasLibrary);
  ASSERT_TRUE(back.candidates[2].hasLibrary);
  const kiln::engine::LibraryCallSpec &c = back.candidates[2].library;
  EXPECT_EQ(c.dtype, KILN_DTYPE_BF16);
  EXPECT_EQ(c.m, 3072u);
  EXPECT_TRUE(c.transA);
  EXPECT_FALSE(c.transB);
  EXPECT_EQ(c.strideB, 12345u);
  EXPECT_EQ(c.beta, 0.5f);
  EXPECT_EQ(c.epilogue, kiln::engine::MatmulEpilogue::GeluTanhBias);
  EXPECT_EQ(c.bias, 2);
  EXPECT_EQ(c.c, -1);
  EXPECT_EQ(c.algo, 5u);
  EXPECT_EQ(c.alignment, 64u);
  EXPECT_EQ(back.candidates[1].entry, "other");
  EXPECT_EQ(back.candidates[0].workspaceBytes, 0u);
  EXPECT_EQ(back.candidates[1].workspaceBytes, 4096u + 132u * 65536u);
  EXPECT_EQ(back.candidates[0].image, k.image);
  EXPECT_EQ(back.candidates[0].tensorMaps[1].box, m.box);
  EXPECT_EQ(back.candidates[0].tensorMaps[1].strides, m.strides);
  EXPECT_EQ(back.inputs[1].intHi, 100);
  EXPECT_EQ(back.outputs[0].dtype, "bf16");
  EXPECT_EQ(back.timeoutSeconds, 12.5);
  for (size_t cut : {size_t(0), size_t(7), bytes.size() / 2, bytes.size() - 1}) {
    std::vector<char> shorter(bytes.begin(), bytes.begin() + cut);
    EXPECT_FALSE(kiln::autotune::decodeGpuJob(shorter, back)) << cut;
  }
  std::vector<char> longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(kiln::autotune::decodeGpuJob(longer, back));
  std::vector<char> foreign = bytes;
  foreign[0] = 'X';
  EXPECT_FALSE(kiln::autotune::decodeGpuJob(foreign, back));
}
