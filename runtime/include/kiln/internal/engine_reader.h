// Engine reader: parses and verifies an engine image before anything touches a
// GPU.
//
// Internal API of the runtime for Kiln's own libraries and tools (link
// KilnRuntimeInternal): not installed, not part of the C API, no stable ABI.
//
// Verification is layered, each layer trusting only what the ones before it
// established: header (magic, version, checksum, fields), section table
// (bounds, alignment, overlaps, zero padding, checksum), section checksums,
// FlatBuffers verification of the manifest and plans, then the semantic checks
// that make every index and byte range in the plan safe to use as is. After
// verifyEngineImage succeeds the executor does no bounds checking of its own.
#ifndef KILN_INTERNAL_ENGINE_READER_H
#define KILN_INTERNAL_ENGINE_READER_H

#include "kiln/engine_format.h"
#include "kiln/engine_writer.h"
#include "kiln/kiln.h"

#include "engine_generated.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::rt {

/// Static limits the verifier enforces (the device limits are checked again
/// against the actual GPU when a context is created).
constexpr uint32_t kMaxRanks = 4096;
constexpr uint32_t kMaxTensorRank = 64;
constexpr uint32_t kMaxBlockX = 1024, kMaxBlockY = 1024, kMaxBlockZ = 64;
constexpr uint32_t kMaxThreadsPerBlock = 1024;
constexpr uint32_t kMaxGridX = 0x7FFFFFFFu, kMaxGridYZ = 65535;
/// Dynamic shared memory beyond this is implausible on any GPU (Hopper allows
/// 227 KiB per block); the device's own limit is checked at context creation.
constexpr uint32_t kMaxDynamicSharedBytes = 1u << 20;
constexpr uint32_t kMaxKernelArgs = 4096;
/// Kernel parameter space since CUDA 12.1 on Volta and newer.
constexpr uint64_t kMaxKernelParamBytes = 32764;
/// 256 TiB: a larger arena or tensor can only come from a corrupt engine.
constexpr uint64_t kMaxBytes = uint64_t(1) << 48;

/// One section of a verified engine.
struct Section {
  kiln_section_entry entry;
  const uint8_t *data; ///< entry.size bytes
};

/// A verified engine image. Points into bytes owned by the caller.
struct EngineView {
  std::string source; ///< path or "<memory>", for messages
  kiln_engine_header header;
  std::vector<Section> sections; ///< in section table order
  const fb::Manifest *manifest = nullptr;
  uint32_t manifestSection = 0;
  std::vector<const fb::Plan *> plans; ///< indexed by rank
  std::vector<uint32_t> planSections;  ///< section index of plans[rank]
};

/// Runs every check on a complete engine image and fills `view`.
kiln_status verifyEngineImage(const uint8_t *data, size_t size,
                              const std::string &source, EngineView &view);

/// The checks after the file layout: FlatBuffers verification and semantics.
/// `view.header` and `view.sections` must be filled; used by verifyEngineImage
/// and by the writer to check what it is about to write.
kiln_status verifyEngineContents(EngineView &view);

/// Bytes of one element; 0 for invalid dtypes.
size_t dtypeSize(fb::DType dtype);
/// Bytes of a scalar argument; 0 for ScalarType::None and unknown values.
size_t scalarSize(fb::ScalarType type);
/// product(shape) * dtypeSize; false when a dimension is negative, the dtype
/// invalid, or the size exceeds kMaxBytes.
bool tensorBytes(const fb::Tensor &tensor, uint64_t &bytes);
/// "f32[1x128]", for messages.
std::string describeTensor(const fb::Tensor &tensor);
/// Name of a section for messages: "section 3 (weights)".
std::string sectionName(const EngineView &view, uint32_t index);
/// `text` with control bytes escaped ("\x0a"): engine strings in messages.
std::string printable(const std::string &text);
/// "sm_<digits>" with an optional "a" or "f" suffix (sm_90a, sm_100f).
bool isArchName(const std::string &arch);
/// The NUL-padded string of a fixed-size header field.
std::string fixedString(const char *field, size_t size);
/// A verified plan's library call in its plain form (the writer's spec).
engine::LibraryCallSpec libraryCallOf(const fb::LibraryCall &call);

} // namespace kiln::rt

#endif // KILN_INTERNAL_ENGINE_READER_H
