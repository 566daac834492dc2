/* Kiln engine file format v1: byte layout constants, decoded structs, codecs.
 *
 * An engine file is, with every integer little-endian:
 *
 *   offset 0    header (128 bytes, below)
 *   then        section table: section_count entries of 48 bytes, 8-aligned
 *   then        sections, each at a multiple of its alignment, in any order,
 *               never overlapping each other, the header or the table
 *
 * Every byte of the file belongs to the header, the table or a section, or is
 * zero padding; so together with the checksums any change of a byte is caught.
 *
 * Header:
 *
 *   off  size  field
 *     0     8  magic "KILNENG\0"
 *     8     4  format_version (u32)           this file:
 * KILN_ENGINE_FORMAT_VERSION 12     4  header_size (u32)              128 in v1
 *    16    32  compiler_version               NUL-padded, at least one NUL
 *    48    16  target_arch                    "sm_90\0...", NUL-padded
 *    64     4  section_count (u32)            1..KILN_ENGINE_MAX_SECTIONS
 *    68     4  flags (u32)                    0 in v1
 *    72     8  section_table_offset (u64)     multiple of 8, >= 128
 *    80     8  file_size (u64)                the exact file size
 *    88     8  section_table_checksum (u64)   checksum of the table's bytes
 *    96    24  reserved                       zero
 *   120     8  header_checksum (u64)          checksum of bytes [0, 120)
 *
 * Section table entry:
 *
 *   off  size  field
 *     0     4  kind (u32)                     kiln_section_kind
 *     4     4  flags (u32)                    0 in v1
 *     8     8  offset (u64)                   from the start of the file
 *    16     8  size (u64)                     bytes
 *    24     8  alignment (u64)                power of two; offset % alignment
 * == 0 32     8  checksum (u64)                 checksum of the section's bytes
 *    40     8  reserved                       zero
 *
 * The checksum is XXH64 with seed 0 (kiln_engine_checksum), which is fast
 * enough to check multi-gigabyte weight sections on every load.
 *
 * Sections: exactly one manifest; one plan per tensor-parallel rank; any
 * number of cubin, PTX (NUL-terminated text), weight (alignment >= 256, so
 * they upload directly) and extra sections. Manifest and plan are FlatBuffers
 * (runtime/schema/engine.fbs) aligned to at least 8.
 */
#ifndef KILN_ENGINE_FORMAT_H
#define KILN_ENGINE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KILN_ENGINE_MAGIC "KILNENG" /* plus its NUL: 8 bytes */
#define KILN_ENGINE_MAGIC_SIZE 8u
/* The newest format this runtime reads. A writer writes the oldest version
 * that holds its engine: 1, or 2 when a plan has a library call (a kernel
 * entry with `library` set, e.g. a cuBLASLt matmul), which a version-1
 * runtime would otherwise ignore and launch as a kernel, or 3 when a plan
 * has a Workspace buffer (a zeroed per-context kernel workspace: stream-K
 * matmuls), which older runtimes do not allocate. */
#define KILN_ENGINE_FORMAT_VERSION 3u
#define KILN_ENGINE_FORMAT_LIBRARY_CALLS 2u
#define KILN_ENGINE_FORMAT_WORKSPACE 3u
#define KILN_ENGINE_HEADER_SIZE 128u
#define KILN_ENGINE_SECTION_ENTRY_SIZE 48u
#define KILN_ENGINE_COMPILER_VERSION_SIZE 32u
#define KILN_ENGINE_TARGET_ARCH_SIZE 16u
#define KILN_ENGINE_MAX_SECTIONS 65536u
/* Alignment of the section table and least alignment of FlatBuffer sections. */
#define KILN_ENGINE_TABLE_ALIGNMENT 8u
/* Least alignment of weight sections: what cudaMalloc guarantees, so a weight
 * section can be copied to (or mapped as) device memory without shifting. */
#define KILN_ENGINE_WEIGHT_ALIGNMENT 256u
/* Largest section alignment a reader accepts. */
#define KILN_ENGINE_MAX_ALIGNMENT 65536u

