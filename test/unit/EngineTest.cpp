// Engine format v1: writer/reader round trip and rejection of corrupt engines.
#include "kiln/engine_format.h"
#include "kiln/engine_writer.h"
#include "kiln/kiln.h"

#include "kiln/internal/engine_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kiln::engine;
using Bytes = std::vector<uint8_t>;

namespace {

//===----------------------------------------------------------------------===//
// A small engine that uses every field of the format
//===----------------------------------------------------------------------===//

struct Fixture {
  ManifestSpec manifest;
  PlanSpec plan;
  Bytes cubin, weights1, weights2, extra;
  std::string ptx;
  uint32_t cubinSection, ptxSection, weights1Section, weights2Section,
      extraSection;
};

Bytes pattern(size_t n, uint8_t seed) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = uint8_t(seed + i * 7);
  return b;
}

/// Describes the engine; `build` adds the sections and the plan.
Fixture makeFixture() {
  Fixture f;
  f.manifest.compilerVersion = "kiln 0.1.0-test";
  f.manifest.targetArch = "sm_90";
  f.manifest.inputs = {{"x", KILN_DTYPE_F32, {2, 8}},
                       {"mask", KILN_DTYPE_BOOL, {8}}};
  f.manifest.outputs = {{"y", KILN_DTYPE_F32, {2, 8}},
                        {"indices", KILN_DTYPE_I64, {3}},
                        {"scalar", KILN_DTYPE_BF16, {}}};
  f.manifest.provenance.modelSha256 = std::string(64, 'a');
  f.manifest.provenance.compileFlags = "kilnc -O2 --arch=sm_90 model.onnx";
  f.manifest.provenance.tuningCacheHash = "0123456789abcdef";

  f.cubin = pattern(100, 1);
  std::memcpy(f.cubin.data(),
              "\x7f"
              "ELF",
              4);
  f.ptx = ".version 7.0\n.target sm_70\n.address_size 64\n";
  f.weights1 = pattern(1000, 3); // not a multiple of 256: padding follows
  f.weights2 = pattern(300, 5);
  f.extra = pattern(77, 9);

  PlanSpec &p = f.plan;
  p.rank = 0;
  p.arenaSize = 4096;
  p.isStatic = true;
  // Section indices are assigned in add order; build() asserts them.
  f.cubinSection = 0;
  f.ptxSection = 1;
  f.weights1Section = 2;
  f.weights2Section = 3;
  f.extraSection = 4;
  p.buffers = {BufferSpec::input(0, 64, "x"),
               BufferSpec::input(1, 8, "mask"),
               BufferSpec::output(0, 64, "y"),
               BufferSpec::output(1, 24, "indices"),
               BufferSpec::output(2, 2, "scalar"),
               BufferSpec::arena(256, 512, "tmp"),
               BufferSpec::weights(f.weights1Section, 0, 512, "w1"),
               BufferSpec::weights(f.weights2Section, 16, 100, "w2")};
  p.images = {{int32_t(f.cubinSection), int32_t(f.ptxSection), "fused"},
              {-1, int32_t(f.ptxSection), "ptx-only"}};
  KernelSpec k0;
  k0.name = "fused_add";
  k0.image = 0;
  k0.entry = "kiln_fused_add";
  k0.grid = {4, 1, 1};
  k0.block = {128, 1, 1};
  k0.args = {ArgSpec::bufferRef(0), ArgSpec::bufferRef(6),
             ArgSpec::bufferRef(5, 16), ArgSpec::u32(16)};
  KernelSpec k1;
  k1.name = "matmul";
  k1.image = 1;
  k1.entry = "kiln_matmul";
  k1.grid = {2, 3, 4};
  k1.block = {16, 16, 2};
  k1.dynamicSharedBytes = 65536;
  k1.args = {ArgSpec::bufferRef(2),
             ArgSpec::bufferRef(7, 100),
             ArgSpec::f32(0.5f),
             ArgSpec::i64(-3),
             ArgSpec::bits(ScalarType::F16, 0x3c00),
             ArgSpec::i32(-1),
             ArgSpec::f64(2.25),
             ArgSpec::bits(ScalarType::I8, 0x80),
             ArgSpec::tensorMap(0)};
  // A TMA descriptor over all 512 bytes of w1: 16 x 16 f16 with rows 32
  // bytes apart, copied in 16 x 16 boxes with the 32-byte swizzle.
  TensorMapSpec map;
  map.buffer = 6;
  map.dtype = KILN_DTYPE_F16;
  map.dims = {16, 16};
  map.strides = {32};
  map.box = {16, 16};
  map.swizzle = 32;
  k1.tensorMaps = {map};
  p.kernels = {k0, k1};
  p.launchOrder = {0, 1, 0};
  return f;
}

/// Adds kernel 2: a cuBLASLt f32 matmul, D (y, 8 x 2 column-major) = A
/// (w1, 8 x 8) B (x, 8 x 2) plus a bias of 8 (w2), launched last.
void addLibraryCall(Fixture &f) {
  KernelSpec k;
  k.name = "gemm";
  k.entry = "cublasLtMatmul";
  k.grid = {1, 1, 1};
  k.block = {1, 1, 1};
  k.args = {ArgSpec::bufferRef(6), ArgSpec::bufferRef(0), ArgSpec::bufferRef(2),
            ArgSpec::bufferRef(7)};
  k.hasLibrary = true;
  LibraryCallSpec &l = k.library;
  l.dtype = KILN_DTYPE_F32;
  l.m = 8;
  l.n = 2;
  l.k = 8;
  l.lda = 8;
  l.ldb = 8;
  l.ldc = 8;
  l.a = 0;
  l.b = 1;
  l.d = 2;
  l.bias = 3;
  l.epilogue = MatmulEpilogue::Bias;
  l.algo = 2;
  l.workspaceBytes = 1 << 20;
  l.alignment = 16;
  l.libraryVersion = 130100;
  f.plan.kernels.push_back(k);
  f.plan.launchOrder.push_back(2);
}

EngineWriter build(const Fixture &f) {
  EngineWriter w(f.manifest);
  EXPECT_EQ(w.addCubin(f.cubin), f.cubinSection);
  EXPECT_EQ(w.addPtx(f.ptx), f.ptxSection);
  EXPECT_EQ(w.addWeights(f.weights1), f.weights1Section);
  EXPECT_EQ(w.addWeights(f.weights2), f.weights2Section);
  EXPECT_EQ(w.addExtra("tuning-log", f.extra), f.extraSection);
  w.addPlan(f.plan);
  return w;
}

Bytes write(const Fixture &f, bool verify = true) {
  EngineWriter w = build(f);
  w.setVerifyContents(verify);
  Bytes out;
  std::string error;
  EXPECT_TRUE(w.finish(out, error)) << error;
  return out;
}

/// A verification result: the status's code and message, and the status freed.
struct Result {
  kiln_code code;
  std::string message;
};

Result verify(const Bytes &bytes, size_t size) {
  kiln::rt::EngineView view;
  kiln_status s =
      kiln::rt::verifyEngineImage(bytes.data(), size, "test.engine", view);
  Result r{kiln_status_code(s), kiln_status_message(s)};
  kiln_status_free(s);
  return r;
}
Result verify(const Bytes &bytes) { return verify(bytes, bytes.size()); }

