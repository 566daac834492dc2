// Engine reader: layout, checksum, FlatBuffers and semantic verification.
#include "kiln/internal/engine_reader.h"

#include "Status.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#ifndef KILN_VERSION
#define KILN_VERSION "unknown"
#endif

namespace kiln::rt {
namespace {

/// The common tail of every rejection: the reader only ever sees engines
/// that kilnc wrote, so any failure means the file must be regenerated.
constexpr const char *kRebuild =
    "; the engine is corrupt or inconsistent and must be rebuilt with kilnc";

kiln_status invalid(const std::string &source, const std::string &what) {
  return makeStatus(KILN_INVALID_ENGINE,
                    "engine '" + source + "': " + what + kRebuild);
}

std::string hex(uint64_t v) {
  return format("0x%016llx", static_cast<unsigned long long>(v));
}

/// Printable rendering of raw bytes for messages ("PK\x03\x04").
std::string escape(const uint8_t *p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
      out += char(p[i]);
    else
      out += format("\\x%02x", p[i]);
  }
  return out;
}

bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

/// a + b <= limit without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) {
  return a <= limit && b <= limit - a;
}

/// A fixed-size NUL-padded field: non-empty printable ASCII, then only NULs.
bool checkFixedString(const char *field, size_t size, const std::string &name,
                      const std::string &source, kiln_status &status) {
  size_t len = 0;
  while (len < size && field[len] != '\0')
    ++len;
  if (len == size) {
    status =
        invalid(source, "header field " + name + " (" + std::to_string(size) +
                            " bytes) is not NUL-terminated");
    return false;
  }
  if (len == 0) {
    status = invalid(source, "header field " + name + " is empty");
    return false;
  }
  for (size_t i = 0; i < len; ++i) {
    unsigned char c = static_cast<unsigned char>(field[i]);
    if (c < 0x20 || c >= 0x7f) {
      status = invalid(source, "header field " + name +
                                   " holds a non-printable byte at position " +
                                   std::to_string(i));
      return false;
    }
  }
  for (size_t i = len; i < size; ++i) {
    if (field[i] != '\0') {
      status = invalid(source, "header field " + name +
                                   " has non-zero padding after its NUL");
      return false;
    }
  }
  return true;
}

} // namespace

/// "sm_<digits>" with an optional "a" or "f" suffix (sm_90a, sm_100f).
bool isArchName(const std::string &arch) {
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0)
    return false;
  size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])))
    ++i;
  if (i == 3 || i - 3 > 4)
    return false;
  return i == arch.size() ||
         (i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f'));
}