/* Byte offsets of the header fields. */
enum {
  KILN_HEADER_MAGIC = 0,
  KILN_HEADER_FORMAT_VERSION = 8,
  KILN_HEADER_HEADER_SIZE = 12,
  KILN_HEADER_COMPILER_VERSION = 16,
  KILN_HEADER_TARGET_ARCH = 48,
  KILN_HEADER_SECTION_COUNT = 64,
  KILN_HEADER_FLAGS = 68,
  KILN_HEADER_SECTION_TABLE_OFFSET = 72,
  KILN_HEADER_FILE_SIZE = 80,
  KILN_HEADER_SECTION_TABLE_CHECKSUM = 88,
  KILN_HEADER_RESERVED = 96,
  KILN_HEADER_RESERVED_SIZE = 24,
  KILN_HEADER_CHECKSUM = 120
};

/* Byte offsets of the fields of a section table entry. */
enum {
  KILN_SECTION_KIND = 0,
  KILN_SECTION_FLAGS = 4,
  KILN_SECTION_OFFSET = 8,
  KILN_SECTION_SIZE = 16,
  KILN_SECTION_ALIGNMENT = 24,
  KILN_SECTION_CHECKSUM = 32,
  KILN_SECTION_RESERVED = 40
};

typedef enum kiln_section_kind {
  KILN_SECTION_KIND_MANIFEST = 1, /* FlatBuffer kiln.fb.Manifest, id "KLNM" */
  KILN_SECTION_KIND_PLAN = 2,     /* FlatBuffer kiln.fb.Plan, id "KLNP" */
  KILN_SECTION_KIND_CUBIN = 3,    /* ELF cubin for the target arch */
  KILN_SECTION_KIND_PTX = 4,      /* PTX text ending in NUL */
  KILN_SECTION_KIND_WEIGHTS = 5,  /* raw bytes, alignment >= 256 */
  KILN_SECTION_KIND_EXTRA = 6     /* opaque bytes named in Manifest.extras */
} kiln_section_kind;

/* "manifest", "plan", ...; "unknown" for other values. */
KILN_API const char *kiln_section_kind_name(uint32_t kind);

/* The header, decoded. Strings are NUL-padded exactly as in the file. */
typedef struct kiln_engine_header {
  char magic[KILN_ENGINE_MAGIC_SIZE];
  uint32_t format_version;
  uint32_t header_size;
  char compiler_version[KILN_ENGINE_COMPILER_VERSION_SIZE];
  char target_arch[KILN_ENGINE_TARGET_ARCH_SIZE];
  uint32_t section_count;
  uint32_t flags;
  uint64_t section_table_offset;
  uint64_t file_size;
  uint64_t section_table_checksum;
  uint8_t reserved[KILN_HEADER_RESERVED_SIZE];
  uint64_t header_checksum;
} kiln_engine_header;

typedef struct kiln_section_entry {
  uint32_t kind;
  uint32_t flags;
  uint64_t offset;
  uint64_t size;
  uint64_t alignment;
  uint64_t checksum;
  uint64_t reserved;
} kiln_section_entry;

/* XXH64 (seed 0) of `size` bytes: the checksum of headers, tables, sections. */
KILN_API uint64_t kiln_engine_checksum(const void *data, size_t size);

/* Plain codecs: no validation, every field as it is. */
KILN_API void
kiln_engine_decode_header(const uint8_t bytes[KILN_ENGINE_HEADER_SIZE],
                          kiln_engine_header *header);
KILN_API void kiln_engine_encode_header(const kiln_engine_header *header,
                                        uint8_t bytes[KILN_ENGINE_HEADER_SIZE]);
KILN_API void kiln_engine_decode_section_entry(
    const uint8_t bytes[KILN_ENGINE_SECTION_ENTRY_SIZE],
    kiln_section_entry *entry);
KILN_API void
kiln_engine_encode_section_entry(const kiln_section_entry *entry,
                                 uint8_t bytes[KILN_ENGINE_SECTION_ENTRY_SIZE]);
/* Checksum of an encoded header: of bytes [0, KILN_HEADER_CHECKSUM). */
KILN_API uint64_t
kiln_engine_header_checksum(const uint8_t bytes[KILN_ENGINE_HEADER_SIZE]);

/* Verifies an engine image completely (the same checks as kiln_engine_load)
 * without keeping it. `source` names it in messages (a path); NULL: "<memory>".
 */
KILN_API kiln_status kiln_engine_verify(const void *data, size_t size,
                                        const char *source);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_ENGINE_FORMAT_H */