/// Asserts a rejection as an invalid engine naming `what` and asking for a
/// rebuild.
void expectInvalid(const Bytes &bytes, const std::string &what,
                   kiln_code code = KILN_INVALID_ENGINE) {
  Result r = verify(bytes);
  EXPECT_EQ(r.code, code) << r.message;
  EXPECT_NE(r.message.find(what), std::string::npos)
      << "message: " << r.message << "\nexpected to contain: " << what;
  EXPECT_NE(r.message.find("rebuil"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("engine 'test.engine'"), std::string::npos)
      << r.message;
}

kiln_engine_header header(const Bytes &b) {
  kiln_engine_header h;
  kiln_engine_decode_header(b.data(), &h);
  return h;
}

kiln_section_entry entry(const Bytes &b, uint32_t i) {
  kiln_section_entry e;
  kiln_engine_header h = header(b);
  kiln_engine_decode_section_entry(b.data() + h.section_table_offset +
                                       i * KILN_ENGINE_SECTION_ENTRY_SIZE,
                                   &e);
  return e;
}

void setEntry(Bytes &b, uint32_t i, const kiln_section_entry &e) {
  kiln_engine_header h = header(b);
  kiln_engine_encode_section_entry(&e, b.data() + h.section_table_offset +
                                           i * KILN_ENGINE_SECTION_ENTRY_SIZE);
}

/// Recomputes the header checksum (after an edit of the header).
void fixHeader(Bytes &b) {
  kiln_engine_header h = header(b);
  h.header_checksum = kiln_engine_header_checksum(b.data());
  kiln_engine_encode_header(&h, b.data());
}

/// Recomputes every checksum, so an edit reaches the checks behind them.
void fixChecksums(Bytes &b) {
  kiln_engine_header h = header(b);
  for (uint32_t i = 0; i < h.section_count; ++i) {
    kiln_section_entry e = entry(b, i);
    if (e.offset <= b.size() && e.size <= b.size() - e.offset) {
      e.checksum = kiln_engine_checksum(b.data() + e.offset, e.size);
      setEntry(b, i, e);
    }
  }
  h.section_table_checksum = kiln_engine_checksum(
      b.data() + h.section_table_offset,
      uint64_t(h.section_count) * KILN_ENGINE_SECTION_ENTRY_SIZE);
  kiln_engine_encode_header(&h, b.data());
  fixHeader(b);
}

void put32(Bytes &b, size_t offset, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[offset + i] = uint8_t(v >> (8 * i));
}
void put64(Bytes &b, size_t offset, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[offset + i] = uint8_t(v >> (8 * i));
}

uint32_t findSection(const Bytes &b, uint32_t kind) {
  kiln_engine_header h = header(b);
  for (uint32_t i = 0; i < h.section_count; ++i)
    if (entry(b, i).kind == kind)
      return i;
  ADD_FAILURE() << "no section of kind " << kind;
  return 0;
}

//===----------------------------------------------------------------------===//
// Checksum
//===----------------------------------------------------------------------===//

TEST(EngineChecksum, MatchesXXH64Reference) {
  // Reference values of XXH64 with seed 0 (checked with python's xxhash).
  EXPECT_EQ(kiln_engine_checksum("", 0), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(kiln_engine_checksum("a", 1), 0xD24EC4F1A98C6E5Bull);
  EXPECT_EQ(kiln_engine_checksum("abc", 3), 0x44BC2CF5AD770999ull);
  const char *long1 = "Nobody inspects the spammish repetition";
  EXPECT_EQ(kiln_engine_checksum(long1, std::strlen(long1)),
            0xFBCEA83C8A378BF1ull);
  EXPECT_EQ(kiln_engine_checksum(nullptr, 0), 0xEF46DB3751D8E999ull);
  // Lengths that reach every tail path (32-byte stripes, 8, 4, 1), checked
  // against python's xxhash.xxh64.
  Bytes b200 = pattern(200, 0), b100 = pattern(100, 3), b33 = pattern(33, 1);
  EXPECT_EQ(kiln_engine_checksum(b200.data(), 200), 0x6DAAA52505587DD5ull);
  EXPECT_EQ(kiln_engine_checksum(b100.data(), 100), 0xA61F8D4C170FE531ull);
  EXPECT_EQ(kiln_engine_checksum(b33.data(), 33), 0xDC50CDC37BB9C183ull);
}

TEST(EngineChecksum, EveryByteAndLengthMatters) {
  Bytes b = pattern(200, 0);
  uint64_t base = kiln_engine_checksum(b.data(), b.size());
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] ^= 1;
    EXPECT_NE(kiln_engine_checksum(b.data(), b.size()), base) << i;
    b[i] ^= 1;
  }
  EXPECT_NE(kiln_engine_checksum(b.data(), b.size() - 1), base);
}

//===----------------------------------------------------------------------===//
// Round trip
//===----------------------------------------------------------------------===//

TEST(EngineFormat, HeaderAndSectionTableRoundTrip) {
  Fixture f = makeFixture();
  Bytes bytes = write(f);
  kiln::rt::EngineView view;
  kiln_status s = kiln::rt::verifyEngineImage(bytes.data(), bytes.size(),
                                              "test.engine", view);
  ASSERT_EQ(s, nullptr) << kiln_status_message(s);

  const kiln_engine_header &h = view.header;
  EXPECT_EQ(std::memcmp(h.magic, "KILNENG\0", 8), 0);
  EXPECT_EQ(h.format_version, 1u); // no library calls: the oldest format
  EXPECT_EQ(h.header_size, KILN_ENGINE_HEADER_SIZE);
  EXPECT_EQ(kiln::rt::fixedString(h.compiler_version, 32), "kiln 0.1.0-test");
  EXPECT_EQ(kiln::rt::fixedString(h.target_arch, 16), "sm_90");
  EXPECT_EQ(h.section_count, 7u); // 5 added + manifest + plan
  EXPECT_EQ(h.flags, 0u);
  EXPECT_EQ(h.section_table_offset, KILN_ENGINE_HEADER_SIZE);
  EXPECT_EQ(h.file_size, bytes.size());
  EXPECT_EQ(h.header_checksum, kiln_engine_header_checksum(bytes.data()));

  ASSERT_EQ(view.sections.size(), 7u);
  const uint32_t kinds[] = {
      KILN_SECTION_KIND_CUBIN,   KILN_SECTION_KIND_PTX,
      KILN_SECTION_KIND_WEIGHTS, KILN_SECTION_KIND_WEIGHTS,
      KILN_SECTION_KIND_EXTRA,   KILN_SECTION_KIND_MANIFEST,
      KILN_SECTION_KIND_PLAN};
  for (uint32_t i = 0; i < 7; ++i) {
    const kiln::rt::Section &sec = view.sections[i];
    EXPECT_EQ(sec.entry.kind, kinds[i]) << i;
    EXPECT_EQ(sec.entry.offset % sec.entry.alignment, 0u) << i;
    EXPECT_EQ(sec.entry.checksum,
              kiln_engine_checksum(sec.data, sec.entry.size));
    EXPECT_EQ(sec.entry.flags, 0u);
    EXPECT_EQ(sec.entry.reserved, 0u);
  }
  auto bytesOf = [&](uint32_t i) {
    const kiln::rt::Section &sec = view.sections[i];
    return Bytes(sec.data, sec.data + sec.entry.size);
  };
  EXPECT_EQ(bytesOf(f.cubinSection), f.cubin);
  Bytes ptx(f.ptx.begin(), f.ptx.end());
  ptx.push_back(0);
  EXPECT_EQ(bytesOf(f.ptxSection), ptx);
  EXPECT_EQ(bytesOf(f.weights1Section), f.weights1);
  EXPECT_EQ(bytesOf(f.weights2Section), f.weights2);
  EXPECT_EQ(bytesOf(f.extraSection), f.extra);
  for (uint32_t w : {f.weights1Section, f.weights2Section}) {
    EXPECT_EQ(view.sections[w].entry.alignment, KILN_ENGINE_WEIGHT_ALIGNMENT);
    EXPECT_EQ(view.sections[w].entry.offset % 256, 0u);
  }
  EXPECT_EQ(view.manifestSection, 5u);
  ASSERT_EQ(view.planSections.size(), 1u);
  EXPECT_EQ(view.planSections[0], 6u);
}

TEST(EngineFormat, ManifestRoundTrip) {
  Fixture f = makeFixture();
  Bytes bytes = write(f);
  kiln::rt::EngineView view;
  ASSERT_EQ(kiln::rt::verifyEngineImage(bytes.data(), bytes.size(), "e", view),
            nullptr);
  const kiln::fb::Manifest *m = view.manifest;
  EXPECT_EQ(m->format_version(), 1u);
  EXPECT_EQ(m->compiler_version()->str(), "kiln 0.1.0-test");
  EXPECT_EQ(m->target_arch()->str(), "sm_90");
  EXPECT_EQ(m->tensor_parallel_ranks(), 1u);
  auto compare = [](const kiln::fb::Tensor *t, const TensorSpec &spec) {
    EXPECT_EQ(t->name()->str(), spec.name);
    EXPECT_EQ(int(t->dtype()), int(spec.dtype));
    ASSERT_EQ(t->shape()->size(), spec.shape.size());
    for (size_t i = 0; i < spec.shape.size(); ++i)
      EXPECT_EQ(t->shape()->Get(i), spec.shape[i]);
  };
  ASSERT_EQ(m->inputs()->size(), 2u);
  ASSERT_EQ(m->outputs()->size(), 3u);
  for (size_t i = 0; i < 2; ++i)
    compare(m->inputs()->Get(i), f.manifest.inputs[i]);
  for (size_t i = 0; i < 3; ++i)
    compare(m->outputs()->Get(i), f.manifest.outputs[i]);
  EXPECT_EQ(m->provenance()->model_sha256()->str(), std::string(64, 'a'));
  EXPECT_EQ(m->provenance()->compile_flags()->str(),
            "kilnc -O2 --arch=sm_90 model.onnx");
  EXPECT_EQ(m->provenance()->tuning_cache_hash()->str(), "0123456789abcdef");
  ASSERT_EQ(m->extras()->size(), 1u);
  EXPECT_EQ(m->extras()->Get(0)->name()->str(), "tuning-log");
  EXPECT_EQ(m->extras()->Get(0)->section(), f.extraSection);
}

