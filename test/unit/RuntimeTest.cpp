// Runtime C API and C++ wrapper: statuses, the no-GPU path, and (Gpu* suites,
// CTest label "gpu") real runs of PTX engines, which skip without a GPU.
#include "kiln/engine_writer.h"
#include "kiln/kiln.h"
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

using namespace kiln::engine;
using Bytes = std::vector<uint8_t>;

namespace {

std::string message(kiln_status s) { return kiln_status_message(s); }

/// Sets an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old, hadOld_ = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::string old_;
  bool hadOld_ = false;
};

//===----------------------------------------------------------------------===//
// A real engine: y = alpha * (x + w), through two PTX kernels and the arena
//===----------------------------------------------------------------------===//

// Hand-written PTX (the driver JITs it for whatever GPU is present), so the
// test needs no CUDA compiler. kiln_test_scale takes a u64 after an f32 to
// check that parameters of mixed sizes are passed right.
const char *kPtx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry kiln_test_add(
	.param .u64 p_out,
	.param .u64 p_a,
	.param .u64 p_b,
	.param .u32 p_n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<11>;

	ld.param.u64 	%rd1, [p_out];
	ld.param.u64 	%rd2, [p_a];
	ld.param.u64 	%rd3, [p_b];
	ld.param.u32 	%r1, [p_n];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.u32 	%p1, %r5, %r1;
	@%p1 bra 	ADD_DONE;
	cvta.to.global.u64 	%rd4, %rd1;
	cvta.to.global.u64 	%rd5, %rd2;
	cvta.to.global.u64 	%rd6, %rd3;
	mul.wide.u32 	%rd7, %r5, 4;
	add.s64 	%rd8, %rd5, %rd7;
	add.s64 	%rd9, %rd6, %rd7;
	add.s64 	%rd10, %rd4, %rd7;
	ld.global.f32 	%f1, [%rd8];
	ld.global.f32 	%f2, [%rd9];
	add.f32 	%f3, %f1, %f2;
	st.global.f32 	[%rd10], %f3;
ADD_DONE:
	ret;
}

.visible .entry kiln_test_scale(
	.param .u64 p_out,
	.param .u64 p_in,
	.param .f32 p_alpha,
	.param .u64 p_n
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<5>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [p_out];
	ld.param.u64 	%rd2, [p_in];
	ld.param.f32 	%f1, [p_alpha];
	ld.param.u64 	%rd3, [p_n];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	cvt.u64.u32 	%rd4, %r4;
	setp.ge.u64 	%p1, %rd4, %rd3;
	@%p1 bra 	SCALE_DONE;
	cvta.to.global.u64 	%rd5, %rd1;
	cvta.to.global.u64 	%rd6, %rd2;
	shl.b64 	%rd7, %rd4, 2;
	add.s64 	%rd8, %rd6, %rd7;
	add.s64 	%rd9, %rd5, %rd7;
	ld.global.f32 	%f2, [%rd8];
	mul.f32 	%f3, %f2, %f1;
	st.global.f32 	[%rd9], %f3;
SCALE_DONE:
	ret;
}
)";

constexpr uint32_t kN = 1000;
constexpr float kAlpha = 2.0f;
constexpr uint64_t kWeightsPrefix = 64; // w starts this far into its section

float weight(uint32_t i) { return 0.5f * float(i); }

struct EngineOptions {
  bool isStatic = true;
  std::string arch = "sm_90";
  int scaleArgs = 4; ///< 3: one argument short of the kernel's 4
  std::string scaleEntry = "kiln_test_scale";
  bool ptx = true;        ///< a PTX section for the image
  bool fakeCubin = false; ///< an (unloadable) cubin beside or instead
  uint64_t arenaSize = 256 + kN * 4;
  uint32_t ranks = 1;
};