namespace {

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

kiln_status verifyHeader(const uint8_t *data, size_t size,
                         const std::string &source, kiln_engine_header &h) {
  // Magic first, on whatever prefix exists, so that a random file is "not an
  // engine" rather than "truncated".
  size_t prefix = std::min<size_t>(size, KILN_ENGINE_MAGIC_SIZE);
  if (std::memcmp(data, KILN_ENGINE_MAGIC, prefix) != 0)
    return invalid(source, "not a Kiln engine: the file starts with '" +
                               escape(data, prefix) +
                               "', not the magic 'KILNENG\\x00'");
  // The version next: a newer format may have a different header size.
  if (size >= KILN_HEADER_FORMAT_VERSION + 4) {
    uint32_t version = uint32_t(data[8]) | uint32_t(data[9]) << 8 |
                       uint32_t(data[10]) << 16 | uint32_t(data[11]) << 24;
    if (version > KILN_ENGINE_FORMAT_VERSION)
      return makeStatus(
          KILN_UNSUPPORTED_ENGINE,
          format("engine '%s': format version %u is newer than this runtime "
                 "reads (version %u, Kiln %s); rebuild the engine with this "
                 "Kiln's kilnc, or use a newer runtime",
                 source.c_str(), version, KILN_ENGINE_FORMAT_VERSION,
                 KILN_VERSION));
    if (version == 0)
      return invalid(source, "header field format_version is 0");
  }
  if (size == 0)
    return invalid(source, "the file is empty");
  if (size < KILN_ENGINE_HEADER_SIZE)
    return invalid(source,
                   format("truncated: the file has %zu bytes, fewer than the "
                          "%u-byte header",
                          size, KILN_ENGINE_HEADER_SIZE));

  kiln_engine_decode_header(data, &h);
  // In version 1 the checksum sits at byte 120 whatever header_size says.
  uint64_t computed = kiln_engine_header_checksum(data);
  if (computed != h.header_checksum)
    return invalid(source, "header checksum mismatch (header_checksum is " +
                               hex(h.header_checksum) +
                               ", the header's bytes "
                               "hash to " +
                               hex(computed) + ")");
  if (h.header_size != KILN_ENGINE_HEADER_SIZE)
    return invalid(source, format("header field header_size is %u, format "
                                  "version 1 headers are %u bytes",
                                  h.header_size, KILN_ENGINE_HEADER_SIZE));

  kiln_status status = nullptr;
  if (!checkFixedString(h.compiler_version, sizeof h.compiler_version,
                        "compiler_version", source, status) ||
      !checkFixedString(h.target_arch, sizeof h.target_arch, "target_arch",
                        source, status))
    return status;
  std::string arch = fixedString(h.target_arch, sizeof h.target_arch);
  if (!isArchName(arch))
    return invalid(source, "header field target_arch is '" + arch +
                               "', not a GPU architecture like 'sm_90'");
  if (h.flags != 0)
    return invalid(source,
                   format("header field flags is 0x%x; no flags are defined "
                          "in format version 1",
                          h.flags));
  for (size_t i = 0; i < KILN_HEADER_RESERVED_SIZE; ++i)
    if (h.reserved[i] != 0)
      return invalid(source, format("header reserved byte %zu (file offset "
                                    "%zu) is not zero",
                                    i, KILN_HEADER_RESERVED + i));
  if (h.file_size > size)
    return invalid(source,
                   format("truncated: the file has %zu bytes but header field "
                          "file_size says %llu",
                          size, static_cast<unsigned long long>(h.file_size)));
  if (h.file_size < size)
    return invalid(source,
                   format("%llu unexpected bytes after the end of the engine "
                          "(header field file_size is %llu, the file has %zu)",
                          static_cast<unsigned long long>(size - h.file_size),
                          static_cast<unsigned long long>(h.file_size), size));
  if (h.section_count == 0 || h.section_count > KILN_ENGINE_MAX_SECTIONS)
    return invalid(source, format("header field section_count is %u (must be "
                                  "1..%u)",
                                  h.section_count, KILN_ENGINE_MAX_SECTIONS));
  if (h.section_table_offset % KILN_ENGINE_TABLE_ALIGNMENT != 0 ||
      h.section_table_offset < KILN_ENGINE_HEADER_SIZE)
    return invalid(
        source,
        format("header field section_table_offset is %llu (must be a multiple "
               "of %u at or after the %u-byte header)",
               static_cast<unsigned long long>(h.section_table_offset),
               KILN_ENGINE_TABLE_ALIGNMENT, KILN_ENGINE_HEADER_SIZE));
  uint64_t tableBytes =
      uint64_t(h.section_count) * KILN_ENGINE_SECTION_ENTRY_SIZE;
  if (!fits(h.section_table_offset, tableBytes, h.file_size))
    return invalid(
        source,
        format("section table (%u entries at offset %llu) ends past the end "
               "of the file (%llu bytes)",
               h.section_count,
               static_cast<unsigned long long>(h.section_table_offset),
               static_cast<unsigned long long>(h.file_size)));
  computed = kiln_engine_checksum(data + h.section_table_offset, tableBytes);
  if (computed != h.section_table_checksum)
    return invalid(source, "section table checksum mismatch "
                           "(section_table_checksum is " +
                               hex(h.section_table_checksum) +
                               ", the table's bytes hash to " + hex(computed) +
                               ")");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Section table
//===----------------------------------------------------------------------===//

uint64_t minAlignment(uint32_t kind) {
  switch (kind) {
  case KILN_SECTION_KIND_MANIFEST:
  case KILN_SECTION_KIND_PLAN:
    return KILN_ENGINE_TABLE_ALIGNMENT;
  case KILN_SECTION_KIND_WEIGHTS:
    return KILN_ENGINE_WEIGHT_ALIGNMENT;
  default:
    return 1;
  }
}

kiln_status verifySections(const uint8_t *data, EngineView &view) {
  const kiln_engine_header &h = view.header;
  const std::string &source = view.source;
  view.sections.clear();
  view.sections.reserve(h.section_count);

  struct Range {
    uint64_t begin, end;
    std::string what;
  };
  std::vector<Range> ranges;
  ranges.push_back({0, KILN_ENGINE_HEADER_SIZE, "the header"});
  ranges.push_back({h.section_table_offset,
                    h.section_table_offset + uint64_t(h.section_count) *
                                                 KILN_ENGINE_SECTION_ENTRY_SIZE,
                    "the section table"});

  for (uint32_t i = 0; i < h.section_count; ++i) {
    kiln_section_entry e;
    kiln_engine_decode_section_entry(data + h.section_table_offset +
                                         uint64_t(i) *
                                             KILN_ENGINE_SECTION_ENTRY_SIZE,
                                     &e);
    std::string name = format("section %u", i);
    if (e.kind < KILN_SECTION_KIND_MANIFEST || e.kind > KILN_SECTION_KIND_EXTRA)
      return invalid(source, name + format(": unknown kind %u", e.kind));
    name += std::string(" (") + kiln_section_kind_name(e.kind) + ")";
    if (e.flags != 0)
      return invalid(source, name + format(": flags is 0x%x; no flags are "
                                           "defined in format version 1",
                                           e.flags));
    if (e.reserved != 0)
      return invalid(source, name + ": reserved field is not zero");
    if (!isPowerOfTwo(e.alignment) || e.alignment > KILN_ENGINE_MAX_ALIGNMENT)
      return invalid(source,
                     name + format(": alignment %llu is not a power of two "
                                   "up to %u",
                                   static_cast<unsigned long long>(e.alignment),
                                   KILN_ENGINE_MAX_ALIGNMENT));
    if (e.alignment < minAlignment(e.kind))
      return invalid(
          source,
          name + format(": alignment %llu is below the %llu bytes "
                        "%s sections need",
                        static_cast<unsigned long long>(e.alignment),
                        static_cast<unsigned long long>(minAlignment(e.kind)),
                        kiln_section_kind_name(e.kind)));
    if (e.offset % e.alignment != 0)
      return invalid(
          source, name + format(": offset %llu is not a multiple of its "
                                "alignment %llu",
                                static_cast<unsigned long long>(e.offset),
                                static_cast<unsigned long long>(e.alignment)));
    if (!fits(e.offset, e.size, h.file_size))
      return invalid(
          source, name + format(": bytes [%llu, +%llu) extend past the end "
                                "of the file (%llu bytes)",
                                static_cast<unsigned long long>(e.offset),
                                static_cast<unsigned long long>(e.size),
                                static_cast<unsigned long long>(h.file_size)));
    if (e.size > 0)
      ranges.push_back({e.offset, e.offset + e.size, name});
    view.sections.push_back({e, data + e.offset});
  }

  std::stable_sort(
      ranges.begin(), ranges.end(),
      [](const Range &a, const Range &b) { return a.begin < b.begin; });
  uint64_t covered = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i > 0 && ranges[i].begin < ranges[i - 1].end)
      return invalid(
          source, format("%s [%llu, %llu) overlaps %s [%llu, %llu)",
                         ranges[i].what.c_str(),
                         static_cast<unsigned long long>(ranges[i].begin),
                         static_cast<unsigned long long>(ranges[i].end),
                         ranges[i - 1].what.c_str(),
                         static_cast<unsigned long long>(ranges[i - 1].begin),
                         static_cast<unsigned long long>(ranges[i - 1].end)));
    // Bytes between ranges are padding and must be zero, so that no byte of
    // the file can change unnoticed.
    for (uint64_t p = covered; p < ranges[i].begin; ++p)
      if (data[p] != 0)
        return invalid(source, format("byte at offset %llu belongs to no "
                                      "section and is not zero padding",
                                      static_cast<unsigned long long>(p)));
    covered = ranges[i].end;
  }
  for (uint64_t p = covered; p < h.file_size; ++p)
    if (data[p] != 0)
      return invalid(source, format("byte at offset %llu belongs to no "
                                    "section and is not zero padding",
                                    static_cast<unsigned long long>(p)));