TEST(EngineFormat, PlanRoundTrip) {
  Fixture f = makeFixture();
  Bytes bytes = write(f);
  kiln::rt::EngineView view;
  ASSERT_EQ(kiln::rt::verifyEngineImage(bytes.data(), bytes.size(), "e", view),
            nullptr);
  ASSERT_EQ(view.plans.size(), 1u);
  const kiln::fb::Plan *p = view.plans[0];
  EXPECT_EQ(p->rank(), 0u);
  EXPECT_EQ(p->arena_size(), 4096u);
  EXPECT_TRUE(p->is_static());

  ASSERT_EQ(p->buffers()->size(), f.plan.buffers.size());
  for (size_t i = 0; i < f.plan.buffers.size(); ++i) {
    const kiln::fb::Buffer *b = p->buffers()->Get(i);
    const BufferSpec &spec = f.plan.buffers[i];
    EXPECT_EQ(int(b->kind()), int(spec.kind)) << i;
    EXPECT_EQ(b->offset(), spec.offset) << i;
    EXPECT_EQ(b->size(), spec.size) << i;
    EXPECT_EQ(b->section(), spec.section) << i;
    EXPECT_EQ(b->io_index(), spec.ioIndex) << i;
    EXPECT_EQ(b->name()->str(), spec.name) << i;
  }
  ASSERT_EQ(p->images()->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(p->images()->Get(i)->cubin_section(),
              f.plan.images[i].cubinSection);
    EXPECT_EQ(p->images()->Get(i)->ptx_section(), f.plan.images[i].ptxSection);
    EXPECT_EQ(p->images()->Get(i)->name()->str(), f.plan.images[i].name);
  }
  ASSERT_EQ(p->kernels()->size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    const kiln::fb::Kernel *kernel = p->kernels()->Get(k);
    const KernelSpec &spec = f.plan.kernels[k];
    EXPECT_EQ(kernel->name()->str(), spec.name);
    EXPECT_EQ(kernel->image(), spec.image);
    EXPECT_EQ(kernel->entry()->str(), spec.entry);
    EXPECT_EQ(kernel->grid()->x(), spec.grid.x);
    EXPECT_EQ(kernel->grid()->y(), spec.grid.y);
    EXPECT_EQ(kernel->grid()->z(), spec.grid.z);
    EXPECT_EQ(kernel->block()->x(), spec.block.x);
    EXPECT_EQ(kernel->block()->y(), spec.block.y);
    EXPECT_EQ(kernel->block()->z(), spec.block.z);
    EXPECT_EQ(kernel->dynamic_shared_bytes(), spec.dynamicSharedBytes);
    ASSERT_EQ(kernel->args()->size(), spec.args.size());
    for (size_t a = 0; a < spec.args.size(); ++a) {
      const kiln::fb::Arg *arg = kernel->args()->Get(a);
      EXPECT_EQ(int(arg->kind()), int(spec.args[a].kind)) << k << "/" << a;
      EXPECT_EQ(int(arg->scalar_type()), int(spec.args[a].scalarType));
      EXPECT_EQ(arg->buffer(), spec.args[a].buffer);
      EXPECT_EQ(arg->value(), spec.args[a].value);
    }
  }
  // Scalar encodings: the bits in the low bytes, nothing above them.
  const auto *args = p->kernels()->Get(1)->args();
  float half;
  uint32_t halfBits = uint32_t(args->Get(2)->value());
  std::memcpy(&half, &halfBits, 4);
  EXPECT_EQ(half, 0.5f);
  EXPECT_EQ(int64_t(args->Get(3)->value()), -3);
  EXPECT_EQ(args->Get(5)->value(), 0xFFFFFFFFull); // i32 -1
  double d;
  uint64_t dBits = args->Get(6)->value();
  std::memcpy(&d, &dBits, 8);
  EXPECT_EQ(d, 2.25);
  // The tensor map argument and its descriptor.
  ASSERT_NE(p->kernels()->Get(1)->tensor_maps(), nullptr);
  ASSERT_EQ(p->kernels()->Get(1)->tensor_maps()->size(), 1u);
  const kiln::fb::TensorMap *map = p->kernels()->Get(1)->tensor_maps()->Get(0);
  EXPECT_EQ(map->buffer(), 6u);
  EXPECT_EQ(map->offset(), 0u);
  EXPECT_EQ(map->dtype(), kiln::fb::DType::F16);
  EXPECT_EQ(std::vector<uint64_t>(map->dims()->begin(), map->dims()->end()),
            (std::vector<uint64_t>{16, 16}));
  EXPECT_EQ(map->strides()->Get(0), 32u);
  EXPECT_EQ(map->box()->Get(1), 16u);
  EXPECT_EQ(map->swizzle(), 32u);
  EXPECT_EQ(p->kernels()->Get(0)->tensor_maps(), nullptr);
  ASSERT_EQ(p->launch_order()->size(), 3u);
  EXPECT_EQ(p->launch_order()->Get(0), 0u);
  EXPECT_EQ(p->launch_order()->Get(1), 1u);
  EXPECT_EQ(p->launch_order()->Get(2), 0u);
}

TEST(EngineFormat, CApiIntrospection) {
  Fixture f = makeFixture();
  Bytes bytes = write(f);
  kiln_engine *engine = nullptr;
  kiln_status s =
      kiln_engine_load_from_memory(bytes.data(), bytes.size(), &engine);
  ASSERT_EQ(s, nullptr) << kiln_status_message(s);
  bytes.assign(bytes.size(), 0xEE); // the engine holds its own copy
  EXPECT_STREQ(kiln_engine_arch(engine), "sm_90");
  EXPECT_STREQ(kiln_engine_compiler_version(engine), "kiln 0.1.0-test");
  EXPECT_EQ(kiln_engine_format_version(engine), 1u);
  EXPECT_EQ(kiln_engine_num_ranks(engine), 1u);
  EXPECT_STREQ(kiln_engine_model_sha256(engine), std::string(64, 'a').c_str());
  EXPECT_STREQ(kiln_engine_compile_flags(engine),
               "kilnc -O2 --arch=sm_90 model.onnx");
  EXPECT_STREQ(kiln_engine_tuning_cache_hash(engine), "0123456789abcdef");
  ASSERT_EQ(kiln_engine_num_inputs(engine), 2u);
  ASSERT_EQ(kiln_engine_num_outputs(engine), 3u);
  const size_t sizes[] = {64, 8, 64, 24, 2};
  for (size_t i = 0; i < 5; ++i) {
    bool input = i < 2;
    const TensorSpec &spec =
        input ? f.manifest.inputs[i] : f.manifest.outputs[i - 2];
    kiln_tensor_info info;
    s = input ? kiln_engine_input_info(engine, i, &info)
              : kiln_engine_output_info(engine, i - 2, &info);
    ASSERT_EQ(s, nullptr);
    EXPECT_STREQ(info.name, spec.name.c_str());
    EXPECT_EQ(info.dtype, spec.dtype);
    ASSERT_EQ(info.rank, spec.shape.size());
    for (size_t d = 0; d < info.rank; ++d)
      EXPECT_EQ(info.dims[d], spec.shape[d]);
    EXPECT_EQ(info.size_bytes, sizes[i]);
    int isInput = -1;
    size_t index = 99;
    ASSERT_EQ(
        kiln_engine_find_tensor(engine, spec.name.c_str(), &isInput, &index),
        nullptr);
    EXPECT_EQ(isInput, input ? 1 : 0);
    EXPECT_EQ(index, input ? i : i - 2);
  }
  kiln_tensor_info info;
  s = kiln_engine_input_info(engine, 2, &info);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(s)).find("index 2 is out of range"),
            std::string::npos);
  kiln_status_free(s);
  s = kiln_engine_find_tensor(engine, "nope", nullptr, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(s))
                .find("no input or output named 'nope'; it has 'x', 'mask' "
                      "(inputs); 'y', 'indices', 'scalar' (outputs)"),
            std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
  kiln_engine_free(engine);
}

