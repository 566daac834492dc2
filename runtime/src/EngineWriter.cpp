// KilnEngineWriter: lays out and serializes engine files (format v1).
#include "kiln/engine_writer.h"

#include "Status.h"
#include "kiln/internal/engine_reader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#ifndef KILN_VERSION
#define KILN_VERSION "unknown"
#endif

namespace kiln::engine {

//===----------------------------------------------------------------------===//
// Spec helpers
//===----------------------------------------------------------------------===//

BufferSpec BufferSpec::arena(uint64_t offset, uint64_t size, std::string name) {
  BufferSpec b;
  b.kind = BufferKind::Arena;
  b.offset = offset;
  b.size = size;
  b.name = std::move(name);
  return b;
}

BufferSpec BufferSpec::weights(uint32_t section, uint64_t offset, uint64_t size,
                               std::string name) {
  BufferSpec b;
  b.kind = BufferKind::Weights;
  b.section = section;
  b.offset = offset;
  b.size = size;
  b.name = std::move(name);
  return b;
}

BufferSpec BufferSpec::input(uint32_t index, uint64_t size, std::string name) {
  BufferSpec b;
  b.kind = BufferKind::Input;
  b.ioIndex = index;
  b.size = size;
  b.name = std::move(name);
  return b;
}

BufferSpec BufferSpec::output(uint32_t index, uint64_t size, std::string name) {
  BufferSpec b = input(index, size, std::move(name));
  b.kind = BufferKind::Output;
  return b;
}

BufferSpec BufferSpec::workspace(uint64_t offset, uint64_t size,
                                 std::string name) {
  BufferSpec b = arena(offset, size, std::move(name));
  b.kind = BufferKind::Workspace;
  return b;
}

ArgSpec ArgSpec::bufferRef(uint32_t buffer, uint64_t byteOffset) {
  ArgSpec a;
  a.kind = ArgKind::BufferRef;
  a.buffer = buffer;
  a.value = byteOffset;
  return a;
}

ArgSpec ArgSpec::bits(ScalarType type, uint64_t bits) {
  ArgSpec a;
  a.kind = ArgKind::Scalar;
  a.scalarType = type;
  a.value = bits;
  return a;
}

ArgSpec ArgSpec::tensorMap(uint32_t index) {
  ArgSpec a;
  a.kind = ArgKind::TensorMap;
  a.value = index;
  return a;
}

ArgSpec ArgSpec::i32(int32_t v) {
  return bits(ScalarType::I32, static_cast<uint32_t>(v));
}
ArgSpec ArgSpec::u32(uint32_t v) { return bits(ScalarType::U32, v); }
ArgSpec ArgSpec::i64(int64_t v) {
  return bits(ScalarType::I64, static_cast<uint64_t>(v));
}
ArgSpec ArgSpec::u64(uint64_t v) { return bits(ScalarType::U64, v); }
ArgSpec ArgSpec::f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return bits(ScalarType::F32, b);
}
ArgSpec ArgSpec::f64(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return bits(ScalarType::F64, b);
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

/// Everything about the file except the blobs' bytes, which stay in blobs_.
struct EngineWriter::Layout {
  std::vector<uint8_t> manifest;
  std::vector<std::vector<uint8_t>> plans;
  /// Section table order: blobs_, then the manifest, then plans.
  std::vector<kiln_section_entry> entries;
  std::vector<const uint8_t *> data; ///< bytes of each section
  std::vector<uint32_t> fileOrder;   ///< section indices by file offset
  uint8_t header[KILN_ENGINE_HEADER_SIZE];
  std::vector<uint8_t> table;
  uint64_t fileSize = 0;
  uint32_t formatVersion = 1; ///< the oldest that holds the engine
};

EngineWriter::EngineWriter(ManifestSpec manifest)
    : manifest_(std::move(manifest)) {}

uint32_t EngineWriter::addCubin(std::vector<uint8_t> bytes) {
  blobs_.push_back({KILN_SECTION_KIND_CUBIN, 64, std::move(bytes)});
  return uint32_t(blobs_.size() - 1);
}

uint32_t EngineWriter::addPtx(const std::string &text) {
  std::vector<uint8_t> bytes(text.begin(), text.end());
  bytes.push_back(0);
  blobs_.push_back({KILN_SECTION_KIND_PTX, 64, std::move(bytes)});
  return uint32_t(blobs_.size() - 1);
}

uint32_t EngineWriter::addWeights(std::vector<uint8_t> bytes) {
  blobs_.push_back({KILN_SECTION_KIND_WEIGHTS, KILN_ENGINE_WEIGHT_ALIGNMENT,
                    std::move(bytes)});
  return uint32_t(blobs_.size() - 1);
}

uint32_t EngineWriter::addExtra(const std::string &name,
                                std::vector<uint8_t> bytes) {
  blobs_.push_back({KILN_SECTION_KIND_EXTRA, 64, std::move(bytes)});
  uint32_t index = uint32_t(blobs_.size() - 1);
  extras_.emplace_back(name, index);
  return index;
}

void EngineWriter::addPlan(PlanSpec plan) { plans_.push_back(std::move(plan)); }

namespace {

std::vector<uint8_t>
buildManifest(const ManifestSpec &m, const std::string &compilerVersion,
              const std::vector<std::pair<std::string, uint32_t>> &extras,
              uint32_t formatVersion) {
  flatbuffers::FlatBufferBuilder fbb;
  auto tensors = [&](const std::vector<TensorSpec> &list) {
    std::vector<flatbuffers::Offset<fb::Tensor>> out;
    for (const TensorSpec &t : list)
      out.push_back(fb::CreateTensor(fbb, fbb.CreateString(t.name),
                                     static_cast<fb::DType>(t.dtype),
                                     fbb.CreateVector(t.shape)));
    return fbb.CreateVector(out);
  };
  auto inputs = tensors(m.inputs);
  auto outputs = tensors(m.outputs);
  auto provenance =
      fb::CreateProvenance(fbb, fbb.CreateString(m.provenance.modelSha256),
                           fbb.CreateString(m.provenance.compileFlags),
                           fbb.CreateString(m.provenance.tuningCacheHash));
  std::vector<flatbuffers::Offset<fb::ExtraSection>> extraList;
  for (const auto &[name, section] : extras)
    extraList.push_back(
        fb::CreateExtraSection(fbb, fbb.CreateString(name), section));
  auto root = fb::CreateManifest(
      fbb, formatVersion, fbb.CreateString(compilerVersion),
      fbb.CreateString(m.targetArch), inputs, outputs, provenance,
      m.tensorParallelRanks, fbb.CreateVector(extraList));
  fbb.Finish(root, "KLNM");
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<uint8_t> buildPlan(const PlanSpec &p) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers;
  for (const BufferSpec &b : p.buffers)
    buffers.push_back(fb::CreateBuffer(
        fbb, static_cast<fb::BufferKind>(b.kind), b.offset, b.size, b.section,
        b.ioIndex, b.name.empty() ? 0 : fbb.CreateString(b.name)));
  std::vector<flatbuffers::Offset<fb::Image>> images;
  for (const ImageSpec &img : p.images)
    images.push_back(
        fb::CreateImage(fbb, img.cubinSection, img.ptxSection,
                        img.name.empty() ? 0 : fbb.CreateString(img.name),
                        img.arch.empty() ? 0 : fbb.CreateString(img.arch)));
  std::vector<flatbuffers::Offset<fb::Kernel>> kernels;
  for (const KernelSpec &k : p.kernels) {
    std::vector<fb::Arg> args;
    for (const ArgSpec &a : k.args)
      args.emplace_back(static_cast<fb::ArgKind>(a.kind),
                        static_cast<fb::ScalarType>(a.scalarType), a.buffer,
                        a.value);
    std::vector<flatbuffers::Offset<fb::TensorMap>> maps;
    for (const TensorMapSpec &m : k.tensorMaps)
      maps.push_back(fb::CreateTensorMap(
          fbb, m.buffer, m.offset, static_cast<fb::DType>(m.dtype),
          fbb.CreateVector(m.dims), fbb.CreateVector(m.strides),
          fbb.CreateVector(m.box), m.swizzle));
    fb::Dim3 grid(k.grid.x, k.grid.y, k.grid.z);
    fb::Dim3 block(k.block.x, k.block.y, k.block.z);
    flatbuffers::Offset<fb::LibraryCall> library = 0;
    if (k.hasLibrary) {
      const LibraryCallSpec &l = k.library;
      library = fb::CreateLibraryCall(
          fbb, fb::LibraryKind::CublasLtMatmul, static_cast<fb::DType>(l.dtype),
          l.tf32, l.m, l.n, l.k, l.transA, l.transB, l.lda, l.ldb, l.ldc,
          l.batch, l.strideA, l.strideB, l.strideC, l.alpha, l.beta,
          static_cast<fb::MatmulEpilogue>(l.epilogue), l.a, l.b, l.c, l.d,
          l.bias, l.algo, l.workspaceBytes, l.alignment, l.libraryVersion);
    }
    kernels.push_back(fb::CreateKernel(
        fbb, fbb.CreateString(k.name), k.image, fbb.CreateString(k.entry),
        &grid, &block, k.dynamicSharedBytes, fbb.CreateVectorOfStructs(args),
        k.nodes.empty() ? 0 : fbb.CreateString(k.nodes), k.bytes, k.flops,
        k.programmaticLaunch, maps.empty() ? 0 : fbb.CreateVector(maps),
        library));
  }
  auto root =
      fb::CreatePlan(fbb, p.rank, fbb.CreateVector(buffers),
                     fbb.CreateVector(images), fbb.CreateVector(kernels),
                     fbb.CreateVector(p.launchOrder), p.arenaSize, p.isStatic,
                     p.workspaceSize);
  fbb.Finish(root, "KLNP");
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

uint64_t alignUp(uint64_t v, uint64_t alignment) {
  return (v + alignment - 1) / alignment * alignment;
}

/// Takes a status's message and frees it.
std::string consume(kiln_status status) {
  std::string message = kiln_status_message(status);
  kiln_status_free(status);
  return message;
}

} // namespace

bool EngineWriter::layout(Layout &out, std::string &error) const {
  std::string compilerVersion = manifest_.compilerVersion.empty()
                                    ? std::string(KILN_VERSION)
                                    : manifest_.compilerVersion;
  if (compilerVersion.size() >= KILN_ENGINE_COMPILER_VERSION_SIZE) {
    error = "engine writer: compiler version '" + compilerVersion +
            "' is longer than 31 bytes";
    return false;
  }
  if (manifest_.targetArch.size() >= KILN_ENGINE_TARGET_ARCH_SIZE) {
    error = "engine writer: target arch '" + manifest_.targetArch +
            "' is longer than 15 bytes";
    return false;
  }
  // What the reader checks of these header fields, so no engine with a bad
  // header is ever written.
  const char *refuse =
      "engine writer: refusing to write an engine the runtime would reject: ";
  if (!rt::isArchName(manifest_.targetArch)) {
    error = refuse + ("target arch '" + manifest_.targetArch +
                      "' is not a GPU architecture like 'sm_90'");
    return false;
  }
  for (char c : compilerVersion)
    if (static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x7f) {
      error = refuse + std::string("the compiler version holds a "
                                   "non-printable byte");
      return false;
    }
  size_t numSections = blobs_.size() + 1 + plans_.size();
  if (numSections > KILN_ENGINE_MAX_SECTIONS) {
    error = "engine writer: too many sections";
    return false;
  }

  // The oldest format that holds the engine: library calls need version 2,
  // a kernel workspace version 3.
  uint32_t formatVersion = 1;
  for (const PlanSpec &p : plans_) {
    for (const KernelSpec &k : p.kernels)
      if (k.hasLibrary)
        formatVersion =
            std::max(formatVersion, KILN_ENGINE_FORMAT_LIBRARY_CALLS);
    for (const BufferSpec &b : p.buffers)
      if (b.kind == BufferKind::Workspace)
        formatVersion = std::max(formatVersion, KILN_ENGINE_FORMAT_WORKSPACE);
  }
  out.formatVersion = formatVersion;
  out.manifest =
      buildManifest(manifest_, compilerVersion, extras_, formatVersion);
  out.plans.clear();
  for (const PlanSpec &p : plans_)
    out.plans.push_back(buildPlan(p));

  // Section table order is what indices refer to; file order puts the small
  // structured sections first and the weights, the bulk, last.
  out.entries.assign(numSections, kiln_section_entry{});
  out.data.assign(numSections, nullptr);
  std::vector<uint64_t> sizes(numSections);
  for (size_t i = 0; i < blobs_.size(); ++i) {
    out.entries[i].kind = blobs_[i].kind;
    out.entries[i].alignment = blobs_[i].alignment;
    out.data[i] = blobs_[i].bytes.data();
    sizes[i] = blobs_[i].bytes.size();
  }
  size_t manifestIndex = blobs_.size();
  out.entries[manifestIndex].kind = KILN_SECTION_KIND_MANIFEST;
  out.entries[manifestIndex].alignment = 16;
  out.data[manifestIndex] = out.manifest.data();
  sizes[manifestIndex] = out.manifest.size();
  for (size_t p = 0; p < plans_.size(); ++p) {
    size_t i = manifestIndex + 1 + p;
    out.entries[i].kind = KILN_SECTION_KIND_PLAN;
    out.entries[i].alignment = 16;
    out.data[i] = out.plans[p].data();
    sizes[i] = out.plans[p].size();
  }
  out.fileOrder.clear();
  for (size_t i = manifestIndex; i < numSections; ++i)
    out.fileOrder.push_back(uint32_t(i));
  for (size_t i = 0; i < blobs_.size(); ++i)
    if (blobs_[i].kind != KILN_SECTION_KIND_WEIGHTS)
      out.fileOrder.push_back(uint32_t(i));
  for (size_t i = 0; i < blobs_.size(); ++i)
    if (blobs_[i].kind == KILN_SECTION_KIND_WEIGHTS)
      out.fileOrder.push_back(uint32_t(i));

  uint64_t offset = KILN_ENGINE_HEADER_SIZE +
                    uint64_t(numSections) * KILN_ENGINE_SECTION_ENTRY_SIZE;
  for (uint32_t i : out.fileOrder) {
    kiln_section_entry &e = out.entries[i];
    offset = alignUp(offset, e.alignment);
    e.offset = offset;
    e.size = sizes[i];
    e.checksum = kiln_engine_checksum(out.data[i], sizes[i]);
    offset += sizes[i];
  }
  out.fileSize = offset;

  out.table.assign(numSections * KILN_ENGINE_SECTION_ENTRY_SIZE, 0);
  for (size_t i = 0; i < numSections; ++i)
    kiln_engine_encode_section_entry(
        &out.entries[i], out.table.data() + i * KILN_ENGINE_SECTION_ENTRY_SIZE);

  kiln_engine_header h;
  std::memset(&h, 0, sizeof h);
  std::memcpy(h.magic, KILN_ENGINE_MAGIC, KILN_ENGINE_MAGIC_SIZE);
  h.format_version = out.formatVersion;
  h.header_size = KILN_ENGINE_HEADER_SIZE;
  std::memcpy(h.compiler_version, compilerVersion.data(),
              compilerVersion.size());
  std::memcpy(h.target_arch, manifest_.targetArch.data(),
              manifest_.targetArch.size());
  h.section_count = uint32_t(numSections);
  h.section_table_offset = KILN_ENGINE_HEADER_SIZE;
  h.file_size = out.fileSize;
  h.section_table_checksum =
      kiln_engine_checksum(out.table.data(), out.table.size());
  kiln_engine_encode_header(&h, out.header);
  h.header_checksum = kiln_engine_header_checksum(out.header);
  kiln_engine_encode_header(&h, out.header);

  if (verifyContents_) {
    // The reader's content checks over the sections where they lie now.
    rt::EngineView view;
    view.source = "<being written>";
    view.header = h;
    for (size_t i = 0; i < numSections; ++i)
      view.sections.push_back({out.entries[i], out.data[i]});
    if (kiln_status s = rt::verifyEngineContents(view)) {
      error = "engine writer: refusing to write an engine the runtime would "
              "reject: " +
              consume(s);
      return false;
    }
  }
  return true;
}

bool EngineWriter::finish(std::vector<uint8_t> &out, std::string &error) const {
  try {
    Layout l;
    if (!layout(l, error))
      return false;
    out.assign(l.fileSize, 0);
    std::memcpy(out.data(), l.header, KILN_ENGINE_HEADER_SIZE);
    std::memcpy(out.data() + KILN_ENGINE_HEADER_SIZE, l.table.data(),
                l.table.size());
    for (size_t i = 0; i < l.entries.size(); ++i)
      if (l.entries[i].size)
        std::memcpy(out.data() + l.entries[i].offset, l.data[i],
                    l.entries[i].size);
    if (verifyContents_) {
      rt::EngineView view;
      if (kiln_status s = rt::verifyEngineImage(out.data(), out.size(),
                                                "<written>", view)) {
        error = "engine writer: internal error, the written engine does not "
                "verify: " +
                consume(s);
        return false;
      }
    }
    return true;
  } catch (const std::bad_alloc &) {
    error = "engine writer: out of memory";
    return false;
  }
}

namespace {

bool writeAll(int fd, const uint8_t *p, uint64_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n > (1u << 30) ? (1u << 30) : size_t(n));
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += w;
    n -= uint64_t(w);
  }
  return true;
}

bool writeZeros(int fd, uint64_t n) {
  static const uint8_t kZeros[4096] = {};
  while (n > 0) {
    uint64_t chunk = n < sizeof kZeros ? n : sizeof kZeros;
    if (!writeAll(fd, kZeros, chunk))
      return false;
    n -= chunk;
  }
  return true;
}

} // namespace