Bytes makeEngine(const EngineOptions &o = {}) {
  ManifestSpec m;
  m.compilerVersion = "kiln-test";
  m.targetArch = o.arch;
  m.tensorParallelRanks = o.ranks;
  m.inputs = {{"x", KILN_DTYPE_F32, {int64_t(kN)}}};
  m.outputs = {{"y", KILN_DTYPE_F32, {int64_t(kN)}}};
  EngineWriter w(m);
  ImageSpec image;
  image.name = "test-kernels";
  if (o.fakeCubin) {
    Bytes cubin(256, 0);
    std::memcpy(cubin.data(),
                "\x7f"
                "ELF",
                4);
    image.cubinSection = int32_t(w.addCubin(cubin));
  }
  if (o.ptx)
    image.ptxSection = int32_t(w.addPtx(kPtx));
  Bytes weights(kWeightsPrefix + kN * 4, 0xCD);
  for (uint32_t i = 0; i < kN; ++i) {
    float v = weight(i);
    std::memcpy(&weights[kWeightsPrefix + 4 * i], &v, 4);
  }
  uint32_t ws = w.addWeights(weights);

  PlanSpec p;
  p.isStatic = o.isStatic;
  p.arenaSize = o.arenaSize;
  p.buffers = {BufferSpec::input(0, kN * 4, "x"),
               BufferSpec::output(0, kN * 4, "y"),
               BufferSpec::arena(0, 256 + kN * 4, "tmp"),
               BufferSpec::weights(ws, kWeightsPrefix, kN * 4, "w")};
  p.images = {image};
  KernelSpec add;
  add.name = "add";
  add.entry = "kiln_test_add";
  add.grid = {(kN + 127) / 128, 1, 1};
  add.block = {128, 1, 1};
  // tmp + 256 bytes: exercises argument byte offsets.
  add.args = {ArgSpec::bufferRef(2, 256), ArgSpec::bufferRef(0),
              ArgSpec::bufferRef(3), ArgSpec::u32(kN)};
  add.nodes = "Add_0, \"quoted\"";
  add.bytes = 3 * kN * 4;
  KernelSpec scale;
  scale.name = "scale";
  scale.entry = o.scaleEntry;
  scale.grid = {(kN + 255) / 256, 1, 1};
  scale.block = {256, 1, 1};
  scale.args = {ArgSpec::bufferRef(1), ArgSpec::bufferRef(2, 256),
                ArgSpec::f32(kAlpha), ArgSpec::u64(kN)};
  scale.args.resize(size_t(o.scaleArgs));
  p.kernels = {add, scale};
  p.launchOrder = {0, 1};
  for (uint32_t r = 0; r < o.ranks; ++r) {
    p.rank = r;
    w.addPlan(p);
  }
  Bytes out;
  std::string error;
  EXPECT_TRUE(w.finish(out, error)) << error;
  return out;
}

kiln_engine *loadEngine(const Bytes &bytes) {
  kiln_engine *engine = nullptr;
  kiln_status s =
      kiln_engine_load_from_memory(bytes.data(), bytes.size(), &engine);
  EXPECT_EQ(s, nullptr) << message(s);
  kiln_status_free(s);
  return engine;
}

//===----------------------------------------------------------------------===//
// Statuses
//===----------------------------------------------------------------------===//

TEST(Status, NullIsOk) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "ok");
  kiln_status_free(nullptr);
}

TEST(Status, CodeNames) {
  const std::pair<kiln_code, const char *> names[] = {
      {KILN_OK, "KILN_OK"},
      {KILN_INVALID_ARGUMENT, "KILN_INVALID_ARGUMENT"},
      {KILN_NOT_FOUND, "KILN_NOT_FOUND"},
      {KILN_IO_ERROR, "KILN_IO_ERROR"},
      {KILN_INVALID_ENGINE, "KILN_INVALID_ENGINE"},
      {KILN_UNSUPPORTED_ENGINE, "KILN_UNSUPPORTED_ENGINE"},
      {KILN_NO_DEVICE, "KILN_NO_DEVICE"},
      {KILN_INCOMPATIBLE_DEVICE, "KILN_INCOMPATIBLE_DEVICE"},
      {KILN_DEVICE_ERROR, "KILN_DEVICE_ERROR"},
      {KILN_OUT_OF_MEMORY, "KILN_OUT_OF_MEMORY"},
      {KILN_UNIMPLEMENTED, "KILN_UNIMPLEMENTED"},
      {KILN_INTERNAL, "KILN_INTERNAL"},
  };
  for (const auto &[code, name] : names)
    EXPECT_STREQ(kiln_code_name(code), name);
  // 15 is within the enum's range but names no code.
  EXPECT_STREQ(kiln_code_name(kiln_code(15)), "KILN_UNKNOWN");
}

TEST(Status, DtypeNamesAndSizes) {
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_BF16), "bf16");
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_INVALID), "invalid");
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_F32), 4u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_F16), 2u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_I64), 8u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_BOOL), 1u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_F8E4M3), 1u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_INVALID), 0u);
}

TEST(Status, Versions) {
  EXPECT_STRNE(kiln_runtime_version(), "");
  EXPECT_EQ(kiln_runtime_engine_format_version(), 3u);
}

//===----------------------------------------------------------------------===//
// No GPU
//===----------------------------------------------------------------------===//