TEST(EngineFormat, WriteFileMatchesFinishAndLoads) {
  Fixture f = makeFixture();
  Bytes inMemory = write(f);
  std::string path = ::testing::TempDir() + "kiln_engine_test_" +
                     std::to_string(getpid()) + ".engine";
  std::string error;
  ASSERT_TRUE(build(f).writeFile(path, error)) << error;
  std::ifstream in(path, std::ios::binary);
  Bytes onDisk((std::istreambuf_iterator<char>(in)),
               std::istreambuf_iterator<char>());
  EXPECT_EQ(onDisk, inMemory);
  kiln_engine *engine = nullptr;
  kiln_status s = kiln_engine_load(path.c_str(), &engine);
  EXPECT_EQ(s, nullptr) << kiln_status_message(s);
  EXPECT_STREQ(kiln_engine_arch(engine), "sm_90");
  kiln_engine_free(engine);
  EXPECT_EQ(kiln_engine_verify(inMemory.data(), inMemory.size(), nullptr),
            nullptr);
  std::remove(path.c_str());
}

TEST(EngineFormat, WritingIsDeterministic) {
  Fixture f = makeFixture();
  EXPECT_EQ(write(f), write(f));
}

TEST(EngineFormat, EmptyOptionalPartsAreFine) {
  // No inputs, no kernels, no weights, zero-sized tensors and sections.
  ManifestSpec m;
  m.compilerVersion = "t";
  m.outputs = {{"empty", KILN_DTYPE_F16, {0, 4}}};
  EngineWriter w(m);
  uint32_t weights = w.addWeights({});
  PlanSpec p;
  p.buffers = {BufferSpec::output(0, 0), BufferSpec::weights(weights, 0, 0)};
  w.addPlan(p);
  Bytes bytes;
  std::string error;
  ASSERT_TRUE(w.finish(bytes, error)) << error;
  Result r = verify(bytes);
  EXPECT_EQ(r.code, KILN_OK) << r.message;
}