bool EngineWriter::writeFile(const std::string &path,
                             std::string &error) const {
  try {
    Layout l;
    if (!layout(l, error))
      return false;
    static std::atomic<int> counter{0};
    std::string tmp = path + rt::format(".tmp.%d.%d", int(getpid()), ++counter);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      error = "cannot create '" + tmp + "': " + std::strerror(errno);
      return false;
    }
    bool ok = writeAll(fd, l.header, KILN_ENGINE_HEADER_SIZE) &&
              writeAll(fd, l.table.data(), l.table.size());
    uint64_t position = KILN_ENGINE_HEADER_SIZE + l.table.size();
    for (uint32_t i : l.fileOrder) {
      if (!ok)
        break;
      const kiln_section_entry &e = l.entries[i];
      ok = writeZeros(fd, e.offset - position) &&
           writeAll(fd, l.data[i], e.size);
      position = e.offset + e.size;
    }
    int savedErrno = errno;
    if (::close(fd) != 0 && ok) {
      ok = false;
      savedErrno = errno;
    }
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
      ok = false;
      savedErrno = errno;
    }
    if (!ok) {
      ::unlink(tmp.c_str());
      error = "cannot write '" + path + "': " + std::strerror(savedErrno);
      return false;
    }
    return true;
  } catch (const std::bad_alloc &) {
    error = "engine writer: out of memory";
    return false;
  }
}

} // namespace kiln::engine