  for (uint32_t i = 0; i < h.section_count; ++i) {
    const Section &s = view.sections[i];
    uint64_t computed = kiln_engine_checksum(s.data, s.entry.size);
    if (computed != s.entry.checksum)
      return invalid(source, sectionName(view, i) +
                                 ": checksum mismatch (the table says " +
                                 hex(s.entry.checksum) +
                                 ", the bytes hash to " + hex(computed) + ")");
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Manifest
//===----------------------------------------------------------------------===//

template <typename T>
bool verifyFlatBuffer(const Section &s, const char *identifier) {
  // The verifier asserts on buffers of 2 GiB and more; those are invalid.
  if (s.entry.size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return false;
  flatbuffers::Verifier::Options options;
  options.max_depth = 64;
  // The default (1M) could reject a real plan with many kernels; the limit is
  // there against shared-subtable amplification, which the size bounds too.
  options.max_tables = static_cast<flatbuffers::uoffset_t>(
      std::max<uint64_t>(1000000, s.entry.size / 4));
  options.check_alignment = true;
  flatbuffers::Verifier verifier(s.data, s.entry.size, options);
  return verifier.VerifyBuffer<T>(identifier);
}

bool isLowerHex(const std::string &s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}

bool isAligned(const void *p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

/// A FlatBuffers string without embedded NULs, so c_str() is all of it.
bool isCleanString(const flatbuffers::String *s) {
  return s && std::memchr(s->data(), '\0', s->size()) == nullptr;
}

kiln_status verifyTensors(
    const EngineView &view,
    const flatbuffers::Vector<flatbuffers::Offset<fb::Tensor>> *tensors,
    const char *what, std::set<std::string> &names) {
  const std::string where = sectionName(view, view.manifestSection);
  if (!tensors)
    return nullptr;
  for (uint32_t i = 0; i < tensors->size(); ++i) {
    const fb::Tensor *t = tensors->Get(i);
    std::string name = format("%s: %s %u", where.c_str(), what, i);
    if (!isCleanString(t->name()) || t->name()->size() == 0)
      return invalid(view.source, name + ": name is empty or holds a NUL");
    name += " '" + printable(t->name()->str()) + "'";
    if (!names.insert(t->name()->str()).second)
      return invalid(view.source,
                     name + ": name is used by another input or output");
    if (dtypeSize(t->dtype()) == 0)
      return invalid(view.source, name + format(": dtype %u is not a valid "
                                                "dtype",
                                                unsigned(t->dtype())));
    // The FlatBuffers verifier checks a vector's length prefix (4 bytes)
    // but not the 8-byte alignment its int64 elements need. An empty vector
    // (a scalar's shape) has no elements to misalign, and FlatBuffers does
    // not align it.
    if (t->shape() && t->shape()->size() &&
        !isAligned(t->shape()->data(), alignof(int64_t)))
      return invalid(view.source, name + ": shape vector is misaligned");
    if (t->shape() && t->shape()->size() > kMaxTensorRank)
      return invalid(view.source,
                     name + format(": rank %u exceeds %u", t->shape()->size(),
                                   kMaxTensorRank));
    if (t->shape())
      for (uint32_t d = 0; d < t->shape()->size(); ++d)
        if (t->shape()->Get(d) < 0)
          return invalid(view.source, name + format(": dimension %u is %lld", d,
                                                    static_cast<long long>(
                                                        t->shape()->Get(d))));
    uint64_t bytes;
    if (!tensorBytes(*t, bytes))
      return invalid(view.source, name + ": size in bytes exceeds 2^48 (" +
                                      describeTensor(*t) + ")");
  }
  return nullptr;
}

kiln_status verifyManifest(EngineView &view) {
  const std::string &source = view.source;
  const Section &s = view.sections[view.manifestSection];
  const std::string where = sectionName(view, view.manifestSection);
  if (!verifyFlatBuffer<fb::Manifest>(s, "KLNM"))
    return invalid(source, where + ": not a valid manifest FlatBuffer "
                                   "(the FlatBuffers verifier rejects it)");
  const fb::Manifest *m =
      flatbuffers::GetRoot<fb::Manifest>(static_cast<const void *>(s.data));
  view.manifest = m;

  if (m->format_version() != view.header.format_version)
    return invalid(source,
                   where + format(": format_version is %u but the header "
                                  "says %u",
                                  m->format_version(),
                                  view.header.format_version));
  std::string headerCompiler = fixedString(view.header.compiler_version,
                                           sizeof view.header.compiler_version);
  if (m->compiler_version()->str() != headerCompiler)
    return invalid(source, where + ": compiler_version '" +
                               printable(m->compiler_version()->str()) +
                               "' differs from the header's '" +
                               headerCompiler + "'");
  std::string headerArch =
      fixedString(view.header.target_arch, sizeof view.header.target_arch);
  if (m->target_arch()->str() != headerArch)
    return invalid(
        source, where + ": target_arch '" + printable(m->target_arch()->str()) +
                    "' differs from the header's '" + headerArch + "'");
  uint32_t ranks = m->tensor_parallel_ranks();
  if (ranks == 0 || ranks > kMaxRanks)
    return invalid(source, where + format(": tensor_parallel_ranks is %u "
                                          "(must be 1..%u)",
                                          ranks, kMaxRanks));

  std::set<std::string> names;
  KILN_RETURN_IF_ERROR(verifyTensors(view, m->inputs(), "input", names));
  KILN_RETURN_IF_ERROR(verifyTensors(view, m->outputs(), "output", names));
  if (!m->outputs() || m->outputs()->size() == 0)
    return invalid(source, where + ": the engine has no outputs");

  if (const fb::Provenance *p = m->provenance()) {
    if (p->model_sha256() && p->model_sha256()->size() != 0 &&
        (p->model_sha256()->size() != 64 ||
         !isLowerHex(p->model_sha256()->str())))
      return invalid(source, where + ": provenance.model_sha256 is not 64 "
                                     "lowercase hex digits");
    for (const flatbuffers::String *str :
         {p->model_sha256(), p->compile_flags(), p->tuning_cache_hash()})
      if (str && !isCleanString(str))
        return invalid(source, where + ": a provenance string holds a NUL");
  }

  // Every extra section is named exactly once.
  std::set<uint32_t> named;
  std::set<std::string> extraNames;
  if (m->extras()) {
    for (uint32_t i = 0; i < m->extras()->size(); ++i) {
      const fb::ExtraSection *x = m->extras()->Get(i);
      std::string name = format("%s: extras[%u]", where.c_str(), i);
      if (!isCleanString(x->name()) || x->name()->size() == 0)
        return invalid(source, name + ": name is empty or holds a NUL");
      if (!extraNames.insert(x->name()->str()).second)
        return invalid(source, name + ": name '" + printable(x->name()->str()) +
                                   "' is used twice");
      if (x->section() >= view.sections.size() ||
          view.sections[x->section()].entry.kind != KILN_SECTION_KIND_EXTRA)
        return invalid(source,
                       name + format(": section %u is not an extra section",
                                     x->section()));
      if (!named.insert(x->section()).second)
        return invalid(
            source, name + format(": section %u is named twice", x->section()));
    }
  }
  for (uint32_t i = 0; i < view.sections.size(); ++i)
    if (view.sections[i].entry.kind == KILN_SECTION_KIND_EXTRA &&
        !named.count(i))
      return invalid(source, sectionName(view, i) +
                                 ": not named in the manifest's extras");
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Plans
//===----------------------------------------------------------------------===//

const fb::Tensor *ioTensor(const fb::Manifest *m, bool input, uint32_t index) {
  auto *list = input ? m->inputs() : m->outputs();
  return list && index < list->size() ? list->Get(index) : nullptr;
}

/// ": a library call in a format-1 engine (library calls need format 2)".
std::string newerPart(const EngineView &view, const char *what,
                      const char *plural, uint32_t needed) {
  return format(": %s in a format-%u engine (%s need format %u)", what,
                view.header.format_version, plural, needed);
}

kiln_status verifyBuffers(const EngineView &view, const fb::Plan *plan,
                          const std::string &where) {
  const std::string &source = view.source;
  const fb::Manifest *m = view.manifest;
  uint32_t numInputs = m->inputs() ? m->inputs()->size() : 0;
  uint32_t numOutputs = m->outputs() ? m->outputs()->size() : 0;
  std::vector<uint32_t> inputUses(numInputs, 0), outputUses(numOutputs, 0);
  uint32_t count = plan->buffers() ? plan->buffers()->size() : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const fb::Buffer *b = plan->buffers()->Get(i);
    std::string name = format("%s: buffer %u", where.c_str(), i);
    if (b->name()) {
      if (!isCleanString(b->name()))
        return invalid(source, name + ": name holds a NUL");
      name += " '" + printable(b->name()->str()) + "'";
    }
    // "arena bytes [o, +s) exceed the N-byte arena"
    auto exceeds = [&](const char *what, uint64_t limit) {
      return invalid(source,
                     name + format(": %s bytes [%llu, +%llu) exceed the "
                                   "%llu-byte %s",
                                   what,
                                   static_cast<unsigned long long>(b->offset()),
                                   static_cast<unsigned long long>(b->size()),
                                   static_cast<unsigned long long>(limit),
                                   what));
    };
    switch (b->kind()) {
    case fb::BufferKind::Arena:
      if (!fits(b->offset(), b->size(), plan->arena_size()))
        return exceeds("arena", plan->arena_size());
      break;
    case fb::BufferKind::Weights: {
      if (b->section() >= view.sections.size() ||
          view.sections[b->section()].entry.kind != KILN_SECTION_KIND_WEIGHTS)
        return invalid(source, name + format(": section %u is not a weights "
                                             "section",
                                             b->section()));
      uint64_t sectionSize = view.sections[b->section()].entry.size;
      if (!fits(b->offset(), b->size(), sectionSize))
        return invalid(
            source,
            name + format(": bytes [%llu, +%llu) exceed %s (%llu "
                          "bytes)",
                          static_cast<unsigned long long>(b->offset()),
                          static_cast<unsigned long long>(b->size()),
                          sectionName(view, b->section()).c_str(),
                          static_cast<unsigned long long>(sectionSize)));
      break;
    }
    case fb::BufferKind::Input:
    case fb::BufferKind::Output: {
      bool input = b->kind() == fb::BufferKind::Input;
      const fb::Tensor *t = ioTensor(m, input, b->io_index());
      if (!t)
        return invalid(source,
                       name + format(": %s %u does not exist (the manifest "
                                     "has %u)",
                                     input ? "input" : "output", b->io_index(),
                                     input ? numInputs : numOutputs));
      uint64_t bytes = 0;
      tensorBytes(*t, bytes);
      if (b->offset() != 0 || b->size() != bytes)
        return invalid(
            source, name + format(": covers [%llu, +%llu) of %s '%s' but "
                                  "must cover exactly its %llu bytes (%s)",
                                  static_cast<unsigned long long>(b->offset()),
                                  static_cast<unsigned long long>(b->size()),
                                  input ? "input" : "output",
                                  printable(t->name()->str()).c_str(),
                                  static_cast<unsigned long long>(bytes),
                                  describeTensor(*t).c_str()));
      ++(input ? inputUses : outputUses)[b->io_index()];
      break;
    }
    case fb::BufferKind::Workspace:
      if (view.header.format_version < KILN_ENGINE_FORMAT_WORKSPACE)
        return invalid(source, name + newerPart(view, "a workspace buffer",
                                                "workspaces",
                                                KILN_ENGINE_FORMAT_WORKSPACE));
      if (!fits(b->offset(), b->size(), plan->workspace_size()))
        return exceeds("workspace", plan->workspace_size());
      break;
    default:
      return invalid(source, name + format(": unknown buffer kind %u",
                                           unsigned(b->kind())));
    }
  }
  if (plan->workspace_size() > (uint64_t(1) << 32))
    return invalid(source,
                   where + format(": a kernel workspace of %llu bytes exceeds "
                                  "4 GiB",
                                  static_cast<unsigned long long>(
                                      plan->workspace_size())));
  for (uint32_t i = 0; i < numInputs; ++i)
    if (inputUses[i] != 1)
      return invalid(
          source,
          where + format(": input '%s' has %u buffers (needs "
                         "exactly one)",
                         printable(m->inputs()->Get(i)->name()->str()).c_str(),
                         inputUses[i]));
  for (uint32_t i = 0; i < numOutputs; ++i)
    if (outputUses[i] != 1)
      return invalid(
          source,
          where + format(": output '%s' has %u buffers (needs "
                         "exactly one)",
                         printable(m->outputs()->Get(i)->name()->str()).c_str(),
                         outputUses[i]));
  return nullptr;
}

kiln_status verifyImages(const EngineView &view, const fb::Plan *plan,
                         const std::string &where) {
  const std::string &source = view.source;
  uint32_t count = plan->images() ? plan->images()->size() : 0;
  for (uint32_t i = 0; i < count; ++i) {
    const fb::Image *img = plan->images()->Get(i);
    std::string name = format("%s: image %u", where.c_str(), i);
    if (img->name() && !isCleanString(img->name()))
      return invalid(source, name + ": name holds a NUL");
    if (img->cubin_section() < 0 && img->ptx_section() < 0)
      return invalid(source, name + ": has neither a cubin nor a PTX section");
    if (img->arch() && !isArchName(img->arch()->str()))
      return invalid(source, name + ": arch is not a GPU architecture like "
                                    "'sm_90a'");
    if (img->cubin_section() >= 0) {
      uint32_t idx = uint32_t(img->cubin_section());
      if (idx >= view.sections.size() ||
          view.sections[idx].entry.kind != KILN_SECTION_KIND_CUBIN)
        return invalid(source, name + format(": cubin_section %u is not a "
                                             "cubin section",
                                             idx));
      const Section &s = view.sections[idx];
      if (s.entry.size < 4 || std::memcmp(s.data,
                                          "\x7f"
                                          "ELF",
                                          4) != 0)
        return invalid(source, sectionName(view, idx) +
                                   ": does not start with the ELF magic of a "
                                   "cubin");
    }
    if (img->ptx_section() >= 0) {
      uint32_t idx = uint32_t(img->ptx_section());
      if (idx >= view.sections.size() ||
          view.sections[idx].entry.kind != KILN_SECTION_KIND_PTX)
        return invalid(source, name + format(": ptx_section %u is not a PTX "
                                             "section",
                                             idx));
      const Section &s = view.sections[idx];
      // The driver reads PTX as a C string: it must end in its only NUL.
      if (s.entry.size < 2 || s.data[s.entry.size - 1] != 0 ||
          std::memchr(s.data, 0, s.entry.size - 1) != nullptr)
        return invalid(source, sectionName(view, idx) +
                                   ": PTX text must be non-empty and end in "
                                   "its only NUL byte");
    }
  }
  return nullptr;
}

/// Why tensor map `m` cannot be encoded over its buffer (cuTensorMapEncodeTiled's
/// rules, and every element it can address inside the buffer); empty if it can.
std::string verifyTensorMap(const fb::TensorMap &m, const fb::Plan &plan) {
  const uint32_t numBuffers = plan.buffers() ? plan.buffers()->size() : 0;
  if (m.buffer() >= numBuffers)
    return format("buffer %u does not exist (the plan has %u)", m.buffer(),
                  numBuffers);
  uint64_t elem = 0;
  switch (m.dtype()) {
  case fb::DType::F16:
  case fb::DType::BF16:
    elem = 2;
    break;
  case fb::DType::F32:
    elem = 4;
    break;
  default:
    return format("dtype %u is not f16, bf16 or f32", unsigned(m.dtype()));
  }
  const uint32_t rank = m.dims() ? m.dims()->size() : 0;
  if (rank < 1 || rank > 5)
    return format("%u dimensions (1 to 5 are encodable)", rank);
  if (!m.strides() || m.strides()->size() != rank - 1 || !m.box() ||
      m.box()->size() != rank)
    return format("%u dimensions need %u strides and %u box extents", rank,
                  rank - 1, rank);
  if (m.swizzle() != 0 && m.swizzle() != 32 && m.swizzle() != 64 &&
      m.swizzle() != 128)
    return format("swizzle %u is not 0, 32, 64 or 128 bytes", m.swizzle());
  if (m.offset() % 16 != 0)
    return format("byte offset %llu is not 16-byte aligned",
                  static_cast<unsigned long long>(m.offset()));
  // The last byte any coordinate inside dims can reach, from the offset.
  uint64_t end = 0;
  for (uint32_t d = 0; d < rank; ++d) {
    const uint64_t dim = m.dims()->Get(d), box = m.box()->Get(d);
    if (dim < 1 || dim > (uint64_t(1) << 32))
      return format("dimension %u's extent %llu is out of range", d,
                    static_cast<unsigned long long>(dim));
    if (box < 1 || box > 256)
      return format("box extent %llu of dimension %u is not in 1..256",
                    static_cast<unsigned long long>(box), d);
    const uint64_t stride = d == 0 ? elem : m.strides()->Get(d - 1);
    if (d > 0 && (stride == 0 || stride % 16 != 0 ||
                  stride >= (uint64_t(1) << 40)))
      return format("stride %llu of dimension %u is not a nonzero multiple "
                    "of 16 below 2^40",
                    static_cast<unsigned long long>(stride), d);
    if ((dim - 1) > (~uint64_t(0) >> 2) / stride ||
        !fits(end, (dim - 1) * stride, ~uint64_t(0) >> 1))
      return "its extent overflows";
    end += (dim - 1) * stride;
  }
  if (m.box()->Get(0) * elem % 16 != 0)
    return format("an inner box of %llu bytes is not a multiple of 16",
                  static_cast<unsigned long long>(m.box()->Get(0) * elem));
  if (m.swizzle() != 0 && m.box()->Get(0) * elem > m.swizzle())
    return format("an inner box of %llu bytes exceeds the %u-byte swizzle",
                  static_cast<unsigned long long>(m.box()->Get(0) * elem),
                  m.swizzle());
  const uint64_t size = plan.buffers()->Get(m.buffer())->size();
  if (m.offset() > size || end + elem > size - m.offset())
    return format("it reaches past the end of buffer %u (%llu bytes)",
                  m.buffer(), static_cast<unsigned long long>(size));
  return {};
}

/// Why a library call cannot run over `kernel`'s arguments; empty if it can.
std::string verifyLibraryCall(const fb::LibraryCall &l, const fb::Kernel &kernel,
                              const fb::Plan &plan) {
  if (l.kind() != fb::LibraryKind::CublasLtMatmul)
    return format("unknown library kind %u", unsigned(l.kind()));
  const fb::DType t = l.dtype();
  if (t != fb::DType::F16 && t != fb::DType::BF16 && t != fb::DType::F32)
    return format("a cuBLASLt matmul of dtype %u (F16, BF16 or F32 only)",
                  unsigned(t));
  if (l.tf32() && t != fb::DType::F32)
    return "tf32 is set on a matmul that is not F32";
  if (unsigned(l.epilogue()) > unsigned(fb::MatmulEpilogue::GeluTanhBias))
    return format("unknown epilogue %u", unsigned(l.epilogue()));
  const uint64_t lim = uint64_t(1) << 31;
  if (l.m() < 1 || l.n() < 1 || l.k() < 1 || l.m() >= lim || l.n() >= lim ||
      l.k() >= lim || l.batch() < 1 || l.batch() >= lim)
    return format("extents m %llu, n %llu, k %llu, batch %llu are out of "
                  "range (1..2^31)",
                  (unsigned long long)l.m(), (unsigned long long)l.n(),
                  (unsigned long long)l.k(), (unsigned long long)l.batch());
  const bool bias = l.epilogue() == fb::MatmulEpilogue::Bias ||
                    l.epilogue() == fb::MatmulEpilogue::ReluBias ||
                    l.epilogue() == fb::MatmulEpilogue::GeluTanhBias;
  const uint32_t numArgs = kernel.args() ? kernel.args()->size() : 0;
  const uint64_t elt = dtypeSize(t);
  // Every operand must lie inside its buffer: (rows, cols, ld, stride) of
  // the column-major matrix, or a vector of `rows` for the bias.
  struct Operand {
    const char *name;
    int32_t index;
    bool needed;
    uint64_t rows, cols, ld, stride;
  };
  const Operand ops[] = {
      {"A", l.a(), true, l.trans_a() ? l.k() : l.m(),
       l.trans_a() ? l.m() : l.k(), l.lda(), l.stride_a()},
      {"B", l.b(), true, l.trans_b() ? l.n() : l.k(),
       l.trans_b() ? l.k() : l.n(), l.ldb(), l.stride_b()},
      {"C", l.c(), l.beta() != 0, l.m(), l.n(), l.ldc(), l.stride_c()},
      {"D", l.d(), true, l.m(), l.n(), l.ldc(), l.stride_c()},
      {"bias", l.bias(), bias, l.m(), 1, l.m(), 0},
  };
  for (const Operand &o : ops) {
    if (o.index < 0) {
      if (o.needed)
        return format("operand %s is missing", o.name);
      continue;
    }
    if (!o.needed)
      return format("operand %s is given but not used", o.name);
    if (uint32_t(o.index) >= numArgs)
      return format("operand %s is argument %d of %u", o.name, o.index,
                    numArgs);
    const fb::Arg *arg = kernel.args()->Get(uint32_t(o.index));
    if (arg->kind() != fb::ArgKind::BufferRef)
      return format("operand %s (argument %d) is not a buffer reference",
                    o.name, o.index);
    if (o.ld < o.rows || o.ld >= lim || o.stride >= (uint64_t(1) << 40))
      return format("operand %s: leading dimension %llu is less than its "
                    "%llu rows or out of range",
                    o.name, (unsigned long long)o.ld,
                    (unsigned long long)o.rows);
    const uint64_t last = (l.batch() - 1) * o.stride + (o.cols - 1) * o.ld +
                          o.rows;
    const uint64_t bytes = last * elt;
    const uint64_t size = plan.buffers()->Get(arg->buffer())->size();
    if (arg->value() > size || bytes > size - arg->value())
      return format("operand %s needs %llu bytes from offset %llu of buffer "
                    "%u, which has %llu",
                    o.name, (unsigned long long)bytes,
                    (unsigned long long)arg->value(), arg->buffer(),
                    (unsigned long long)size);
  }
  if (l.alignment() == 0 || (l.alignment() & (l.alignment() - 1)) ||
      l.alignment() > 256)
    return format("alignment %u is not a power of two up to 256",
                  l.alignment());
  if (l.workspace_bytes() > (uint64_t(1) << 32))
    return format("workspace of %llu bytes exceeds 4 GiB",
                  (unsigned long long)l.workspace_bytes());
  return "";
}

kiln_status verifyKernels(const EngineView &view, const fb::Plan *plan,
                          const std::string &where) {
  const std::string &source = view.source;
  uint32_t numImages = plan->images() ? plan->images()->size() : 0;
  uint32_t numBuffers = plan->buffers() ? plan->buffers()->size() : 0;
  uint32_t count = plan->kernels() ? plan->kernels()->size() : 0;
  for (uint32_t k = 0; k < count; ++k) {
    const fb::Kernel *kernel = plan->kernels()->Get(k);
    std::string name = format("%s: kernel %u", where.c_str(), k);
    if (!isCleanString(kernel->name()) || kernel->name()->size() == 0)
      return invalid(source, name + ": name is empty or holds a NUL");
    name += " '" + printable(kernel->name()->str()) + "'";
    if (!isCleanString(kernel->entry()) || kernel->entry()->size() == 0)
      return invalid(source, name + ": entry symbol is empty or holds a NUL");
    if (!kernel->library() && kernel->image() >= numImages)
      return invalid(source, name + format(": image %u does not exist (the "
                                           "plan has %u)",
                                           kernel->image(), numImages));
    const fb::Dim3 *g = kernel->grid(), *b = kernel->block();
    if (g->x() < 1 || g->x() > kMaxGridX || g->y() < 1 || g->y() > kMaxGridYZ ||
        g->z() < 1 || g->z() > kMaxGridYZ)
      return invalid(
          source, name + format(": grid %ux%ux%u is out of range (x 1..%u, "
                                "y and z 1..%u)",
                                g->x(), g->y(), g->z(), kMaxGridX, kMaxGridYZ));
    uint64_t threads = uint64_t(b->x()) * b->y() * b->z();
    if (b->x() < 1 || b->x() > kMaxBlockX || b->y() < 1 ||
        b->y() > kMaxBlockY || b->z() < 1 || b->z() > kMaxBlockZ ||
        threads > kMaxThreadsPerBlock)
      return invalid(source,
                     name + format(": block %ux%ux%u is out of range (x, y "
                                   "1..%u, z 1..%u, at most %u threads)",
                                   b->x(), b->y(), b->z(), kMaxBlockX,
                                   kMaxBlockZ, kMaxThreadsPerBlock));
    if (kernel->dynamic_shared_bytes() > kMaxDynamicSharedBytes)
      return invalid(source,
                     name + format(": dynamic_shared_bytes %u exceeds %u",
                                   kernel->dynamic_shared_bytes(),
                                   kMaxDynamicSharedBytes));
    // Every tensor map is encoded when a context is made, referenced or not.
    if (const auto *maps = kernel->tensor_maps())
      for (uint32_t j = 0; j < maps->size(); ++j) {
        std::string why = verifyTensorMap(*maps->Get(j), *plan);
        if (!why.empty())
          return invalid(source, name + format(": tensor map %u: ", j) + why);
      }
    uint32_t numArgs = kernel->args() ? kernel->args()->size() : 0;
    if (numArgs && !isAligned(kernel->args()->data(), alignof(fb::Arg)))
      return invalid(source, name + ": argument vector is misaligned");
    if (numArgs > kMaxKernelArgs)
      return invalid(source, name + format(": %u arguments exceed %u", numArgs,
                                           kMaxKernelArgs));
    uint64_t paramBytes = 0;
    for (uint32_t a = 0; a < numArgs; ++a) {
      const fb::Arg *arg = kernel->args()->Get(a);
      std::string argName = name + format(": argument %u", a);
      size_t width = 0;
      switch (arg->kind()) {
      case fb::ArgKind::BufferRef: {
        if (arg->scalar_type() != fb::ScalarType::None)
          return invalid(source, argName + ": a buffer reference with a "
                                           "scalar type");
        if (arg->buffer() >= numBuffers)
          return invalid(source,
                         argName + format(": buffer %u does not exist (the "
                                          "plan has %u)",
                                          arg->buffer(), numBuffers));
        uint64_t size = plan->buffers()->Get(arg->buffer())->size();
        if (arg->value() > size)
          return invalid(
              source,
              argName + format(": byte offset %llu is past the end "
                               "of buffer %u (%llu bytes)",
                               static_cast<unsigned long long>(arg->value()),
                               arg->buffer(),
                               static_cast<unsigned long long>(size)));
        width = sizeof(uint64_t);
        break;
      }
      case fb::ArgKind::Scalar:
        width = scalarSize(arg->scalar_type());
        if (width == 0)
          return invalid(source,
                         argName + format(": scalar type %u is not "
                                          "valid",
                                          unsigned(arg->scalar_type())));
        if (arg->buffer() != 0)
          return invalid(source, argName + ": a scalar with a buffer index");
        if (width < 8 && (arg->value() >> (8 * width)) != 0)
          return invalid(
              source,
              argName + format(": value 0x%llx has bits above its "
                               "%zu-byte type",
                               static_cast<unsigned long long>(arg->value()),
                               width));
        break;
      case fb::ArgKind::TensorMap: {
        if (arg->scalar_type() != fb::ScalarType::None || arg->buffer() != 0)
          return invalid(source, argName + ": a tensor map with a scalar type "
                                           "or buffer index");
        const auto *maps = kernel->tensor_maps();
        if (!maps || arg->value() >= maps->size())
          return invalid(source,
                         argName + format(": tensor map %llu does not exist "
                                          "(the kernel has %u)",
                                          static_cast<unsigned long long>(
                                              arg->value()),
                                          maps ? maps->size() : 0u));
        width = 128; // sizeof(CUtensorMap); its maps were checked above
        break;
      }
      default:
        return invalid(source, argName + format(": unknown argument kind %u",
                                                unsigned(arg->kind())));
      }
      paramBytes = (paramBytes + width - 1) / width * width + width;
    }
    // After the arguments: the call's operands index them.
    if (const fb::LibraryCall *l = kernel->library()) {
      if (view.header.format_version < KILN_ENGINE_FORMAT_LIBRARY_CALLS)
        return invalid(source, name + newerPart(view, "a library call",
                                                "library calls",
                                                KILN_ENGINE_FORMAT_LIBRARY_CALLS));
      std::string why = verifyLibraryCall(*l, *kernel, *plan);
      if (!why.empty())
        return invalid(source, name + ": library call: " + why);
    }
    if (paramBytes > kMaxKernelParamBytes)
      return invalid(
          source,
          name + format(": arguments take %llu bytes, more than the "
                        "%llu a launch can pass",
                        static_cast<unsigned long long>(paramBytes),
                        static_cast<unsigned long long>(kMaxKernelParamBytes)));
  }
  uint32_t steps = plan->launch_order() ? plan->launch_order()->size() : 0;
  for (uint32_t i = 0; i < steps; ++i)
    if (plan->launch_order()->Get(i) >= count)
      return invalid(source,
                     where + format(": launch_order[%u] is kernel %u, which "
                                    "does not exist (the plan has %u)",
                                    i, plan->launch_order()->Get(i), count));
  return nullptr;
}

kiln_status verifyPlan(EngineView &view, uint32_t sectionIndex,
                       std::vector<bool> &seenRanks) {
  const std::string &source = view.source;
  const Section &s = view.sections[sectionIndex];
  std::string where = sectionName(view, sectionIndex);
  if (!verifyFlatBuffer<fb::Plan>(s, "KLNP"))
    return invalid(source, where + ": not a valid plan FlatBuffer (the "
                                   "FlatBuffers verifier rejects it)");
  const fb::Plan *plan =
      flatbuffers::GetRoot<fb::Plan>(static_cast<const void *>(s.data));
  uint32_t ranks = view.manifest->tensor_parallel_ranks();
  if (plan->rank() >= ranks)
    return invalid(source, where + format(": rank %u but the manifest has %u "
                                          "tensor-parallel ranks",
                                          plan->rank(), ranks));
  if (seenRanks[plan->rank()])
    return invalid(source,
                   where + format(": a second plan for rank %u", plan->rank()));
  seenRanks[plan->rank()] = true;
  where += format(" rank %u", plan->rank());
  if (plan->arena_size() > kMaxBytes)
    return invalid(source, where + format(": arena_size %llu exceeds 2^48",
                                          static_cast<unsigned long long>(
                                              plan->arena_size())));
  KILN_RETURN_IF_ERROR(verifyBuffers(view, plan, where));
  KILN_RETURN_IF_ERROR(verifyImages(view, plan, where));
  KILN_RETURN_IF_ERROR(verifyKernels(view, plan, where));
  view.plans[plan->rank()] = plan;
  view.planSections[plan->rank()] = sectionIndex;
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

size_t dtypeSize(fb::DType dtype) {
  return kiln_dtype_size(static_cast<kiln_dtype>(dtype));
}

size_t scalarSize(fb::ScalarType type) {
  switch (type) {
  case fb::ScalarType::I8:
  case fb::ScalarType::U8:
    return 1;
  case fb::ScalarType::I16:
  case fb::ScalarType::U16:
  case fb::ScalarType::F16:
  case fb::ScalarType::BF16:
    return 2;
  case fb::ScalarType::I32:
  case fb::ScalarType::U32:
  case fb::ScalarType::F32:
    return 4;
  case fb::ScalarType::I64:
  case fb::ScalarType::U64:
  case fb::ScalarType::F64:
    return 8;
  default:
    return 0;
  }
}

bool tensorBytes(const fb::Tensor &tensor, uint64_t &bytes) {
  uint64_t n = dtypeSize(tensor.dtype());
  if (n == 0)
    return false;
  if (tensor.shape()) {
    for (int64_t d : *tensor.shape()) {
      if (d < 0)
        return false;
      if (d != 0 && n > kMaxBytes / uint64_t(d))
        return false;
      n *= uint64_t(d);
    }
  }
  bytes = n;
  return n <= kMaxBytes;
}

std::string describeTensor(const fb::Tensor &tensor) {
  std::string out = kiln_dtype_name(static_cast<kiln_dtype>(tensor.dtype()));
  out += "[";
  if (tensor.shape()) {
    for (uint32_t i = 0; i < tensor.shape()->size(); ++i) {
      if (i)
        out += "x";
      out += std::to_string(tensor.shape()->Get(i));
    }
  }
  return out + "]";
}

std::string sectionName(const EngineView &view, uint32_t index) {
  std::string out = format("section %u", index);
  if (index < view.sections.size())
    out += std::string(" (") +
           kiln_section_kind_name(view.sections[index].entry.kind) + ")";
  return out;
}

std::string printable(const std::string &text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f)
      out += format("\\x%02x", c);
    else
      out += char(c);
  }
  return out;
}

std::string fixedString(const char *field, size_t size) {
  size_t len = 0;
  while (len < size && field[len] != '\0')
    ++len;
  return std::string(field, len);
}

kiln_status verifyEngineContents(EngineView &view) {
  const std::string &source = view.source;
  std::vector<uint32_t> manifests, plans;
  for (uint32_t i = 0; i < view.sections.size(); ++i) {
    if (view.sections[i].entry.kind == KILN_SECTION_KIND_MANIFEST)
      manifests.push_back(i);
    else if (view.sections[i].entry.kind == KILN_SECTION_KIND_PLAN)
      plans.push_back(i);
  }
  if (manifests.size() != 1)
    return invalid(source, format("%zu manifest sections (needs exactly one)",
                                  manifests.size()));
  view.manifestSection = manifests[0];
  KILN_RETURN_IF_ERROR(verifyManifest(view));

  uint32_t ranks = view.manifest->tensor_parallel_ranks();
  if (plans.size() != ranks)
    return invalid(source,
                   format("%zu plan sections but the manifest has %u "
                          "tensor-parallel ranks (needs one plan per rank)",
                          plans.size(), ranks));
  view.plans.assign(ranks, nullptr);
  view.planSections.assign(ranks, 0);
  std::vector<bool> seenRanks(ranks, false);
  for (uint32_t index : plans)
    KILN_RETURN_IF_ERROR(verifyPlan(view, index, seenRanks));
  return nullptr;
}

kiln_status verifyEngineImage(const uint8_t *data, size_t size,
                              const std::string &source, EngineView &view) {
  view = EngineView();
  view.source = source;
  if (!data && size != 0)
    return makeStatus(KILN_INVALID_ARGUMENT,
                      "engine '" + source + "': data is NULL");
  static const uint8_t kEmpty[1] = {0};
  if (!data)
    data = kEmpty;
  KILN_RETURN_IF_ERROR(verifyHeader(data, size, source, view.header));
  KILN_RETURN_IF_ERROR(verifySections(data, view));
  return verifyEngineContents(view);
}

engine::LibraryCallSpec libraryCallOf(const fb::LibraryCall &l) {
  engine::LibraryCallSpec c;
  c.dtype = static_cast<kiln_dtype>(l.dtype());
  c.tf32 = l.tf32();
  c.m = l.m();
  c.n = l.n();
  c.k = l.k();
  c.transA = l.trans_a();
  c.transB = l.trans_b();
  c.lda = l.lda();
  c.ldb = l.ldb();
  c.ldc = l.ldc();
  c.batch = l.batch();
  c.strideA = l.stride_a();
  c.strideB = l.stride_b();
  c.strideC = l.stride_c();
  c.alpha = l.alpha();
  c.beta = l.beta();
  c.epilogue = static_cast<engine::MatmulEpilogue>(l.epilogue());
  c.a = l.a();
  c.b = l.b();
  c.c = l.c();
  c.d = l.d();
  c.bias = l.bias();
  c.algo = l.algo();
  c.workspaceBytes = l.workspace_bytes();
  c.alignment = l.alignment();
  c.libraryVersion = l.library_version();
  return c;
}

} // namespace kiln::rt

extern "C" kiln_status kiln_engine_verify(const void *data, size_t size,
                                          const char *source) {
  try {
    kiln::rt::EngineView view;
    return kiln::rt::verifyEngineImage(static_cast<const uint8_t *>(data), size,
                                       source ? source : "<memory>", view);
  } catch (...) {
    return kiln::rt::statusFromException("kiln_engine_verify");
  }
}