TEST(EngineFormat, LoadReportsMissingAndUnreadableFiles) {
  kiln_engine *engine = reinterpret_cast<kiln_engine *>(1);
  kiln_status s = kiln_engine_load("/nonexistent/model.engine", &engine);
  EXPECT_EQ(engine, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_NOT_FOUND);
  EXPECT_NE(std::string(kiln_status_message(s))
                .find("cannot open engine '/nonexistent/model.engine'"),
            std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
  s = kiln_engine_load("/", &engine);
  EXPECT_EQ(kiln_status_code(s), KILN_IO_ERROR);
  EXPECT_NE(std::string(kiln_status_message(s)).find("not a regular file"),
            std::string::npos)
      << kiln_status_message(s);
  kiln_status_free(s);
}

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

TEST(EngineCorruption, WrongMagic) {
  Bytes bytes = write(makeFixture());
  bytes[0] = 'X';
  expectInvalid(bytes,
                "not a Kiln engine: the file starts with 'XILNENG\\x00'");
  Bytes zip = {'P', 'K', 3, 4, 20, 0, 0, 0, 8, 0};
  zip.resize(500, 0);
  expectInvalid(zip, "not a Kiln engine: the file starts with 'PK\\x03\\x04");
  Bytes text(200, 'a');
  expectInvalid(text, "not a Kiln engine");
}

TEST(EngineCorruption, FutureVersionAsksForRebuild) {
  Bytes bytes = write(makeFixture());
  put32(bytes, KILN_HEADER_FORMAT_VERSION, 4);
  // Reported as such with or without a valid checksum: a newer header may
  // hash differently.
  for (bool fix : {false, true}) {
    if (fix)
      fixHeader(bytes);
    Result r = verify(bytes);
    EXPECT_EQ(r.code, KILN_UNSUPPORTED_ENGINE);
    EXPECT_NE(r.message.find("format version 4 is newer than this runtime "
                             "reads (version 3"),
              std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("rebuild the engine with this Kiln"),
              std::string::npos)
        << r.message;
  }
  // Even a file cut right after the version field.
  Result r = verify(bytes, 12);
  EXPECT_EQ(r.code, KILN_UNSUPPORTED_ENGINE) << r.message;
}

struct HeaderEdit {
  const char *field;
  std::function<void(Bytes &)> edit;
  const char *message; ///< expected once the header checksum is fixed
};

TEST(EngineCorruption, EveryHeaderField) {
  const Bytes good = write(makeFixture());
  const kiln_engine_header h = header(good);
  std::vector<HeaderEdit> edits = {
      {"format_version", [](Bytes &b) { put32(b, 8, 0); },
       "header field format_version is 0"},
      {"header_size", [](Bytes &b) { put32(b, 12, 64); },
       "header field header_size is 64"},
      {"compiler_version", [](Bytes &b) { std::memset(&b[16], 'v', 32); },
       "header field compiler_version (32 bytes) is not NUL-terminated"},
      {"compiler_version", [](Bytes &b) { b[16 + 31] = 'x'; },
       "header field compiler_version has non-zero padding"},
      {"compiler_version", [](Bytes &b) { std::memset(&b[16], 0, 32); },
       "header field compiler_version is empty"},
      {"compiler_version", [](Bytes &b) { b[17] = 0x01; },
       "header field compiler_version holds a non-printable byte"},
      {"target_arch", [](Bytes &b) { std::memcpy(&b[48], "gfx90a\0", 7); },
       "header field target_arch is 'gfx90a'"},
      {"target_arch", [](Bytes &b) { std::memset(&b[48], 's', 16); },
       "header field target_arch (16 bytes) is not NUL-terminated"},
      {"target_arch", [](Bytes &b) { std::memcpy(&b[48], "sm_80", 5); },
       "target_arch 'sm_90' differs from the header's 'sm_80'"},
      {"section_count", [](Bytes &b) { put32(b, 64, 0); },
       "header field section_count is 0"},
      {"section_count", [](Bytes &b) { put32(b, 64, 70000); },
       "header field section_count is 70000"},
      {"section_count", [&](Bytes &b) { put32(b, 64, h.section_count + 1); },
       "section table checksum mismatch"},
      {"section_count", [&](Bytes &b) { put32(b, 64, h.section_count - 1); },
       "section table checksum mismatch"},
      {"flags", [](Bytes &b) { put32(b, 68, 1); }, "header field flags is 0x1"},
      {"section_table_offset", [](Bytes &b) { put64(b, 72, 132); },
       "header field section_table_offset is 132"},
      {"section_table_offset", [](Bytes &b) { put64(b, 72, 64); },
       "header field section_table_offset is 64"},
      {"section_table_offset",
       [&](Bytes &b) { put64(b, 72, (h.file_size & ~7ull) - 8); },
       "section table (7 entries at offset"},
      {"section_table_offset", [](Bytes &b) { put64(b, 72, ~0ull << 3); },
       "ends past the end of the file"},
      {"file_size", [&](Bytes &b) { put64(b, 80, h.file_size + 1); },
       "truncated: the file has"},
      {"file_size", [&](Bytes &b) { put64(b, 80, h.file_size - 1); },
       "1 unexpected bytes after the end of the engine"},
      {"section_table_checksum",
       [&](Bytes &b) { put64(b, 88, h.section_table_checksum ^ 1); },
       "section table checksum mismatch"},
      {"reserved", [](Bytes &b) { b[100] = 1; },
       "header reserved byte 4 (file offset 100) is not zero"},
  };
  for (const HeaderEdit &e : edits) {
    SCOPED_TRACE(std::string(e.field) + ": " + e.message);
    Bytes bytes = good;
    e.edit(bytes);
    // Without a matching checksum the checksum is what fails.
    if (bytes != good && std::string(e.field) != "format_version")
      expectInvalid(bytes, "header checksum mismatch");
    fixHeader(bytes);
    expectInvalid(bytes, e.message);
  }
  Bytes bytes = good;
  put64(bytes, KILN_HEADER_CHECKSUM, h.header_checksum + 1);
  expectInvalid(bytes, "header checksum mismatch (header_checksum is 0x");
}

//===----------------------------------------------------------------------===//
// Every byte, every length
//===----------------------------------------------------------------------===//

TEST(EngineCorruption, EveryFlippedByteIsRejected) {
  const Bytes good = write(makeFixture());
  ASSERT_EQ(verify(good).code, KILN_OK);
  for (size_t i = 0; i < good.size(); ++i) {
    Bytes bytes = good;
    bytes[i] ^= 0x20;
    Result r = verify(bytes);
    ASSERT_NE(r.code, KILN_OK) << "flipping byte " << i << " went unnoticed";
    EXPECT_TRUE(r.code == KILN_INVALID_ENGINE ||
                r.code == KILN_UNSUPPORTED_ENGINE)
        << i << ": " << r.message;
    EXPECT_NE(r.message.find("rebuil"), std::string::npos) << r.message;
  }
}

TEST(EngineCorruption, FlippedByteInEachSectionNamesIt) {
  const Bytes good = write(makeFixture());
  kiln_engine_header h = header(good);
  for (uint32_t i = 0; i < h.section_count; ++i) {
    kiln_section_entry e = entry(good, i);
    for (uint64_t at : {uint64_t(0), e.size / 2, e.size - 1}) {
      Bytes bytes = good;
      bytes[e.offset + at] ^= 0x01;
      expectInvalid(bytes, "section " + std::to_string(i) + " (" +
                               kiln_section_kind_name(e.kind) +
                               "): checksum mismatch");
    }
  }
  for (uint64_t at = 0; at < uint64_t(h.section_count) * 48; at += 13) {
    Bytes bytes = good;
    bytes[h.section_table_offset + at] ^= 0x01;
    expectInvalid(bytes, "section table checksum mismatch");
  }
}

TEST(EngineCorruption, EveryTruncationIsRejected) {
  const Bytes good = write(makeFixture());
  for (size_t len = 0; len < good.size(); ++len) {
    Result r = verify(good, len);
    ASSERT_EQ(r.code, KILN_INVALID_ENGINE) << len << ": " << r.message;
    const char *expected = len == 0 ? "the file is empty" : "truncated";
    EXPECT_NE(r.message.find(expected), std::string::npos)
        << len << ": " << r.message;
  }
  Bytes longer = good;
  longer.push_back(0);
  expectInvalid(longer, "1 unexpected bytes after the end");
}

TEST(EngineCorruption, NonZeroPaddingIsRejected) {
  const Bytes good = write(makeFixture());
  // weights1 (1000 bytes) is followed by padding up to weights2's 256 boundary.
  Fixture f = makeFixture();
  kiln_section_entry w1 = entry(good, f.weights1Section);
  Bytes bytes = good;
  bytes[w1.offset + w1.size] = 0xAA;
  expectInvalid(bytes, "byte at offset " + std::to_string(w1.offset + w1.size) +
                           " belongs to no section and is not zero padding");
}

//===----------------------------------------------------------------------===//
// Section table
//===----------------------------------------------------------------------===//

TEST(EngineCorruption, SectionTableFields) {
  const Bytes good = write(makeFixture());
  Fixture f = makeFixture();
  struct Edit {
    uint32_t section;
    std::function<void(kiln_section_entry &)> edit;
    std::string message;
  };
  const kiln_section_entry w2 = entry(good, f.weights2Section);
  const kiln_section_entry w1 = entry(good, f.weights1Section);
  std::vector<Edit> edits = {
      {0, [](kiln_section_entry &e) { e.kind = 99; },
       "section 0: unknown kind 99"},
      {0, [](kiln_section_entry &e) { e.kind = 0; },
       "section 0: unknown kind 0"},
      {1, [](kiln_section_entry &e) { e.flags = 4; },
       "section 1 (ptx): flags is 0x4"},
      {1, [](kiln_section_entry &e) { e.reserved = 1; },
       "section 1 (ptx): reserved field is not zero"},
      {0, [](kiln_section_entry &e) { e.alignment = 3; },
       "section 0 (cubin): alignment 3 is not a power of two"},
      {0, [](kiln_section_entry &e) { e.alignment = 0; },
       "section 0 (cubin): alignment 0 is not a power of two"},
      {0, [](kiln_section_entry &e) { e.alignment = 1u << 20; },
       "alignment 1048576 is not a power of two up to 65536"},
      {f.weights1Section, [](kiln_section_entry &e) { e.alignment = 64; },
       "section 2 (weights): alignment 64 is below the 256 bytes weights "
       "sections need"},
      {5, [](kiln_section_entry &e) { e.alignment = 4; },
       "section 5 (manifest): alignment 4 is below the 8 bytes"},
      {0, [](kiln_section_entry &e) { e.offset += 1; },
       "section 0 (cubin): offset"},
      {0, [](kiln_section_entry &e) { e.offset = ~0ull << 6; },
       "extend past the end of the file"},
      {f.weights2Section, [](kiln_section_entry &e) { e.size += 1; },
       "section 3 (weights): bytes ["},
      {f.weights2Section, [](kiln_section_entry &e) { e.size = ~0ull; },
       "extend past the end of the file"},
      {f.weights2Section, [&](kiln_section_entry &e) { e.offset = w1.offset; },
       "overlaps section 2 (weights)"},
      {0, [](kiln_section_entry &e) { e.offset = 64; },
       "section 0 (cubin) [64, 164) overlaps the header [0, 128)"},
      {0, [](kiln_section_entry &e) { e.offset = 192; },
       "overlaps the section table"},
      {f.weights2Section,
       [&](kiln_section_entry &e) { e.checksum = w2.checksum + 1; },
       "section 3 (weights): checksum mismatch (the table says"},
  };
  for (const Edit &e : edits) {
    SCOPED_TRACE(e.message);
    Bytes bytes = good;
    kiln_section_entry s = entry(bytes, e.section);
    e.edit(s);
    setEntry(bytes, e.section, s);
    // Only the table and header checksums are fixed: the section checksums
    // must still hold for the check under test to be reached.
    kiln_engine_header h = header(bytes);
    h.section_table_checksum = kiln_engine_checksum(
        bytes.data() + h.section_table_offset, h.section_count * 48ull);
    kiln_engine_encode_header(&h, bytes.data());
    fixHeader(bytes);
    expectInvalid(bytes, e.message);
  }
}

TEST(EngineCorruption, SectionKindsMustMatchTheirUse) {
  const Bytes good = write(makeFixture());
  {
    // The plan relabelled as a manifest.
    Bytes bytes = good;
    uint32_t plan = findSection(bytes, KILN_SECTION_KIND_PLAN);
    kiln_section_entry e = entry(bytes, plan);
    e.kind = KILN_SECTION_KIND_MANIFEST;
    setEntry(bytes, plan, e);
    fixChecksums(bytes);
    expectInvalid(bytes, "2 manifest sections (needs exactly one)");
  }
  {
    // The manifest relabelled as a plan: no manifest.
    Bytes bytes = good;
    uint32_t m = findSection(bytes, KILN_SECTION_KIND_MANIFEST);
    kiln_section_entry e = entry(bytes, m);
    e.kind = KILN_SECTION_KIND_PLAN;
    setEntry(bytes, m, e);
    fixChecksums(bytes);
    expectInvalid(bytes, "0 manifest sections");
  }
  {
    // A weights section relabelled as extra: nothing names it.
    Bytes bytes = good;
    Fixture f = makeFixture();
    kiln_section_entry e = entry(bytes, f.weights2Section);
    e.kind = KILN_SECTION_KIND_EXTRA;
    setEntry(bytes, f.weights2Section, e);
    fixChecksums(bytes);
    expectInvalid(bytes,
                  "section 3 (extra): not named in the manifest's extras");
  }
}

//===----------------------------------------------------------------------===//
// FlatBuffers verification
//===----------------------------------------------------------------------===//

TEST(EngineCorruption, FlatBuffersVerifierRejectsBadManifestAndPlan) {
  const Bytes good = write(makeFixture());
  for (uint32_t kind : {KILN_SECTION_KIND_MANIFEST, KILN_SECTION_KIND_PLAN}) {
    uint32_t index = findSection(good, kind);
    kiln_section_entry e = entry(good, index);
    std::string what = "section " + std::to_string(index) + " (" +
                       kiln_section_kind_name(kind) + "): not a valid " +
                       kiln_section_kind_name(kind) + " FlatBuffer";
    {
      Bytes bytes = good; // root offset past the end
      put32(bytes, e.offset, 0x7FFFFFF0u);
      fixChecksums(bytes);
      expectInvalid(bytes, what);
    }
    {
      Bytes bytes = good; // the other kind's file identifier
      std::memcpy(&bytes[e.offset + 4],
                  kind == KILN_SECTION_KIND_PLAN ? "KLNM" : "KLNP", 4);
      fixChecksums(bytes);
      expectInvalid(bytes, what);
    }
    {
      Bytes bytes = good; // every vtable offset garbage
      for (uint64_t i = 8; i < e.size; i += 4)
        bytes[e.offset + i] ^= 0x55;
      fixChecksums(bytes);
      Result r = verify(bytes);
      EXPECT_EQ(r.code, KILN_INVALID_ENGINE) << r.message;
    }
  }
}

TEST(EngineCorruption, RandomEditsBehindValidChecksumsNeverCrash) {
  // Mutations the checksums cannot catch (they are recomputed) must still be
  // rejected by the FlatBuffers verifier or the semantic checks, or be
  // harmless; run under valgrind or ASan this also shows no invalid access.
  const Bytes good = write(makeFixture());
  std::mt19937 rng(1234);
  uint32_t indices[] = {findSection(good, KILN_SECTION_KIND_MANIFEST),
                        findSection(good, KILN_SECTION_KIND_PLAN)};
  int rejected = 0, total = 3000;
  for (int trial = 0; trial < total; ++trial) {
    Bytes bytes = good;
    kiln_section_entry e = entry(bytes, indices[trial % 2]);
    int edits = 1 + int(rng() % 4);
    for (int i = 0; i < edits; ++i)
      bytes[e.offset + rng() % e.size] = uint8_t(rng());
    fixChecksums(bytes);
    Result r = verify(bytes);
    if (r.code != KILN_OK) {
      ++rejected;
      EXPECT_EQ(r.code, KILN_INVALID_ENGINE) << r.message;
      EXPECT_NE(r.message.find("rebuil"), std::string::npos) << r.message;
    }
  }
  EXPECT_GT(rejected, total / 2);
}

//===----------------------------------------------------------------------===//
// Semantic checks
//===----------------------------------------------------------------------===//

struct SemanticCase {
  const char *what;
  std::function<void(Fixture &)> edit;
  std::string message;
};

std::vector<SemanticCase> semanticCases() {
  return {
      {"kernel image index", [](Fixture &f) { f.plan.kernels[1].image = 5; },
       "kernel 1 'matmul': image 5 does not exist (the plan has 2)"},
      {"empty entry symbol", [](Fixture &f) { f.plan.kernels[0].entry = ""; },
       "kernel 0 'fused_add': entry symbol is empty"},
      {"entry with NUL",
       [](Fixture &f) { f.plan.kernels[0].entry = std::string("a\0b", 3); },
       "entry symbol is empty or holds a NUL"},
      {"empty kernel name", [](Fixture &f) { f.plan.kernels[0].name = ""; },
       "kernel 0: name is empty"},
      {"grid x zero",
       [](Fixture &f) {
         f.plan.kernels[0].grid = {0, 1, 1};
       },
       "kernel 0 'fused_add': grid 0x1x1 is out of range"},
      {"grid y too large",
       [](Fixture &f) {
         f.plan.kernels[0].grid = {1, 65536, 1};
       },
       "grid 1x65536x1 is out of range"},
      {"grid x too large",
       [](Fixture &f) {
         f.plan.kernels[0].grid = {0x80000000u, 1, 1};
       },
       "grid 2147483648x1x1 is out of range"},
      {"block x too large",
       [](Fixture &f) {
         f.plan.kernels[0].block = {2048, 1, 1};
       },
       "block 2048x1x1 is out of range"},
      {"block z too large",
       [](Fixture &f) {
         f.plan.kernels[0].block = {1, 1, 65};
       },
       "block 1x1x65 is out of range"},
      {"block too many threads",
       [](Fixture &f) {
         f.plan.kernels[0].block = {32, 32, 2};
       },
       "block 32x32x2 is out of range"},
      {"block zero",
       [](Fixture &f) {
         f.plan.kernels[0].block = {1, 0, 1};
       },
       "block 1x0x1 is out of range"},
      {"dynamic shared memory",
       [](Fixture &f) { f.plan.kernels[1].dynamicSharedBytes = 2u << 20; },
       "kernel 1 'matmul': dynamic_shared_bytes 2097152 exceeds 1048576"},
      {"argument buffer index",
       [](Fixture &f) { f.plan.kernels[0].args[1] = ArgSpec::bufferRef(99); },
       "kernel 0 'fused_add': argument 1: buffer 99 does not exist (the plan "
       "has 8)"},
      {"argument offset past buffer",
       [](Fixture &f) {
         f.plan.kernels[0].args[2] = ArgSpec::bufferRef(5, 513);
       },
       "argument 2: byte offset 513 is past the end of buffer 5 (512 bytes)"},
      {"scalar with high bits",
       [](Fixture &f) {
         f.plan.kernels[0].args[3] = ArgSpec::bits(ScalarType::U32, 1ull << 32);
       },
       "argument 3: value 0x100000000 has bits above its 4-byte type"},
      {"scalar without type",
       [](Fixture &f) {
         f.plan.kernels[0].args[3] = ArgSpec::bits(ScalarType::None, 1);
       },
       "argument 3: scalar type 0 is not valid"},
      {"scalar with unknown type",
       [](Fixture &f) {
         f.plan.kernels[0].args[3] = ArgSpec::bits(ScalarType(200), 1);
       },
       "argument 3: scalar type 200 is not valid"},
      {"scalar with buffer",
       [](Fixture &f) { f.plan.kernels[0].args[3].buffer = 2; },
       "argument 3: a scalar with a buffer index"},
      {"buffer ref with scalar type",
       [](Fixture &f) {
         f.plan.kernels[0].args[0].scalarType = ScalarType::F32;
       },
       "argument 0: a buffer reference with a scalar type"},
      {"tensor map index",
       [](Fixture &f) {
         f.plan.kernels[1].args.push_back(ArgSpec::tensorMap(3));
       },
       "kernel 1 'matmul': argument 9: tensor map 3 does not exist (the "
       "kernel has 1)"},
      {"tensor map dtype",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].dtype = KILN_DTYPE_I32; },
       "kernel 1 'matmul': tensor map 0: dtype 7 is not f16, bf16 or f32"},
      {"tensor map stride",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].strides = {24}; },
       "tensor map 0: stride 24 of dimension 1 is not a nonzero multiple of "
       "16"},
      {"tensor map stride zero (a division by it would trap)",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].strides = {0}; },
       "tensor map 0: stride 0 of dimension 1 is not a nonzero multiple of 16"},
      {"tensor map no argument names (still encoded, so still checked)",
       [](Fixture &f) {
         TensorMapSpec bad = f.plan.kernels[1].tensorMaps[0];
         bad.buffer = 99;
         f.plan.kernels[1].tensorMaps.push_back(bad);
       },
       "kernel 1 'matmul': tensor map 1: buffer 99 does not exist"},
      {"tensor map inner box",
       [](Fixture &f) {
         f.plan.kernels[1].tensorMaps[0].box = {4, 16};
         f.plan.kernels[1].tensorMaps[0].swizzle = 0;
       },
       "tensor map 0: an inner box of 8 bytes is not a multiple of 16"},
      {"tensor map past its buffer",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].dims = {16, 17}; },
       "tensor map 0: it reaches past the end of buffer 6 (512 bytes)"},
      {"tensor map offset",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].offset = 8; },
       "tensor map 0: byte offset 8 is not 16-byte aligned"},
      {"tensor map box and swizzle",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].box = {32, 16}; },
       "tensor map 0: an inner box of 64 bytes exceeds the 32-byte swizzle"},
      {"tensor map rank",
       [](Fixture &f) { f.plan.kernels[1].tensorMaps[0].strides = {}; },
       "tensor map 0: 2 dimensions need 1 strides and 2 box extents"},
      {"unknown argument kind",
       [](Fixture &f) { f.plan.kernels[0].args[0].kind = ArgKind(7); },
       "argument 0: unknown argument kind 7"},
      {"too many arguments",
       [](Fixture &f) { f.plan.kernels[0].args.assign(4097, ArgSpec::u32(0)); },
       "kernel 0 'fused_add': 4097 arguments exceed 4096"},
      {"parameter bytes",
       [](Fixture &f) { f.plan.kernels[0].args.assign(4096, ArgSpec::u64(0)); },
       "arguments take 32768 bytes, more than the 32764 a launch can pass"},
      {"launch order",
       [](Fixture &f) {
         f.plan.launchOrder = {0, 7};
       },
       "launch_order[1] is kernel 7, which does not exist (the plan has 2)"},
      {"arena buffer out of range",
       [](Fixture &f) {
         f.plan.buffers[5] = BufferSpec::arena(4000, 100, "t");
       },
       "buffer 5 't': arena bytes [4000, +100) exceed the 4096-byte arena"},
      {"arena buffer overflow",
       [](Fixture &f) {
         f.plan.buffers[5] = BufferSpec::arena(~0ull - 10, 100);
       },
       "exceed the 4096-byte arena"},
      {"arena too large", [](Fixture &f) { f.plan.arenaSize = 1ull << 50; },
       "arena_size 1125899906842624 exceeds 2^48"},
      {"workspace buffer out of range",
       [](Fixture &f) {
         f.plan.workspaceSize = 100;
         f.plan.buffers.push_back(BufferSpec::workspace(0, 200, "ws"));
       },
       "buffer 8 'ws': workspace bytes [0, +200) exceed the 100-byte "
       "workspace"},
      {"workspace too large",
       [](Fixture &f) {
         f.plan.workspaceSize = 1ull << 33;
         f.plan.buffers.push_back(BufferSpec::workspace(0, 200, "ws"));
       },
       "a kernel workspace of 8589934592 bytes exceeds 4 GiB"},
      {"weights buffer out of range",
       [](Fixture &f) {
         f.plan.buffers[7] = BufferSpec::weights(f.weights2Section, 200, 101);
       },
       "buffer 7: bytes [200, +101) exceed section 3 (weights) (300 bytes)"},
      {"weights buffer in a cubin",
       [](Fixture &f) {
         f.plan.buffers[7] = BufferSpec::weights(f.cubinSection, 0, 4);
       },
       "buffer 7: section 0 is not a weights section"},
      {"weights buffer section missing",
       [](Fixture &f) { f.plan.buffers[7] = BufferSpec::weights(40, 0, 4); },
       "buffer 7: section 40 is not a weights section"},
      {"input buffer size",
       [](Fixture &f) { f.plan.buffers[0] = BufferSpec::input(0, 60, "x"); },
       "buffer 0 'x': covers [0, +60) of input 'x' but must cover exactly its "
       "64 bytes (f32[2x8])"},
      {"input buffer index",
       [](Fixture &f) { f.plan.buffers[0] = BufferSpec::input(9, 64); },
       "buffer 0: input 9 does not exist (the manifest has 2)"},
      {"input without buffer",
       [](Fixture &f) { f.plan.buffers[1] = BufferSpec::arena(0, 8); },
       "input 'mask' has 0 buffers (needs exactly one)"},
      {"output with two buffers",
       [](Fixture &f) { f.plan.buffers[3] = BufferSpec::output(0, 64); },
       "output 'y' has 2 buffers"},
      {"unknown buffer kind",
       [](Fixture &f) { f.plan.buffers[5].kind = BufferKind(9); },
       "buffer 5 'tmp': unknown buffer kind 9"},
      {"image without code",
       [](Fixture &f) {
         f.plan.images[1] = {-1, -1, "none"};
       },
       "image 1: has neither a cubin nor a PTX section"},
      {"image arch",
       [](Fixture &f) { f.plan.images[0].arch = "gfx90a"; },
       "image 0: arch is not a GPU architecture like 'sm_90a'"},
      {"image cubin is PTX",
       [](Fixture &f) {
         f.plan.images[0].cubinSection = int32_t(f.ptxSection);
       },
       "image 0: cubin_section 1 is not a cubin section"},
      {"image PTX is weights",
       [](Fixture &f) {
         f.plan.images[1].ptxSection = int32_t(f.weights1Section);
       },
       "image 1: ptx_section 2 is not a PTX section"},
      {"image section out of range",
       [](Fixture &f) { f.plan.images[1].ptxSection = 1000; },
       "image 1: ptx_section 1000 is not a PTX section"},
      {"cubin without ELF magic", [](Fixture &f) { f.cubin[0] = 'X'; },
       "section 0 (cubin): does not start with the ELF magic"},
      {"PTX with NUL",
       [](Fixture &f) { f.ptx = std::string(".version 7.0\0junk", 17); },
       "section 1 (ptx): PTX text must be non-empty and end in its only NUL"},
      {"empty PTX", [](Fixture &f) { f.ptx.clear(); },
       "section 1 (ptx): PTX text must be non-empty"},
      {"duplicate tensor name",
       [](Fixture &f) { f.manifest.outputs[1].name = "x"; },
       "output 1 'x': name is used by another input or output"},
      {"empty tensor name", [](Fixture &f) { f.manifest.inputs[1].name = ""; },
       "input 1: name is empty"},
      {"invalid dtype",
       [](Fixture &f) { f.manifest.inputs[1].dtype = KILN_DTYPE_INVALID; },
       "input 1 'mask': dtype 0 is not a valid dtype"},
      {"negative dimension",
       [](Fixture &f) {
         f.manifest.inputs[0].shape = {2, -8};
       },
       "input 0 'x': dimension 1 is -8"},
      {"huge tensor",
       [](Fixture &f) {
         f.manifest.outputs[1].shape = {1ll << 30, 1ll << 30};
       },
       "output 1 'indices': size in bytes exceeds 2^48"},
      {"rank too high",
       [](Fixture &f) { f.manifest.outputs[2].shape.assign(65, 1); },
       "output 2 'scalar': rank 65 exceeds 64"},
      {"no outputs",
       [](Fixture &f) {
         f.manifest.outputs.clear();
         f.plan.buffers.resize(2);
         f.plan.kernels.clear();
         f.plan.launchOrder.clear();
       },
       "the engine has no outputs"},
      {"bad sha256",
       [](Fixture &f) { f.manifest.provenance.modelSha256 = "ABC"; },
       "provenance.model_sha256 is not 64 lowercase hex digits"},
      {"ranks without plans",
       [](Fixture &f) { f.manifest.tensorParallelRanks = 2; },
       "1 plan sections but the manifest has 2 tensor-parallel ranks"},
      {"zero ranks", [](Fixture &f) { f.manifest.tensorParallelRanks = 0; },
       "tensor_parallel_ranks is 0"},
      {"plan rank out of range", [](Fixture &f) { f.plan.rank = 1; },
       "rank 1 but the manifest has 1 tensor-parallel ranks"},
      // Library calls (fb::LibraryCall): operands inside their buffers.
      {"library call operand past its buffer",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.ldb = 9;
       },
       "kernel 2 'gemm': library call: operand B needs 68 bytes from offset 0 "
       "of buffer 0, which has 64"},
      {"library call bias missing",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.bias = -1;
       },
       "kernel 2 'gemm': library call: operand bias is missing"},
      {"library call operand not a buffer",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].args[3] = ArgSpec::u32(0);
       },
       "library call: operand bias (argument 3) is not a buffer reference"},
      {"library call operand index",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.d = 4;
       },
       "library call: operand D is argument 4 of 4"},
      {"library call C without beta",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.c = 2;
       },
       "library call: operand C is given but not used"},
      {"library call epilogue",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.epilogue = MatmulEpilogue(9);
       },
       "library call: unknown epilogue 9"},
      {"library call tf32 on f16",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.dtype = KILN_DTYPE_F16;
         f.plan.kernels[2].library.tf32 = true;
       },
       "library call: tf32 is set on a matmul that is not F32"},
      {"library call leading dimension",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.lda = 4;
       },
       "library call: operand A: leading dimension 4 is less than its 8 rows"},
      {"library call extents",
       [](Fixture &f) {
         addLibraryCall(f);
         f.plan.kernels[2].library.k = 0;
       },
       "library call: extents m 8, n 2, k 0, batch 1 are out of range"},
  };
}