TEST(NoDriver, ContextCreateSaysNoDriver) {
  ScopedEnv env("KILN_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  kiln_engine *engine = loadEngine(makeEngine());
  ASSERT_NE(engine, nullptr);
  kiln_context *ctx = reinterpret_cast<kiln_context *>(1);
  kiln_status s = kiln_context_create(engine, 0, &ctx);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_NO_DEVICE);
  EXPECT_EQ(
      message(s).rfind("no CUDA driver found (/nonexistent/libcuda.so.1): "
                       "no GPU on this machine",
                       0),
      0u)
      << message(s);
  kiln_status_free(s);

  int count = 7;
  s = kiln_device_count(&count);
  EXPECT_EQ(count, 0);
  EXPECT_EQ(kiln_status_code(s), KILN_NO_DEVICE);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST(NoDriver, DefaultLibraryMessage) {
  // Only meaningful where no driver is installed (CI): with one, the default
  // library loads.
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle) {
    dlclose(handle);
    GTEST_SKIP() << "a CUDA driver (libcuda.so.1) is installed here";
  }
  ScopedEnv env("KILN_CUDA_DRIVER_LIBRARY", nullptr);
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  kiln_status s = kiln_context_create(engine, 0, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_NO_DEVICE);
  EXPECT_EQ(
      message(s).rfind(
          "no CUDA driver found (libcuda.so.1): no GPU on this machine", 0),
      0u)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST(NoDriver, NotADriverLibrary) {
  // A library that loads but is no CUDA driver (libc has none of the symbols).
  ScopedEnv env("KILN_CUDA_DRIVER_LIBRARY", "libc.so.6");
  int count = 0;
  kiln_status s = kiln_device_count(&count);
  EXPECT_EQ(kiln_status_code(s), KILN_NO_DEVICE);
  EXPECT_NE(message(s).find("the CUDA driver libc.so.6 is too old for Kiln: "
                            "it lacks cuInit"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
}

TEST(NoDriver, ManyThreadsShareOneEngine) {
  ScopedEnv env("KILN_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  kiln_engine *engine = loadEngine(makeEngine());
  std::atomic<int> noDevice{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        kiln_tensor_info info;
        kiln_status s = kiln_engine_input_info(engine, 0, &info);
        EXPECT_EQ(s, nullptr);
        EXPECT_EQ(info.size_bytes, kN * 4);
        kiln_context *ctx = nullptr;
        s = kiln_context_create(engine, 0, &ctx);
        if (kiln_status_code(s) == KILN_NO_DEVICE)
          ++noDevice;
        kiln_status_free(s);
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(noDevice.load(), 8 * 50);
  kiln_engine_free(engine);
}

TEST(Api, NullArguments) {
  kiln_engine *engine = nullptr;
  kiln_status s = kiln_engine_load(nullptr, &engine);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_EQ(message(s), "kiln_engine_load: path is NULL");
  kiln_status_free(s);
  s = kiln_engine_load("x", nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  kiln_status_free(s);
  s = kiln_engine_load_from_memory(nullptr, 10, &engine);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  kiln_status_free(s);
  s = kiln_engine_load_from_memory(nullptr, 0, &engine);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ENGINE);
  EXPECT_NE(message(s).find("the file is empty"), std::string::npos);
  kiln_status_free(s);

  kiln_context *ctx = nullptr;
  s = kiln_context_create(nullptr, 0, &ctx);
  EXPECT_EQ(message(s), "kiln_context_create: engine is NULL");
  kiln_status_free(s);
  for (kiln_status st :
       {kiln_run(nullptr, nullptr), kiln_bind(nullptr, "x", nullptr, 0),
        kiln_copy_input_from_host(nullptr, "x", nullptr, 0, nullptr),
        kiln_copy_output_to_host(nullptr, "y", nullptr, 0, nullptr),
        kiln_stream_synchronize(nullptr, nullptr),
        kiln_tensor_device_ptr(nullptr, "x", nullptr),
        kiln_time_run_batches(nullptr, nullptr, 1, 1, nullptr),
        kiln_device_count(nullptr)}) {
    EXPECT_EQ(kiln_status_code(st), KILN_INVALID_ARGUMENT) << message(st);
    EXPECT_NE(message(st).find("is NULL"), std::string::npos);
    kiln_status_free(st);
  }
  // Accessors tolerate NULL.
  EXPECT_EQ(kiln_engine_num_inputs(nullptr), 0u);
  EXPECT_STREQ(kiln_engine_arch(nullptr), "");
  EXPECT_EQ(kiln_context_uses_graph(nullptr), 0);
  kiln_engine_free(nullptr);
  kiln_context_free(nullptr);
}

TEST(Api, CorruptEngineFromMemoryNamesTheProblem) {
  Bytes bytes = makeEngine();
  bytes[bytes.size() - 1] ^= 1; // in the weights, the last section
  kiln_engine *engine = reinterpret_cast<kiln_engine *>(1);
  kiln_status s =
      kiln_engine_load_from_memory(bytes.data(), bytes.size(), &engine);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ENGINE);
  EXPECT_NE(message(s).find("engine '<memory>': section"), std::string::npos)
      << message(s);
  EXPECT_NE(message(s).find("(weights): checksum mismatch"), std::string::npos)
      << message(s);
  EXPECT_NE(message(s).find("must be rebuilt"), std::string::npos);
  kiln_status_free(s);
}

//===----------------------------------------------------------------------===//
// C++ wrapper
//===----------------------------------------------------------------------===//

TEST(Api, LaunchInfoDescribesTheLaunchOrder) {
  kiln_engine *engine = loadEngine(makeEngine());
  ASSERT_EQ(kiln_engine_num_launches(engine), 2u);
  kiln_launch_info info;
  kiln_status s = kiln_engine_launch_info(engine, 0, &info);
  ASSERT_EQ(s, nullptr) << message(s);
  EXPECT_STREQ(info.name, "add");
  EXPECT_STREQ(info.entry, "kiln_test_add");
  EXPECT_STREQ(info.nodes, "Add_0, \"quoted\"");
  EXPECT_EQ(info.bytes, 3u * kN * 4);
  EXPECT_EQ(info.flops, 0u);
  EXPECT_EQ(info.grid[0], (kN + 127) / 128);
  EXPECT_EQ(info.block[0], 128u);
  s = kiln_engine_launch_info(engine, 1, &info);
  ASSERT_EQ(s, nullptr) << message(s);
  EXPECT_STREQ(info.name, "scale");
  EXPECT_STREQ(info.nodes, ""); // not recorded: empty, never NULL
  s = kiln_engine_launch_info(engine, 2, &info);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(message(s).find("step 2 is out of range (the plan has 2"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_engine_launch_info(engine, 0, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  kiln_status_free(s);
  EXPECT_EQ(kiln_engine_num_launches(nullptr), 0u);
  kiln_engine_free(engine);
}

TEST(CppWrapper, StatusOwnsAndMoves) {
  kiln::Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), KILN_OK);
  EXPECT_STREQ(ok.message(), "ok");

  kiln::Engine engine;
  kiln::Status bad = kiln::Engine::load("/nonexistent.engine", engine);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.code(), KILN_NOT_FOUND);
  EXPECT_STREQ(bad.codeName(), "KILN_NOT_FOUND");
  EXPECT_FALSE(engine.valid());
  std::string text = bad.message();
  kiln::Status moved = std::move(bad);
  EXPECT_TRUE(bad.ok()); // NOLINT: moved-from is OK by contract
  EXPECT_EQ(moved.message(), text);
  kiln_status raw = moved.release();
  EXPECT_TRUE(moved.ok());
  EXPECT_EQ(kiln_status_code(raw), KILN_NOT_FOUND);
  kiln_status_free(raw);
}

TEST(CppWrapper, EngineIntrospection) {
  Bytes bytes = makeEngine();
  kiln::Engine engine;
  kiln::Status s =
      kiln::Engine::loadFromMemory(bytes.data(), bytes.size(), engine);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(engine.arch(), "sm_90");
  EXPECT_EQ(engine.compilerVersion(), "kiln-test");
  EXPECT_EQ(engine.formatVersion(), 1u);
  EXPECT_EQ(engine.numRanks(), 1u);
  std::vector<kiln::TensorInfo> inputs = engine.inputs();
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0].name, "x");
  EXPECT_EQ(inputs[0].dtype, KILN_DTYPE_F32);
  EXPECT_EQ(inputs[0].dims, std::vector<int64_t>{kN});
  EXPECT_EQ(inputs[0].sizeBytes, kN * 4);
  kiln::TensorInfo info;
  EXPECT_EQ(engine.output(3, info).code(), KILN_INVALID_ARGUMENT);

  kiln::Engine other = std::move(engine);
  EXPECT_FALSE(engine.valid());
  EXPECT_TRUE(other.valid());
  EXPECT_EQ(other.outputs()[0].name, "y");
}

TEST(CppWrapper, ContextWithoutDriver) {
  ScopedEnv env("KILN_CUDA_DRIVER_LIBRARY", "/nonexistent/libcuda.so.1");
  Bytes bytes = makeEngine();
  kiln::Engine engine;
  ASSERT_TRUE(
      kiln::Engine::loadFromMemory(bytes.data(), bytes.size(), engine).ok());
  kiln::Context ctx;
  kiln::Status s = kiln::Context::create(engine, 0, ctx);
  EXPECT_EQ(s.code(), KILN_NO_DEVICE);
  EXPECT_NE(std::string(s.message()).find("no CUDA driver found"),
            std::string::npos);
  EXPECT_FALSE(ctx.valid());
  EXPECT_EQ(ctx.run().code(), KILN_INVALID_ARGUMENT); // no context
  int count = -1;
  EXPECT_EQ(kiln::deviceCount(count).code(), KILN_NO_DEVICE);
  EXPECT_EQ(count, 0);
}

//===----------------------------------------------------------------------===//
// GPU (skipped without one)
//===----------------------------------------------------------------------===//

class Gpu : public ::testing::Test {
protected:
  void SetUp() override {
    int count = 0;
    kiln_status s = kiln_device_count(&count);
    std::string why = s ? message(s) : "no CUDA GPU";
    kiln_status_free(s);
    if (s || count == 0)
      GTEST_SKIP() << "needs a GPU: " << why;
  }

  static std::vector<float> input(float base) {
    std::vector<float> x(kN);
    for (uint32_t i = 0; i < kN; ++i)
      x[i] = base + float(i % 17);
    return x;
  }

  static void expectOutput(const std::vector<float> &x,
                           const std::vector<float> &y) {
    ASSERT_EQ(y.size(), x.size());
    for (uint32_t i = 0; i < kN; ++i)
      ASSERT_EQ(y[i], kAlpha * (x[i] + weight(i))) << "element " << i;
  }

  /// Copies x in, runs `runs` times, copies y out and checks it.
  static void runAndCheck(kiln_context *ctx, float base, int runs = 1) {
    std::vector<float> x = input(base), y(kN, -1.0f);
    kiln_status s =
        kiln_copy_input_from_host(ctx, "x", x.data(), kN * 4, nullptr);
    ASSERT_EQ(s, nullptr) << message(s);
    for (int r = 0; r < runs; ++r) {
      s = kiln_run(ctx, nullptr);
      ASSERT_EQ(s, nullptr) << message(s);
    }
    s = kiln_copy_output_to_host(ctx, "y", y.data(), kN * 4, nullptr);
    ASSERT_EQ(s, nullptr) << message(s);
    expectOutput(x, y);
  }

  static kiln_status create(kiln_engine *engine, kiln_context **ctx) {
    return kiln_context_create(engine, 0, ctx);
  }
};

TEST_F(Gpu, RunsStaticPlanAsGraph) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  ASSERT_EQ(s, nullptr) << message(s);
  runAndCheck(ctx, 1.0f);
  EXPECT_EQ(kiln_context_uses_graph(ctx), 1);
  // The replayed graph reads the new input.
  runAndCheck(ctx, 100.0f, 3);
  EXPECT_EQ(kiln_context_uses_graph(ctx), 1);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, TimesRunsAndProfilesLaunches) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  ASSERT_EQ(s, nullptr) << message(s);
  runAndCheck(ctx, 2.0f);
  std::vector<float> times(7, -1.0f);
  s = kiln_time_runs(ctx, nullptr, times.size(), times.data());
  ASSERT_EQ(s, nullptr) << message(s);
  for (float t : times) {
    EXPECT_GT(t, 0.0f);
    EXPECT_LT(t, 1000.0f);
  }
  // Samples of 4 back-to-back runs, per run; a batch of 0 is refused.
  std::vector<float> batched(3, -1.0f);
  s = kiln_time_run_batches(ctx, nullptr, batched.size(), 4, batched.data());
  ASSERT_EQ(s, nullptr) << message(s);
  for (float t : batched) {
    EXPECT_GT(t, 0.0f);
    EXPECT_LT(t, 1000.0f);
  }
  s = kiln_time_run_batches(ctx, nullptr, batched.size(), 0, batched.data());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(s)).find("batch"), std::string::npos)
      << message(s);
  kiln_status_free(s);
  std::vector<float> ms(2, -1.0f);
  s = kiln_profile_launches(ctx, nullptr, 5, ms.data(), ms.size());
  ASSERT_EQ(s, nullptr) << message(s);
  EXPECT_GT(ms[0], 0.0f);
  EXPECT_GT(ms[1], 0.0f);
  // Kernel-by-kernel launches compute the same result as the graph.
  std::vector<float> x = input(2.0f), y(kN);
  s = kiln_copy_output_to_host(ctx, "y", y.data(), kN * 4, nullptr);
  ASSERT_EQ(s, nullptr) << message(s);
  expectOutput(x, y);
  s = kiln_profile_launches(ctx, nullptr, 1, ms.data(), 1);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(message(s).find("num_launches is 1 but the plan has 2"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, RunsDynamicPlanWithoutGraph) {
  EngineOptions o;
  o.isStatic = false;
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  ASSERT_EQ(s, nullptr) << message(s);
  runAndCheck(ctx, 3.0f, 2);
  EXPECT_EQ(kiln_context_uses_graph(ctx), 0);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, GraphsCanBeSwitchedOff) {
  ScopedEnv env("KILN_CUDA_GRAPHS", "0");
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  ASSERT_EQ(s, nullptr) << message(s);
  runAndCheck(ctx, 4.0f);
  EXPECT_EQ(kiln_context_uses_graph(ctx), 0);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, BindUsesCallerMemoryAndRecaptures) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *a = nullptr, *b = nullptr;
  ASSERT_EQ(create(engine, &a), nullptr);
  ASSERT_EQ(create(engine, &b), nullptr);
  runAndCheck(a, 1.0f); // captures a's graph with its default buffers

  // b's default buffers serve as "caller memory" for a.
  void *bx = nullptr, *by = nullptr;
  ASSERT_EQ(kiln_tensor_device_ptr(b, "x", &bx), nullptr);
  ASSERT_EQ(kiln_tensor_device_ptr(b, "y", &by), nullptr);
  ASSERT_EQ(kiln_bind(a, "x", bx, kN * 4), nullptr);
  ASSERT_EQ(kiln_bind(a, "y", by, kN * 4), nullptr);
  void *ax = nullptr;
  ASSERT_EQ(kiln_tensor_device_ptr(a, "x", &ax), nullptr);
  EXPECT_EQ(ax, bx);

  std::vector<float> x = input(7.0f), y(kN, 0.0f);
  ASSERT_EQ(kiln_copy_input_from_host(b, "x", x.data(), kN * 4, nullptr),
            nullptr);
  kiln_status s = kiln_run(a, nullptr);
  ASSERT_EQ(s, nullptr) << message(s);
  EXPECT_EQ(kiln_context_uses_graph(a), 1);
  ASSERT_EQ(kiln_copy_output_to_host(b, "y", y.data(), kN * 4, nullptr),
            nullptr);
  expectOutput(x, y);

  // Unbinding returns to a's own buffers.
  ASSERT_EQ(kiln_bind(a, "x", nullptr, 0), nullptr);
  ASSERT_EQ(kiln_bind(a, "y", nullptr, 0), nullptr);
  runAndCheck(a, 9.0f);

  // Bad bindings.
  std::vector<float> host(kN);
  s = kiln_bind(a, "x", host.data(), kN * 4);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(message(s).find("is not CUDA device memory"), std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_bind(a, "x", static_cast<char *>(bx) + 4, kN * 4);
  EXPECT_NE(message(s).find("is not 16-byte aligned"), std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_bind(a, "x", bx, kN * 4 - 1);
  EXPECT_NE(message(s).find("input 'x' needs 4000 bytes but 3999 were given"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_bind(a, "z", bx, kN * 4);
  EXPECT_NE(message(s).find("has no input or output named 'z'; it has 'x' "
                            "(inputs); 'y' (outputs)"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);

  kiln_context_free(a);
  kiln_context_free(b);
  kiln_engine_free(engine);
}

TEST_F(Gpu, CopyChecksSizesAndDirections) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  ASSERT_EQ(create(engine, &ctx), nullptr);
  std::vector<float> x(kN);
  kiln_status s = kiln_copy_input_from_host(ctx, "x", x.data(), 8, nullptr);
  EXPECT_NE(message(s).find("input 'x' is 4000 bytes but 8 were given"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_copy_input_from_host(ctx, "y", x.data(), kN * 4, nullptr);
  EXPECT_NE(message(s).find("'y' is an output, not an input"),
            std::string::npos);
  kiln_status_free(s);
  s = kiln_copy_output_to_host(ctx, "x", x.data(), kN * 4, nullptr);
  EXPECT_NE(message(s).find("'x' is an input, not an output"),
            std::string::npos);
  kiln_status_free(s);
  EXPECT_EQ(kiln_stream_synchronize(ctx, nullptr), nullptr);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, ContextOutlivesEngine) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  ASSERT_EQ(create(engine, &ctx), nullptr);
  kiln_engine_free(engine);
  runAndCheck(ctx, 2.0f);
  kiln_context_free(ctx);
}

TEST_F(Gpu, ThreadsShareOneEngine) {
  kiln_engine *engine = loadEngine(makeEngine());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([engine, t] {
      kiln_context *ctx = nullptr;
      kiln_status s = kiln_context_create(engine, 0, &ctx);
      ASSERT_EQ(s, nullptr) << message(s);
      for (int i = 0; i < 5; ++i)
        runAndCheck(ctx, float(10 * t + i));
      kiln_context_free(ctx);
    });
  for (std::thread &t : threads)
    t.join();
  kiln_engine_free(engine);
}

TEST_F(Gpu, UnloadableCubinFallsBackToPtx) {
  EngineOptions o;
  o.fakeCubin = true;
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  ASSERT_EQ(s, nullptr) << message(s);
  runAndCheck(ctx, 5.0f);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, UnloadableCubinWithoutPtxFails) {
  EngineOptions o;
  o.fakeCubin = true;
  o.ptx = false;
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_DEVICE_ERROR) << message(s);
  EXPECT_NE(message(s).find("image 0 'test-kernels'"), std::string::npos)
      << message(s);
  EXPECT_NE(message(s).find("cubin (section 0 (cubin)): cuModuleLoadDataEx "
                            "failed: CUDA_ERROR_"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST_F(Gpu, NewerArchIsIncompatible) {
  EngineOptions o;
  o.arch = "sm_120a"; // no GPU here is that, and 'a' code runs nowhere else
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_INCOMPATIBLE_DEVICE) << message(s);
  EXPECT_NE(message(s).find("the engine was built for sm_120a, which device 0"),
            std::string::npos)
      << message(s);
  EXPECT_NE(
      message(s).find("rebuild the engine for this GPU (kilnc --arch=sm_"),
      std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST_F(Gpu, MissingEntrySymbolNamesTheKernel) {
  EngineOptions o;
  o.scaleEntry = "kiln_test_missing";
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_DEVICE_ERROR) << message(s);
  EXPECT_NE(message(s).find("kernel 1 'scale' (entry 'kiln_test_missing') in "
                            "image 0: cuModuleGetFunction failed: "
                            "CUDA_ERROR_NOT_FOUND"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST_F(Gpu, ArgumentCountMismatchIsCaught) {
  EngineOptions o;
  o.scaleArgs = 3;
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  // Drivers before CUDA 12.4 cannot report parameters; then it goes through.
  if (!s) {
    kiln_context_free(ctx);
    kiln_engine_free(engine);
    GTEST_SKIP() << "this driver has no cuFuncGetParamInfo";
  }
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ENGINE) << message(s);
  EXPECT_NE(message(s).find("kernel 1 'scale' (entry 'kiln_test_scale'): the "
                            "plan passes 3 arguments but the kernel takes 4"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST_F(Gpu, OutOfMemoryReportsBytes) {
  EngineOptions o;
  o.arenaSize = 1ull << 47; // 128 TiB
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_OUT_OF_MEMORY) << message(s);
  EXPECT_NE(message(s).find("allocating the activation arena on device 0"),
            std::string::npos)
      << message(s);
  EXPECT_NE(message(s).find("cuMemAlloc of 140737488355328 bytes failed: "
                            "CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST_F(Gpu, BadDeviceOrdinal) {
  kiln_engine *engine = loadEngine(makeEngine());
  kiln_context *ctx = nullptr;
  kiln_status s = kiln_context_create(engine, 99, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_NO_DEVICE);
  EXPECT_NE(message(s).find("CUDA device 99 does not exist (this machine has"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  // A failed device does not poison the good one.
  s = create(engine, &ctx);
  EXPECT_EQ(s, nullptr) << message(s);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, ShardedEnginesAreNotRunYet) {
  EngineOptions o;
  o.ranks = 2;
  kiln_engine *engine = loadEngine(makeEngine(o));
  kiln_context *ctx = nullptr;
  kiln_status s = kiln_context_create_for_rank(engine, 0, 1, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_UNIMPLEMENTED);
  EXPECT_NE(message(s).find("sharded over 2 tensor-parallel ranks"),
            std::string::npos)
      << message(s);
  kiln_status_free(s);
  s = kiln_context_create_for_rank(engine, 0, 2, &ctx);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

// A plan of one cuBLASLt step (fb::LibraryCall, format 2): y[4, 8] =
// relu(x[4, 16] w[16, 8] + b[8]) in f32, small integers so the sums are
// exact, as cuBLASLt's column-major D^T = w^T x^T. Skipped where cuBLASLt
// does not load.
TEST_F(Gpu, CublasLtStepRunsInTheGraphAndKernelByKernel) {
  constexpr int M = 4, K = 16, N = 8;
  ManifestSpec m;
  m.compilerVersion = "kiln-test";
  m.targetArch = "sm_90";
  m.inputs = {{"x", KILN_DTYPE_F32, {M, K}}};
  m.outputs = {{"y", KILN_DTYPE_F32, {M, N}}};
  EngineWriter w(m);
  std::vector<float> wv(K * N), bv(N);
  for (int i = 0; i < K * N; ++i)
    wv[i] = float(i % 5) - 2.0f;
  for (int j = 0; j < N; ++j)
    bv[j] = float(j) - 3.0f;
  Bytes weights((K * N + N) * 4);
  std::memcpy(weights.data(), wv.data(), K * N * 4);
  std::memcpy(weights.data() + K * N * 4, bv.data(), N * 4);
  const uint32_t ws = w.addWeights(weights);
  PlanSpec p;
  p.buffers = {BufferSpec::input(0, M * K * 4, "x"),
               BufferSpec::output(0, M * N * 4, "y"),
               BufferSpec::weights(ws, 0, K * N * 4, "w"),
               BufferSpec::weights(ws, K * N * 4, N * 4, "b")};
  KernelSpec k;
  k.name = "gemm";
  k.entry = "cublasLtMatmul";
  k.grid = {1, 1, 1};
  k.block = {1, 1, 1};
  k.args = {ArgSpec::bufferRef(2), ArgSpec::bufferRef(0), ArgSpec::bufferRef(1),
            ArgSpec::bufferRef(3)};
  k.hasLibrary = true;
  LibraryCallSpec &l = k.library;
  l.dtype = KILN_DTYPE_F32;
  l.m = N;
  l.n = M;
  l.k = K;
  l.lda = N;
  l.ldb = K;
  l.ldc = N;
  l.a = 0;
  l.b = 1;
  l.d = 2;
  l.bias = 3;
  l.epilogue = MatmulEpilogue::ReluBias;
  l.workspaceBytes = 1 << 20;
  l.alignment = 16;
  p.kernels = {k};
  p.launchOrder = {0};
  w.addPlan(p);
  Bytes bytes;
  std::string error;
  ASSERT_TRUE(w.finish(bytes, error)) << error;
  kiln_engine *engine = loadEngine(bytes);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(kiln_engine_format_version(engine), 2u);
  kiln_context *ctx = nullptr;
  kiln_status s = create(engine, &ctx);
  if (kiln_status_code(s) == KILN_UNIMPLEMENTED &&
      message(s).find("calls cuBLASLt") != std::string::npos) {
    std::string why = message(s);
    kiln_status_free(s);
    kiln_engine_free(engine);
    GTEST_SKIP() << why;
  }
  ASSERT_EQ(s, nullptr) << message(s);
  auto check = [&](float base, bool kernelByKernel) {
    std::vector<float> x(M * K), y(M * N, -7.0f);
    for (int i = 0; i < M * K; ++i)
      x[i] = base + float(i % 7) - 3.0f;
    kiln_status st =
        kiln_copy_input_from_host(ctx, "x", x.data(), x.size() * 4, nullptr);
    ASSERT_EQ(st, nullptr) << message(st);
    if (kernelByKernel) {
      float ms = 0;
      st = kiln_profile_launches(ctx, nullptr, 2, &ms, 1);
    } else {
      st = kiln_run(ctx, nullptr);
    }
    ASSERT_EQ(st, nullptr) << message(st);
    st = kiln_copy_output_to_host(ctx, "y", y.data(), y.size() * 4, nullptr);
    ASSERT_EQ(st, nullptr) << message(st);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        float ref = bv[j];
        for (int q = 0; q < K; ++q)
          ref += x[i * K + q] * wv[q * N + j];
        ASSERT_EQ(y[i * N + j], ref > 0 ? ref : 0.0f)
            << "y[" << i << ", " << j << "]";
      }
  };
  check(1.0f, false);
  EXPECT_EQ(kiln_context_uses_graph(ctx), 1);
  check(-2.0f, false); // the replayed graph reads the new input
  check(5.0f, true);
  kiln_context_free(ctx);
  kiln_engine_free(engine);
}

TEST_F(Gpu, CppWrapperRuns) {
  Bytes bytes = makeEngine();
  kiln::Engine engine;
  ASSERT_TRUE(
      kiln::Engine::loadFromMemory(bytes.data(), bytes.size(), engine).ok());
  kiln::Context ctx;
  kiln::Status s = kiln::Context::create(engine, 0, ctx);
  ASSERT_TRUE(s.ok()) << s.message();
  std::vector<float> x = input(11.0f), y(kN);
  ASSERT_TRUE(ctx.copyInputFromHost("x", x.data(), kN * 4).ok());
  ASSERT_TRUE(ctx.run().ok());
  ASSERT_TRUE(ctx.copyOutputToHost("y", y.data(), kN * 4).ok());
  expectOutput(x, y);
  EXPECT_TRUE(ctx.usedGraph());
}

} // namespace
