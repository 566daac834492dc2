// Engine format v1 primitives: XXH64 checksums and the header/table codecs.
#include "kiln/engine_format.h"

#include <cstring>

namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// Little-endian loads and stores that neither assume alignment nor host order.
inline uint64_t load64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}
inline uint32_t load32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
inline void store64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = uint8_t(v >> (8 * i));
}
inline void store32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

inline uint64_t xxRound(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}

inline uint64_t xxMerge(uint64_t acc, uint64_t value) {
  acc ^= xxRound(0, value);
  return acc * kPrime1 + kPrime4;
}

// XXH64 as specified at https://github.com/Cyan4973/xxHash
// (doc/xxhash_spec.md).
uint64_t xxh64(const uint8_t *p, size_t len, uint64_t seed) {
  const uint8_t *end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + kPrime1 + kPrime2, v2 = seed + kPrime2, v3 = seed,
             v4 = seed - kPrime1;
    const uint8_t *limit = end - 32;
    do {
      v1 = xxRound(v1, load64(p));
      v2 = xxRound(v2, load64(p + 8));
      v3 = xxRound(v3, load64(p + 16));
      v4 = xxRound(v4, load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = xxMerge(h, v1);
    h = xxMerge(h, v2);
    h = xxMerge(h, v3);
    h = xxMerge(h, v4);
  } else {
    h = seed + kPrime5;
  }
  h += uint64_t(len);
  while (end - p >= 8) {
    h ^= xxRound(0, load64(p));
    h = rotl(h, 27) * kPrime1 + kPrime4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= uint64_t(load32(p)) * kPrime1;
    h = rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  while (p < end) {
    h ^= uint64_t(*p) * kPrime5;
    h = rotl(h, 11) * kPrime1;
    ++p;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

} // namespace

extern "C" {

uint64_t kiln_engine_checksum(const void *data, size_t size) {
  return xxh64(static_cast<const uint8_t *>(data), data ? size : 0, 0);
}

const char *kiln_section_kind_name(uint32_t kind) {
  switch (kind) {
  case KILN_SECTION_KIND_MANIFEST:
    return "manifest";
  case KILN_SECTION_KIND_PLAN:
    return "plan";
  case KILN_SECTION_KIND_CUBIN:
    return "cubin";
  case KILN_SECTION_KIND_PTX:
    return "ptx";
  case KILN_SECTION_KIND_WEIGHTS:
    return "weights";
  case KILN_SECTION_KIND_EXTRA:
    return "extra";
  default:
    return "unknown";
  }
}

void kiln_engine_decode_header(const uint8_t *b, kiln_engine_header *h) {
  std::memcpy(h->magic, b + KILN_HEADER_MAGIC, KILN_ENGINE_MAGIC_SIZE);
  h->format_version = load32(b + KILN_HEADER_FORMAT_VERSION);
  h->header_size = load32(b + KILN_HEADER_HEADER_SIZE);
  std::memcpy(h->compiler_version, b + KILN_HEADER_COMPILER_VERSION,
              KILN_ENGINE_COMPILER_VERSION_SIZE);
  std::memcpy(h->target_arch, b + KILN_HEADER_TARGET_ARCH,
              KILN_ENGINE_TARGET_ARCH_SIZE);
  h->section_count = load32(b + KILN_HEADER_SECTION_COUNT);
  h->flags = load32(b + KILN_HEADER_FLAGS);
  h->section_table_offset = load64(b + KILN_HEADER_SECTION_TABLE_OFFSET);
  h->file_size = load64(b + KILN_HEADER_FILE_SIZE);
  h->section_table_checksum = load64(b + KILN_HEADER_SECTION_TABLE_CHECKSUM);
  std::memcpy(h->reserved, b + KILN_HEADER_RESERVED, KILN_HEADER_RESERVED_SIZE);
  h->header_checksum = load64(b + KILN_HEADER_CHECKSUM);
}

void kiln_engine_encode_header(const kiln_engine_header *h, uint8_t *b) {
  std::memcpy(b + KILN_HEADER_MAGIC, h->magic, KILN_ENGINE_MAGIC_SIZE);
  store32(b + KILN_HEADER_FORMAT_VERSION, h->format_version);
  store32(b + KILN_HEADER_HEADER_SIZE, h->header_size);
  std::memcpy(b + KILN_HEADER_COMPILER_VERSION, h->compiler_version,
              KILN_ENGINE_COMPILER_VERSION_SIZE);
  std::memcpy(b + KILN_HEADER_TARGET_ARCH, h->target_arch,
              KILN_ENGINE_TARGET_ARCH_SIZE);
  store32(b + KILN_HEADER_SECTION_COUNT, h->section_count);
  store32(b + KILN_HEADER_FLAGS, h->flags);
  store64(b + KILN_HEADER_SECTION_TABLE_OFFSET, h->section_table_offset);
  store64(b + KILN_HEADER_FILE_SIZE, h->file_size);
  store64(b + KILN_HEADER_SECTION_TABLE_CHECKSUM, h->section_table_checksum);
  std::memcpy(b + KILN_HEADER_RESERVED, h->reserved, KILN_HEADER_RESERVED_SIZE);
  store64(b + KILN_HEADER_CHECKSUM, h->header_checksum);
}

void kiln_engine_decode_section_entry(const uint8_t *b, kiln_section_entry *e) {
  e->kind = load32(b + KILN_SECTION_KIND);
  e->flags = load32(b + KILN_SECTION_FLAGS);
  e->offset = load64(b + KILN_SECTION_OFFSET);
  e->size = load64(b + KILN_SECTION_SIZE);
  e->alignment = load64(b + KILN_SECTION_ALIGNMENT);
  e->checksum = load64(b + KILN_SECTION_CHECKSUM);
  e->reserved = load64(b + KILN_SECTION_RESERVED);
}

void kiln_engine_encode_section_entry(const kiln_section_entry *e, uint8_t *b) {
  store32(b + KILN_SECTION_KIND, e->kind);
  store32(b + KILN_SECTION_FLAGS, e->flags);
  store64(b + KILN_SECTION_OFFSET, e->offset);
  store64(b + KILN_SECTION_SIZE, e->size);
  store64(b + KILN_SECTION_ALIGNMENT, e->alignment);
  store64(b + KILN_SECTION_CHECKSUM, e->checksum);
  store64(b + KILN_SECTION_RESERVED, e->reserved);
}

uint64_t kiln_engine_header_checksum(const uint8_t *bytes) {
  return kiln_engine_checksum(bytes, KILN_HEADER_CHECKSUM);
}

} // extern "C"