TEST(EngineFormat, LibraryCallRoundTrip) {
  Fixture f = makeFixture();
  addLibraryCall(f);
  // A library call names no image: an index past the images is not read.
  f.plan.kernels[2].image = 77;
  Bytes bytes = write(f);
  kiln::rt::EngineView view;
  ASSERT_EQ(kiln::rt::verifyEngineImage(bytes.data(), bytes.size(), "e", view),
            nullptr);
  // Library calls make it a format-2 engine (format 1 without them).
  EXPECT_EQ(view.header.format_version, 2u);
  EXPECT_EQ(view.manifest->format_version(), 2u);
  Bytes plain = write(makeFixture());
  EXPECT_EQ(header(plain).format_version, 1u);
  const kiln::fb::Kernel *k = view.plans[0]->kernels()->Get(2);
  ASSERT_NE(k->library(), nullptr);
  EXPECT_EQ(view.plans[0]->kernels()->Get(0)->library(), nullptr);
  const kiln::fb::LibraryCall *l = k->library();
  EXPECT_EQ(l->kind(), kiln::fb::LibraryKind::CublasLtMatmul);
  EXPECT_EQ(l->dtype(), kiln::fb::DType::F32);
  EXPECT_EQ(l->m(), 8u);
  EXPECT_EQ(l->n(), 2u);
  EXPECT_EQ(l->k(), 8u);
  EXPECT_EQ(l->batch(), 1u);
  EXPECT_EQ(l->epilogue(), kiln::fb::MatmulEpilogue::Bias);
  EXPECT_EQ(l->a(), 0);
  EXPECT_EQ(l->c(), -1);
  EXPECT_EQ(l->bias(), 3);
  EXPECT_EQ(l->algo(), 2u);
  EXPECT_EQ(l->workspace_bytes(), 1u << 20);
  EXPECT_EQ(l->alignment(), 16u);
  EXPECT_EQ(l->library_version(), 130100u);
  EXPECT_FLOAT_EQ(l->alpha(), 1.0f);
}

