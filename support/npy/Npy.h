// numpy .npy / .npz reading and writing for Kiln (no MLIR, no LLVM).
//
// Arrays hold raw little-endian bytes in C order, exactly as they sit in a
// .npy file, so the tools can hand them to the runtime without conversion.
// Every function reports failure by returning false and filling `error`; bad
// input never crashes, throws or triggers an allocation larger than what the
// input itself justifies.
#ifndef KILN_SUPPORT_NPY_NPY_H
#define KILN_SUPPORT_NPY_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::npy {

/// One numpy array.
struct Array {
  /// numpy type string without the byte-order character: "f2", "f4", "f8",
  /// "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1", "c8", "c16".
  std::string dtype;
  /// Dimensions, outermost first; empty for a scalar (numpy shape `()`).
  std::vector<int64_t> shape;
  /// numElements() * elementSize() bytes, little-endian, C order.
  std::vector<uint8_t> data;

  /// Product of `shape` (1 for a scalar); -1 when a dimension is negative or
  /// the product overflows int64_t.
  int64_t numElements() const;
  /// Bytes per element of `dtype`; 0 when the dtype is not supported.
  size_t elementSize() const;
};

/// Bytes per element of a dtype string as in Array::dtype; 0 if unsupported.
size_t dtypeSize(const std::string &dtype);

/// Named arrays in file order; names are the .npz member names without ".npy".
using NamedArrays = std::vector<std::pair<std::string, Array>>;

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// Parses a complete .npy image (format versions 1.0, 2.0 and 3.0). The data
/// after the header must be exactly numElements() * elementSize() bytes.
bool parseNpy(const uint8_t *bytes, size_t size, Array &out,
              std::string &error);

/// Serializes `array` as format 1.0 (2.0 when the header exceeds 65535 bytes),
/// byte-identical to numpy's np.save for the same array.
bool serializeNpy(const Array &array, std::vector<uint8_t> &out,
                  std::string &error);

/// Reads a .npy file; errors start with the path.
bool readNpy(const std::string &path, Array &out, std::string &error);

/// Writes a .npy file; on failure the partial file is removed.
bool writeNpy(const std::string &path, const Array &array, std::string &error);

//===----------------------------------------------------------------------===//
// .npz (zip of .npy members, as written by np.savez / np.savez_compressed)
//===----------------------------------------------------------------------===//

/// Parses a complete .npz image: stored and deflated members, Zip64, CRC32
/// checked. A member named "x.npy" becomes array "x"; other names are kept as
/// they are. Directory entries are skipped; duplicate names are an error.
bool parseNpz(const uint8_t *bytes, size_t size, NamedArrays &out,
              std::string &error);

/// Reads a .npz file without loading it whole: only the central directory and
/// one member at a time are held. Errors start with the path.
bool readNpz(const std::string &path, NamedArrays &out, std::string &error);

struct NpzWriteOptions {
  /// Write Zip64 extra fields and the Zip64 end records even when no size or
  /// offset needs them (they are used automatically past 4 GiB - 1). For
  /// tests of the Zip64 paths.
  bool forceZip64 = false;
};

/// Serializes an uncompressed .npz that np.load reads. Member names are
/// "<name>.npy"; timestamps are a constant, so equal input gives equal bytes.
bool serializeNpz(const NamedArrays &arrays, std::vector<uint8_t> &out,
                  std::string &error, const NpzWriteOptions &options = {});

/// Writes an uncompressed .npz file, streaming each array once; on failure the
/// partial file is removed.
bool writeNpz(const std::string &path, const NamedArrays &arrays,
              std::string &error, const NpzWriteOptions &options = {});

} // namespace kiln::npy

#endif // KILN_SUPPORT_NPY_NPY_H