TEST(EngineFormat, WorkspaceRoundTrip) {
  Fixture f = makeFixture();
  f.plan.workspaceSize = 4096 + 65536;
  f.plan.buffers.push_back(
      BufferSpec::workspace(0, 4096 + 65536, "kernel workspace"));
  f.plan.kernels[0].args.push_back(ArgSpec::bufferRef(8));
  Bytes bytes = write(f);
  kiln::rt::EngineView view;
  ASSERT_EQ(kiln::rt::verifyEngineImage(bytes.data(), bytes.size(), "e", view),
            nullptr);
  // A kernel workspace makes it a format-3 engine.
  EXPECT_EQ(view.header.format_version, 3u);
  EXPECT_EQ(view.manifest->format_version(), 3u);
  const kiln::fb::Plan *p = view.plans[0];
  EXPECT_EQ(p->workspace_size(), 4096u + 65536u);
  const kiln::fb::Buffer *b = p->buffers()->Get(8);
  EXPECT_EQ(b->kind(), kiln::fb::BufferKind::Workspace);
  EXPECT_EQ(b->size(), 4096u + 65536u);
  const kiln::fb::Kernel *k = p->kernels()->Get(0);
  EXPECT_EQ(k->args()->Get(k->args()->size() - 1)->buffer(), 8u);
  // With a library call too, the newer format holds both.
  addLibraryCall(f);
  EXPECT_EQ(header(write(f)).format_version, 3u);
}

TEST(EngineSemantics, LibraryCallEngineRelabelledFormat1IsRejected) {
  Fixture f = makeFixture();
  addLibraryCall(f);
  Bytes bytes = write(f);
  put32(bytes, KILN_HEADER_FORMAT_VERSION, 1);
  fixHeader(bytes);
  // The manifest still says 2: the first mismatch found is named.
  Result r = verify(bytes);
  EXPECT_EQ(r.code, KILN_INVALID_ENGINE) << r.message;
  EXPECT_NE(r.message.find("format_version is 2 but the header"),
            std::string::npos)
      << r.message;
}

TEST(EngineRuntime, MissingCublasLtIsNamedBeforeAnyGpuCall) {
  Fixture f = makeFixture();
  addLibraryCall(f);
  Bytes bytes = write(f);
  const char *old = std::getenv("KILN_CUBLASLT_LIBRARY");
  std::string saved = old ? old : "";
  setenv("KILN_CUBLASLT_LIBRARY", "/nonexistent/libcublasLt.so.13", 1);
  kiln_engine *engine = nullptr;
  ASSERT_EQ(kiln_engine_load_from_memory(bytes.data(), bytes.size(), &engine),
            nullptr);
  kiln_context *ctx = nullptr;
  kiln_status s = kiln_context_create(engine, 0, &ctx);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_EQ(kiln_status_code(s), KILN_UNIMPLEMENTED);
  const std::string msg = kiln_status_message(s);
  EXPECT_NE(msg.find("kiln_context_create: engine '"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("kernel 2 'gemm'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("calls cuBLASLt, but /nonexistent/libcublasLt.so.13 "
                     "cannot be loaded"),
            std::string::npos)
      << msg;
  kiln_status_free(s);
  kiln_engine_free(engine);
  if (old)
    setenv("KILN_CUBLASLT_LIBRARY", saved.c_str(), 1);
  else
    unsetenv("KILN_CUBLASLT_LIBRARY");
}

TEST(EngineSemantics, EachInconsistencyIsNamed) {
  for (const SemanticCase &c : semanticCases()) {
    SCOPED_TRACE(c.what);
    Fixture f = makeFixture();
    c.edit(f);
    // Written unchecked, the reader must reject it with the message.
    expectInvalid(write(f, /*verify=*/false), c.message);
    // Checked, the writer refuses to write it at all.
    Bytes out;
    std::string error;
    EXPECT_FALSE(build(f).finish(out, error));
    EXPECT_NE(error.find("refusing to write an engine the runtime would "
                         "reject"),
              std::string::npos)
        << error;
  }
}

TEST(EngineSemantics, DuplicatePlanRank) {
  Fixture f = makeFixture();
  f.manifest.tensorParallelRanks = 2;
  EngineWriter w = build(f);
  w.addPlan(f.plan); // rank 0 twice
  w.setVerifyContents(false);
  Bytes bytes;
  std::string error;
  ASSERT_TRUE(w.finish(bytes, error)) << error;
  expectInvalid(bytes, "a second plan for rank 0");
}

TEST(EngineSemantics, TensorParallelEngineVerifies) {
  Fixture f = makeFixture();
  f.manifest.tensorParallelRanks = 2;
  EngineWriter w = build(f);
  PlanSpec rank1 = f.plan;
  rank1.rank = 1;
  w.addPlan(rank1);
  Bytes bytes;
  std::string error;
  ASSERT_TRUE(w.finish(bytes, error)) << error;
  kiln::rt::EngineView view;
  ASSERT_EQ(kiln::rt::verifyEngineImage(bytes.data(), bytes.size(), "e", view),
            nullptr);
  ASSERT_EQ(view.plans.size(), 2u);
  EXPECT_EQ(view.plans[1]->rank(), 1u);
}

TEST(EngineWriterTest, RejectsOverlongHeaderStrings) {
  Fixture f = makeFixture();
  f.manifest.compilerVersion = std::string(32, 'v');
  Bytes out;
  std::string error;
  EXPECT_FALSE(build(f).finish(out, error));
  EXPECT_NE(error.find("longer than 31 bytes"), std::string::npos) << error;
  f = makeFixture();
  f.manifest.targetArch = "sm_90_and_then_some";
  EXPECT_FALSE(build(f).finish(out, error));
  EXPECT_NE(error.find("longer than 15 bytes"), std::string::npos) << error;
}

TEST(EngineWriterTest, RefusesBadHeaderFields) {
  // Header fields are checked even with content verification off.
  for (const char *arch : {"sm_", "sm_90x", "gfx90a", ""}) {
    Fixture f = makeFixture();
    f.manifest.targetArch = arch;
    EngineWriter w = build(f);
    w.setVerifyContents(false);
    Bytes out;
    std::string error;
    EXPECT_FALSE(w.finish(out, error)) << arch;
    EXPECT_NE(error.find("target arch '" + std::string(arch) +
                         "' is not a GPU architecture like 'sm_90'"),
              std::string::npos)
        << error;
  }
  Fixture f = makeFixture();
  f.manifest.compilerVersion = "kiln\n";
  Bytes out;
  std::string error;
  EXPECT_FALSE(build(f).finish(out, error));
  EXPECT_NE(error.find("the compiler version holds a non-printable byte"),
            std::string::npos)
      << error;
}

TEST(EngineCorruption, EngineStringsAreEscapedInMessages) {
  Fixture f = makeFixture();
  f.plan.kernels[0].name = "evil\x1b[2Jname";
  f.plan.kernels[0].grid = {0, 1, 1};
  expectInvalid(write(f, false), "kernel 0 'evil\\x1b[2Jname': grid 0x1x1");
}

TEST(EngineWriterTest, WriteFileFailsCleanly) {
  std::string error;
  EXPECT_FALSE(
      build(makeFixture()).writeFile("/nonexistent/dir/x.engine", error));
  EXPECT_NE(error.find("cannot create '/nonexistent/dir/x.engine.tmp."),
            std::string::npos)
      << error;
}

} // namespace
