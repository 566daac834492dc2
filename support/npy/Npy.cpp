// numpy .npy / .npz reading and writing: header dict parser, zip reader
// (stored + deflate, Zip64) and stored zip writer.
#include "support/npy/Npy.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>

#include <sys/stat.h>

namespace kiln::npy {
namespace {

//===----------------------------------------------------------------------===//
// Little helpers
//===----------------------------------------------------------------------===//

// Byte-wise little-endian access: the file formats are little-endian whatever
// the host, and the inputs may be unaligned.
uint16_t le16(const uint8_t *p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t le32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}
uint64_t le64(const uint8_t *p) {
  return uint64_t(le32(p)) | uint64_t(le32(p + 4)) << 32;
}
void put16(std::vector<uint8_t> &b, uint16_t v) {
  b.push_back(uint8_t(v));
  b.push_back(uint8_t(v >> 8));
}
void put32(std::vector<uint8_t> &b, uint32_t v) {
  put16(b, uint16_t(v));
  put16(b, uint16_t(v >> 16));
}
void put64(std::vector<uint8_t> &b, uint64_t v) {
  put32(b, uint32_t(v));
  put32(b, uint32_t(v >> 32));
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

/// Number of bytes the elements of `shape` need at `itemSize` bytes each, or
/// false when a dimension is negative or the size does not fit in uint64_t.
bool byteSizeOf(const std::vector<int64_t> &shape, size_t itemSize,
                uint64_t &bytes) {
  uint64_t n = itemSize;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d == 0)
      zero = true;
  }
  if (zero) {
    bytes = 0;
    return true;
  }
  for (int64_t d : shape) {
    if (uint64_t(d) > std::numeric_limits<uint64_t>::max() / n)
      return false;
    n *= uint64_t(d);
  }
  bytes = n;
  return true;
}

// crc32_z takes a size_t length, so multi-GiB members need no chunking. It
// returns the initial value for a null pointer, which an empty vector gives.
uint32_t crcUpdate(uint32_t crc, const uint8_t *p, size_t n) {
  return n == 0 ? crc : uint32_t(crc32_z(crc, p, n));
}

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

struct DtypeInfo {
  const char *name;
  size_t size;
};
constexpr DtypeInfo kDtypes[] = {{"b1", 1}, {"i1", 1},  {"u1", 1}, {"i2", 2},
                                 {"u2", 2}, {"f2", 2},  {"i4", 4}, {"u4", 4},
                                 {"f4", 4}, {"i8", 8},  {"u8", 8}, {"f8", 8},
                                 {"c8", 8}, {"c16", 16},
                                 // Raw 2-byte records: bfloat16 as ml_dtypes saves it.
                                 {"V2", 2}};

//===----------------------------------------------------------------------===//
// .npy header
//===----------------------------------------------------------------------===//

constexpr uint8_t kNpyMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/// Recursive-descent parser for the Python dict literal of a .npy header,
/// restricted to what the format uses: string keys, and string, bool and
/// int-tuple values.
class HeaderParser {
public:
  HeaderParser(const char *begin, const char *end)
      : begin(begin), p(begin), end(end) {}

  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'", error);
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key, error))
        return false;
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'", error);
      skipSpace();
      bool *seen = nullptr;
      bool ok;
      if (key == "descr") {
        seen = &haveDescr;
        ok = parseString(descr, error);
      } else if (key == "fortran_order") {
        seen = &haveFortran;
        ok = parseBool(fortranOrder, error);
      } else if (key == "shape") {
        seen = &haveShape;
        ok = parseShape(shape, error);
      } else {
        return fail("unexpected key '" + key +
                        "' (expected only 'descr', 'fortran_order', 'shape')",
                    error);
      }
      if (!ok)
        return false;
      if (*seen)
        return fail("duplicate key '" + key + "'", error);
      *seen = true;
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    skipSpace();
    if (p != end)
      return fail("unexpected text after the closing '}'", error);
    if (!haveDescr || !haveFortran || !haveShape) {
      std::string missing;
      for (auto [have, name] : {std::pair{haveDescr, "'descr'"},
                                {haveFortran, "'fortran_order'"},
                                {haveShape, "'shape'"}})
        if (!have)
          missing += (missing.empty() ? "" : ", ") + std::string(name);
      error = "header lacks " + missing;
      return false;
    }
    return true;
  }

private:
  bool fail(const std::string &what, std::string &error) {
    error =
        "malformed header at offset " + std::to_string(p - begin) + ": " + what;
    return false;
  }
  void skipSpace() {
    while (p != end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
      ++p;
  }
  bool consume(char c) {
    if (p != end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool startsWith(const char *word) const {
    size_t n = std::strlen(word);
    return size_t(end - p) >= n && std::memcmp(p, word, n) == 0;
  }
  bool parseString(std::string &s, std::string &error) {
    if (p == end || (*p != '\'' && *p != '"'))
      return fail("expected a quoted string", error);
    char quote = *p++;
    s.clear();
    while (p != end && *p != quote) {
      if (*p == '\\') {
        if (++p == end)
          break;
      }
      s += *p++;
    }
    if (p == end)
      return fail("unterminated string", error);
    ++p;
    return true;
  }
  bool parseBool(bool &b, std::string &error) {
    if (startsWith("True")) {
      p += 4;
      b = true;
      return true;
    }
    if (startsWith("False")) {
      p += 5;
      b = false;
      return true;
    }
    return fail("expected True or False", error);
  }
  bool parseShape(std::vector<int64_t> &shape, std::string &error) {
    shape.clear();
    if (!consume('('))
      return fail("expected '(' to start the shape", error);
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      int64_t dim;
      if (!parseDim(dim, error))
        return false;
      shape.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      if (consume(')')) {
        // "(3)" is an int in parentheses in Python, not a tuple.
        if (shape.size() == 1)
          return fail("a one-element shape needs a trailing comma", error);
        return true;
      }
      return fail("expected ',' or ')' in the shape", error);
    }
  }
  bool parseDim(int64_t &dim, std::string &error) {
    if (p != end && *p == '-')
      return fail("negative dimension in the shape", error);
    if (p == end || *p < '0' || *p > '9')
      return fail("expected a dimension", error);
    uint64_t v = 0;
    while (p != end && *p >= '0' && *p <= '9') {
      v = v * 10 + uint64_t(*p++ - '0');
      if (v > uint64_t(std::numeric_limits<int64_t>::max()))
        return fail("dimension too large", error);
    }
    // Python 2 wrote longs as "3L".
    if (p != end && (*p == 'L' || *p == 'l'))
      ++p;
    dim = int64_t(v);
    return true;
  }

  const char *begin;
  const char *p;
  const char *end;
};

/// Maps a numpy descr such as "<f4" or "|u1" to Array::dtype.
bool parseDescr(const std::string &descr, std::string &dtype,
                std::string &error) {
  if (!descr.empty() && descr[0] == '>') {
    error = "dtype '" + descr +
            "' is big-endian; only little-endian data is supported (save "
            "with arr.astype('<" +
            descr.substr(1) + "'))";
    return false;
  }
  std::string body = descr;
  if (!body.empty() && (body[0] == '<' || body[0] == '|'))
    body = body.substr(1);
  else if (!body.empty() && body[0] == '=') {
    error = "dtype '" + descr +
            "' has native byte order, which a file cannot state; expected '<' "
            "or '|'";
    return false;
  } else {
    error = "unsupported dtype '" + descr + "' (expected e.g. '<f4')";
    return false;
  }
  size_t size = dtypeSize(body);
  if (size == 0) {
    error = "unsupported dtype '" + descr + "'";
    return false;
  }
  if (size > 1 && descr[0] == '|' && body[0] != 'V') {
    error = "dtype '" + descr + "' lacks a byte order";
    return false;
  }
  dtype = body;
  return true;
}

struct NpyHeader {
  std::string dtype;
  std::vector<int64_t> shape;
  size_t dataOffset = 0;
  uint64_t dataBytes = 0;
};

/// Validates the magic, header and data length of a .npy image.
bool parseNpyHeader(const uint8_t *bytes, size_t size, NpyHeader &h,
                    std::string &error) {
  size_t magicHave = std::min<size_t>(size, 6);
  if (magicHave && std::memcmp(bytes, kNpyMagic, magicHave) != 0) {
    error = "bad magic: not a .npy file";
    return false;
  }
  if (size < 8) {
    error = "truncated .npy: " + std::to_string(size) +
            " bytes is shorter than the magic and version";
    return false;
  }
  unsigned major = bytes[6], minor = bytes[7];
  size_t lenBytes;
  if (major == 1 && minor == 0)
    lenBytes = 2;
  else if ((major == 2 || major == 3) && minor == 0)
    lenBytes = 4;
  else {
    error = "unsupported .npy format version " + std::to_string(major) + "." +
            std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  if (size < 8 + lenBytes) {
    error = "truncated .npy: header length field cut off";
    return false;
  }
  uint64_t headerLen = lenBytes == 2 ? le16(bytes + 8) : le32(bytes + 8);
  size_t headerStart = 8 + lenBytes;
  if (headerLen > size - headerStart) {
    error = "truncated .npy: header claims " + std::to_string(headerLen) +
            " bytes but only " + std::to_string(size - headerStart) + " follow";
    return false;
  }
  const char *text = reinterpret_cast<const char *>(bytes + headerStart);
  std::string descr;
  bool fortranOrder = false;
  HeaderParser parser(text, text + headerLen);
  if (!parser.parse(descr, fortranOrder, h.shape, error))
    return false;
  if (fortranOrder) {
    error = "array is in Fortran order (fortran_order: True), which is not "
            "supported; save np.ascontiguousarray(arr) instead";
    return false;
  }
  if (!parseDescr(descr, h.dtype, error))
    return false;
  if (!byteSizeOf(h.shape, dtypeSize(h.dtype), h.dataBytes)) {
    error = "shape " + shapeString(h.shape) + " of " + h.dtype +
            " is too large to address";
    return false;
  }
  h.dataOffset = headerStart + size_t(headerLen);
  uint64_t have = size - h.dataOffset;
  if (have != h.dataBytes) {
    error = "data is " + std::to_string(have) + " bytes but shape " +
            shapeString(h.shape) + " of " + h.dtype + " needs " +
            std::to_string(h.dataBytes) +
            (have < h.dataBytes ? " (truncated file?)" : "");
    return false;
  }
  return true;
}

/// Parses a .npy image that the caller owns, moving its data into `out`
/// without a second copy.
bool parseNpyOwned(std::vector<uint8_t> &&bytes, Array &out,
                   std::string &error) {
  NpyHeader h;
  if (!parseNpyHeader(bytes.data(), bytes.size(), h, error))
    return false;
  bytes.erase(bytes.begin(), bytes.begin() + ptrdiff_t(h.dataOffset));
  out.dtype = std::move(h.dtype);
  out.shape = std::move(h.shape);
  out.data = std::move(bytes);
  return true;
}

/// Builds the header (magic through the final '\n') exactly as numpy's
/// np.save writes it, after checking that `a` is consistent.
bool buildNpyHeader(const Array &a, std::vector<uint8_t> &out,
                    std::string &error) {
  size_t item = dtypeSize(a.dtype);
  if (item == 0) {
    error = "cannot write unsupported dtype '" + a.dtype + "'";
    return false;
  }
  uint64_t bytes;
  if (!byteSizeOf(a.shape, item, bytes)) {
    error = "cannot write shape " + shapeString(a.shape) +
            ": negative or too large";
    return false;
  }
  if (bytes != a.data.size()) {
    error = "cannot write array: shape " + shapeString(a.shape) + " of " +
            a.dtype + " needs " + std::to_string(bytes) +
            " bytes but data has " + std::to_string(a.data.size());
    return false;
  }
  std::string dict = "{'descr': '";
  dict += item == 1 ? '|' : '<';
  dict += a.dtype +
          "', 'fortran_order': False, 'shape': " + shapeString(a.shape) + ", }";
  // numpy leaves room for the first dimension to grow to 21 digits.
  if (!a.shape.empty())
    dict.append(21 - std::to_string(a.shape[0]).size(), ' ');
  // Pad with spaces plus '\n' so the data starts on a 64-byte boundary.
  auto padded = [&](size_t prefix) {
    size_t hlen = dict.size() + 1;
    return hlen + 64 - (prefix + hlen) % 64;
  };
  size_t total = padded(10);
  bool v2 = total > 0xFFFF;
  if (v2)
    total = padded(12);
  if (total > 0xFFFFFFFFu) {
    error = "cannot write array: header too long";
    return false;
  }
  out.assign(kNpyMagic, kNpyMagic + 6);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  if (v2)
    put32(out, uint32_t(total));
  else
    put16(out, uint16_t(total));
  out.insert(out.end(), dict.begin(), dict.end());
  out.resize(out.size() + total - dict.size() - 1, ' ');
  out.push_back('\n');
  return true;
}

//===----------------------------------------------------------------------===//
// Byte sources and sinks
//===----------------------------------------------------------------------===//

/// Random-access input: a memory buffer or a file.
class Source {
public:
  virtual ~Source() = default;
  uint64_t size() const { return size_; }
  /// Reads [offset, offset + n); the caller has bounds-checked the range.
  virtual bool read(uint64_t offset, size_t n, uint8_t *dst,
                    std::string &error) = 0;

protected:
  uint64_t size_ = 0;
};

class MemorySource : public Source {
public:
  MemorySource(const uint8_t *bytes, size_t size) : bytes(bytes) {
    size_ = size;
  }
  bool read(uint64_t offset, size_t n, uint8_t *dst, std::string &) override {
    if (n)
      std::memcpy(dst, bytes + offset, n);
    return true;
  }

private:
  const uint8_t *bytes;
};

struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

class FileSource : public Source {
public:
  bool open(const std::string &path, std::string &error) {
    file.reset(std::fopen(path.c_str(), "rb"));
    if (!file) {
      error = std::string("cannot open: ") + std::strerror(errno);
      return false;
    }
    // Directories and devices open fine but have no meaningful size.
    struct stat st;
    if (fstat(fileno(file.get()), &st) != 0) {
      error = std::string("cannot stat: ") + std::strerror(errno);
      return false;
    }
    if (!S_ISREG(st.st_mode)) {
      error = "not a regular file";
      return false;
    }
    size_ = uint64_t(st.st_size);
    return true;
  }
  bool read(uint64_t offset, size_t n, uint8_t *dst,
            std::string &error) override {
    if (fseeko(file.get(), off_t(offset), SEEK_SET) != 0) {
      error = std::string("cannot seek: ") + std::strerror(errno);
      return false;
    }
    if (std::fread(dst, 1, n, file.get()) != n) {
      error = std::ferror(file.get())
                  ? std::string("read error: ") + std::strerror(errno)
                  : "file changed size while being read";
      return false;
    }
    return true;
  }

private:
  FilePtr file;
};

/// Sequential output: a memory buffer or a file.
class Sink {
public:
  virtual ~Sink() = default;
  virtual bool write(const uint8_t *p, size_t n, std::string &error) = 0;
  bool write(const std::vector<uint8_t> &b, std::string &error) {
    return write(b.data(), b.size(), error);
  }
  uint64_t offset = 0;
};

class VectorSink : public Sink {
public:
  explicit VectorSink(std::vector<uint8_t> &out) : out(out) {}
  using Sink::write;
  bool write(const uint8_t *p, size_t n, std::string &) override {
    out.insert(out.end(), p, p + n);
    offset += n;
    return true;
  }

private:
  std::vector<uint8_t> &out;
};

/// Writes `path`; the file is removed unless commit() succeeds.
class FileSink : public Sink {
public:
  explicit FileSink(std::string path) : path(std::move(path)) {}
  using Sink::write;
  ~FileSink() override {
    if (file) {
      file.reset();
      std::remove(path.c_str());
    }
  }
  bool open(std::string &error) {
    file.reset(std::fopen(path.c_str(), "wb"));
    if (!file) {
      error = std::string("cannot create: ") + std::strerror(errno);
      return false;
    }
    return true;
  }
  bool write(const uint8_t *p, size_t n, std::string &error) override {
    if (n && std::fwrite(p, 1, n, file.get()) != n) {
      error = std::string("write error: ") + std::strerror(errno);
      return false;
    }
    offset += n;
    return true;
  }
  bool commit(std::string &error) {
    std::FILE *f = file.release();
    if (std::fclose(f) != 0) {
      error = std::string("write error: ") + std::strerror(errno);
      std::remove(path.c_str());
      return false;
    }
    return true;
  }

private:
  std::string path;
  FilePtr file;
};

//===----------------------------------------------------------------------===//
// Zip reading
//===----------------------------------------------------------------------===//

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEocdSig = 0x06054b50;
constexpr uint32_t kZip64EocdSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEocdSize = 22,
                 kZip64EocdSize = 56, kZip64LocatorSize = 20;
constexpr size_t kMaxComment = 0xFFFF;
// Deflate cannot compress better than about 1032:1; a larger declared ratio
// is corruption, and rejecting it bounds the allocation for the output.
constexpr uint64_t kMaxDeflateRatio = 1032;

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0;
  uint64_t size = 0;
  uint64_t localOffset = 0;
};

/// True when [offset, offset + n) lies within [0, limit).
bool inRange(uint64_t offset, uint64_t n, uint64_t limit) {
  return offset <= limit && n <= limit - offset;
}

bool readAt(Source &src, uint64_t offset, size_t n, std::vector<uint8_t> &buf,
            const char *what, std::string &error) {
  if (!inRange(offset, n, src.size())) {
    error = std::string("truncated: ") + what + " needs " + std::to_string(n) +
            " bytes at offset " + std::to_string(offset) +
            " but the file has " + std::to_string(src.size());
    return false;
  }
  buf.resize(n);
  return src.read(offset, n, buf.data(), error);
}

/// Reads the Zip64 extended-information extra field: each 64-bit value is
/// present only when the 32-bit field in the fixed record is saturated.
bool applyZip64Extra(const uint8_t *extra, size_t len, ZipEntry &e,
                     bool sizeSat, bool csizeSat, bool offsetSat,
                     std::string &error) {
  size_t pos = 0;
  while (pos + 4 <= len) {
    uint16_t id = le16(extra + pos), n = le16(extra + pos + 2);
    pos += 4;
    if (n > len - pos) {
      error =
          "malformed extra field in central directory entry '" + e.name + "'";
      return false;
    }
    if (id == 0x0001) {
      const uint8_t *f = extra + pos;
      size_t left = n;
      for (auto [sat, field] : {std::pair{sizeSat, &e.size},
                                {csizeSat, &e.compressedSize},
                                {offsetSat, &e.localOffset}}) {
        if (!sat)
          continue;
        if (left < 8) {
          error = "Zip64 extra field of entry '" + e.name + "' is too short";
          return false;
        }
        *field = le64(f);
        f += 8;
        left -= 8;
      }
    }
    pos += n;
  }
  return true;
}

/// Locates and parses the central directory. `dataEnd` receives the offset
/// where member data must end (the start of the central directory).
bool readZipDirectory(Source &src, std::vector<ZipEntry> &entries,
                      uint64_t &dataEnd, std::string &error) {
  uint64_t size = src.size();
  if (size < kEocdSize) {
    error = "not a zip file: " + std::to_string(size) +
            " bytes is shorter than an end-of-central-directory record";
    return false;
  }
  // The EOCD record is the last thing in the file, followed only by a comment
  // of at most 64 KiB, so the search is bounded.
  uint64_t tailLen = std::min<uint64_t>(size, kEocdSize + kMaxComment);
  std::vector<uint8_t> tail;
  if (!readAt(src, size - tailLen, size_t(tailLen), tail, "file tail", error))
    return false;
  int64_t found = -1;
  for (int64_t i = int64_t(tailLen - kEocdSize); i >= 0; --i) {
    const uint8_t *p = tail.data() + i;
    if (le32(p) == kEocdSig &&
        kEocdSize + le16(p + 20) <= tailLen - uint64_t(i)) {
      found = i;
      break;
    }
  }
  if (found < 0) {
    error = "not a zip file, or truncated: no end-of-central-directory record";
    return false;
  }
  const uint8_t *eocd = tail.data() + found;
  uint64_t eocdOffset = size - tailLen + uint64_t(found);
  uint64_t count = le16(eocd + 10);
  uint64_t cdSize = le32(eocd + 12);
  uint64_t cdOffset = le32(eocd + 16);
  if (le16(eocd + 4) != 0 || le16(eocd + 6) != 0 ||
      le16(eocd + 8) != le16(eocd + 10)) {
    error = "multi-disk zip archives are not supported";
    return false;
  }
  uint64_t cdLimit = eocdOffset;

  // Zip64: a locator right before the EOCD points at the Zip64 EOCD record,
  // whose 64-bit fields replace the (then saturated) 32-bit ones.
  if (eocdOffset >= kZip64LocatorSize) {
    std::vector<uint8_t> loc;
    if (!readAt(src, eocdOffset - kZip64LocatorSize, kZip64LocatorSize, loc,
                "Zip64 locator", error))
      return false;
    if (le32(loc.data()) == kZip64LocatorSig) {
      uint64_t recOffset = le64(loc.data() + 8);
      if (le32(loc.data() + 4) != 0 || le32(loc.data() + 16) > 1) {
        error = "multi-disk zip archives are not supported";
        return false;
      }
      uint64_t locOffset = eocdOffset - kZip64LocatorSize;
      if (!inRange(recOffset, kZip64EocdSize, locOffset)) {
        error = "Zip64 locator points outside the file (offset " +
                std::to_string(recOffset) + ")";
        return false;
      }
      std::vector<uint8_t> rec;
      if (!readAt(src, recOffset, kZip64EocdSize, rec, "Zip64 end record",
                  error))
        return false;
      if (le32(rec.data()) != kZip64EocdSig) {
        error = "bad Zip64 end-of-central-directory signature at offset " +
                std::to_string(recOffset);
        return false;
      }
      if (le32(rec.data() + 16) != 0 || le32(rec.data() + 20) != 0 ||
          le64(rec.data() + 24) != le64(rec.data() + 32)) {
        error = "multi-disk zip archives are not supported";
        return false;
      }
      count = le64(rec.data() + 32);
      cdSize = le64(rec.data() + 40);
      cdOffset = le64(rec.data() + 48);
      cdLimit = recOffset;
    }
  }

  if (!inRange(cdOffset, cdSize, cdLimit)) {
    error = "central directory (offset " + std::to_string(cdOffset) +
            ", size " + std::to_string(cdSize) +
            ") lies outside the file; truncated or corrupt";
    return false;
  }
  if (count > cdSize / kCentralSize) {
    error = "central directory claims " + std::to_string(count) +
            " entries but its " + std::to_string(cdSize) +
            " bytes cannot hold them";
    return false;
  }
  std::vector<uint8_t> cd;
  if (!readAt(src, cdOffset, size_t(cdSize), cd, "central directory", error))
    return false;

  entries.clear();
  entries.reserve(size_t(count));
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    std::string where = "central directory entry " + std::to_string(i);
    if (cd.size() - pos < kCentralSize) {
      error = where + " is truncated";
      return false;
    }
    const uint8_t *p = cd.data() + pos;
    if (le32(p) != kCentralSig) {
      error = where + " has a bad signature";
      return false;
    }
    size_t nameLen = le16(p + 28), extraLen = le16(p + 30),
           commentLen = le16(p + 32);
    if (cd.size() - pos - kCentralSize < nameLen + extraLen + commentLen) {
      error = where + " runs past the end of the central directory";
      return false;
    }
    ZipEntry e;
    e.flags = le16(p + 8);
    e.method = le16(p + 10);
    e.crc = le32(p + 16);
    e.compressedSize = le32(p + 20);
    e.size = le32(p + 24);
    e.localOffset = le32(p + 42);
    e.name.assign(reinterpret_cast<const char *>(p + kCentralSize), nameLen);
    if (!applyZip64Extra(p + kCentralSize + nameLen, extraLen, e,
                         e.size == 0xFFFFFFFF, e.compressedSize == 0xFFFFFFFF,
                         e.localOffset == 0xFFFFFFFF, error))
      return false;
    if (le16(p + 34) != 0 && le16(p + 34) != 0xFFFF) {
      error = "multi-disk zip archives are not supported";
      return false;
    }
    entries.push_back(std::move(e));
    pos += kCentralSize + nameLen + extraLen + commentLen;
  }
  dataEnd = cdOffset;
  return true;
}

/// Inflates raw deflate data into exactly `out.size()` bytes.
bool inflateRaw(const std::vector<uint8_t> &in, std::vector<uint8_t> &out,
                std::string &error) {
  z_stream s;
  std::memset(&s, 0, sizeof s);
  if (inflateInit2(&s, -MAX_WBITS) != Z_OK) {
    error = "cannot initialize zlib";
    return false;
  }
  // avail_in/avail_out are 32-bit, so multi-GiB members go in chunks. Once
  // `out` is full, a 1-byte scratch buffer tells a stream that ends exactly
  // there from one that would write more than the declared size.
  constexpr size_t kChunk = size_t(1) << 30;
  size_t inPos = 0, outPos = 0;
  uint8_t scratch = 0;
  int rc = Z_OK;
  bool tooLong = false;
  for (;;) {
    if (s.avail_in == 0 && inPos < in.size()) {
      size_t n = std::min(kChunk, in.size() - inPos);
      s.next_in = const_cast<Bytef *>(in.data() + inPos);
      s.avail_in = uInt(n);
      inPos += n;
    }
    bool onScratch = false;
    if (s.avail_out == 0) {
      if (outPos < out.size()) {
        size_t n = std::min(kChunk, out.size() - outPos);
        s.next_out = out.data() + outPos;
        s.avail_out = uInt(n);
        outPos += n;
      } else {
        s.next_out = &scratch;
        s.avail_out = 1;
        onScratch = true;
      }
    }
    rc = inflate(&s, Z_NO_FLUSH);
    if (onScratch) {
      if (s.avail_out == 0) {
        tooLong = true;
        break;
      }
      s.avail_out = 0;
    }
    if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR))
      break;
    // Z_BUF_ERROR: no progress was possible; only more input could help.
    if (rc == Z_BUF_ERROR && s.avail_in == 0 && inPos == in.size())
      break;
  }
  uint64_t produced = s.total_out;
  std::string zmsg = s.msg ? std::string(": ") + s.msg : std::string();
  inflateEnd(&s);
  if (tooLong) {
    error = "decompresses to more than the declared " +
            std::to_string(out.size()) + " bytes";
    return false;
  }
  if (rc == Z_STREAM_END) {
    if (produced == out.size())
      return true;
    error = "decompresses to " + std::to_string(produced) +
            " bytes, not the declared " + std::to_string(out.size());
    return false;
  }
  if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
    error = "invalid deflate data" + zmsg;
    return false;
  }
  if (rc == Z_MEM_ERROR) {
    error = "out of memory while inflating";
    return false;
  }
  error = "deflate data ends early (" + std::to_string(produced) + " of " +
          std::to_string(out.size()) + " bytes)";
  return false;
}

/// Reads, decompresses and CRC-checks one member.
bool readZipMember(Source &src, const ZipEntry &e, uint64_t dataEnd,
                   std::vector<uint8_t> &out, std::string &error) {
  if (e.flags & 0x1) {
    error = "encrypted members are not supported";
    return false;
  }
  if (e.method != 0 && e.method != 8) {
    error = "compression method " + std::to_string(e.method) +
            " is not supported (only stored and deflate)";
    return false;
  }
  std::vector<uint8_t> local;
  if (!inRange(e.localOffset, kLocalSize, dataEnd)) {
    error = "local header offset " + std::to_string(e.localOffset) +
            " lies outside the member data";
    return false;
  }
  if (!readAt(src, e.localOffset, kLocalSize, local, "local header", error))
    return false;
  if (le32(local.data()) != kLocalSig) {
    error =
        "bad local header signature at offset " + std::to_string(e.localOffset);
    return false;
  }
  uint64_t nameLen = le16(local.data() + 26),
           extraLen = le16(local.data() + 28);
  uint64_t dataStart = e.localOffset + kLocalSize + nameLen + extraLen;
  std::vector<uint8_t> localName;
  if (!inRange(e.localOffset + kLocalSize, nameLen, dataEnd) ||
      !readAt(src, e.localOffset + kLocalSize, size_t(nameLen), localName,
              "local file name", error) ||
      std::string(localName.begin(), localName.end()) != e.name) {
    error = "local header name does not match the central directory";
    return false;
  }
  if (!inRange(dataStart, e.compressedSize, dataEnd)) {
    error = "member data (offset " + std::to_string(dataStart) + ", " +
            std::to_string(e.compressedSize) +
            " bytes) runs past the end of the member area; truncated or "
            "corrupt";
    return false;
  }
  if (e.method == 0) {
    if (e.compressedSize != e.size) {
      error = "stored, but its compressed size " +
              std::to_string(e.compressedSize) + " differs from its size " +
              std::to_string(e.size);
      return false;
    }
    if (!readAt(src, dataStart, size_t(e.size), out, "member data", error))
      return false;
  } else {
    if (e.size > e.compressedSize * kMaxDeflateRatio + 1024) {
      error = "declared size " + std::to_string(e.size) + " from " +
              std::to_string(e.compressedSize) +
              " compressed bytes is more than deflate can encode";
      return false;
    }
    std::vector<uint8_t> packed;
    if (!readAt(src, dataStart, size_t(e.compressedSize), packed,
                "compressed data", error))
      return false;
    out.assign(size_t(e.size), 0);
    if (!inflateRaw(packed, out, error))
      return false;
  }
  uint32_t crc = crcUpdate(0, out.data(), out.size());
  if (crc != e.crc) {
    error = "CRC-32 mismatch (stored " + hex32(e.crc) + ", computed " +
            hex32(crc) + "): the file is corrupt";
    return false;
  }
  return true;
}

bool readNpzFrom(Source &src, NamedArrays &out, std::string &error) {
  out.clear();
  std::vector<ZipEntry> entries;
  uint64_t dataEnd = 0;
  if (!readZipDirectory(src, entries, dataEnd, error))
    return false;
  std::set<std::string> names;
  NamedArrays result;
  for (const ZipEntry &e : entries) {
    if (!e.name.empty() && e.name.back() == '/' && e.size == 0)
      continue; // a directory
    std::string name = e.name;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
      name.resize(name.size() - 4);
    if (!names.insert(name).second) {
      error = "member '" + e.name + "' appears twice";
      return false;
    }
    std::vector<uint8_t> bytes;
    Array array;
    if (!readZipMember(src, e, dataEnd, bytes, error) ||
        !parseNpyOwned(std::move(bytes), array, error)) {
      error = "member '" + e.name + "': " + error;
      return false;
    }
    result.emplace_back(std::move(name), std::move(array));
  }
  out = std::move(result);
  return true;
}

//===----------------------------------------------------------------------===//
// Zip writing
//===----------------------------------------------------------------------===//

// 1980-01-01 00:00:00, the DOS epoch: a constant keeps output reproducible.
constexpr uint16_t kDosTime = 0, kDosDate = (1 << 5) | 1;
constexpr uint64_t kMax32 = 0xFFFFFFFF;

bool writeNpzTo(Sink &sink, const NamedArrays &arrays,
                const NpzWriteOptions &options, std::string &error) {
  struct Written {
    std::string name;
    uint32_t crc;
    uint64_t size, offset;
    uint16_t flags;
  };
  std::vector<Written> written;
  std::set<std::string> names;
  for (const auto &[arrayName, array] : arrays) {
    std::string name = arrayName + ".npy";
    if (!names.insert(arrayName).second) {
      error = "array name '" + arrayName + "' appears twice";
      return false;
    }
    if (name.size() > 0xFFFF) {
      error = "array name is too long for a zip entry";
      return false;
    }
    std::vector<uint8_t> header;
    if (!buildNpyHeader(array, header, error)) {
      error = "array '" + arrayName + "': " + error;
      return false;
    }
    uint64_t size = header.size() + array.data.size();
    uint32_t crc = crcUpdate(0, header.data(), header.size());
    crc = crcUpdate(crc, array.data.data(), array.data.size());
    bool zip64 = options.forceZip64 || size >= kMax32;
    // Bit 11: the name is UTF-8 (set only when it is not plain ASCII).
    uint16_t flags =
        std::any_of(name.begin(), name.end(), [](char c) { return c & 0x80; })
            ? 0x0800
            : 0;
    std::vector<uint8_t> local;
    put32(local, kLocalSig);
    put16(local, zip64 ? 45 : 20);
    put16(local, flags);
    put16(local, 0); // stored
    put16(local, kDosTime);
    put16(local, kDosDate);
    put32(local, crc);
    put32(local, zip64 ? uint32_t(kMax32) : uint32_t(size));
    put32(local, zip64 ? uint32_t(kMax32) : uint32_t(size));
    put16(local, uint16_t(name.size()));
    put16(local, zip64 ? 20 : 0);
    local.insert(local.end(), name.begin(), name.end());
    if (zip64) {
      put16(local, 0x0001);
      put16(local, 16);
      put64(local, size);
      put64(local, size);
    }
    uint64_t offset = sink.offset;
    if (!sink.write(local, error) || !sink.write(header, error) ||
        !sink.write(array.data, error))
      return false;
    written.push_back({name, crc, size, offset, flags});
  }

  uint64_t cdOffset = sink.offset;
  std::vector<uint8_t> cd;
  for (const Written &w : written) {
    bool sizes64 = options.forceZip64 || w.size >= kMax32;
    bool offset64 = options.forceZip64 || w.offset >= kMax32;
    uint16_t extraLen = uint16_t((sizes64 ? 16 : 0) + (offset64 ? 8 : 0));
    if (extraLen)
      extraLen += 4;
    put32(cd, kCentralSig);
    put16(cd, (3 << 8) | 45); // made by: Unix, zip 4.5
    put16(cd, extraLen ? 45 : 20);
    put16(cd, w.flags);
    put16(cd, 0);
    put16(cd, kDosTime);
    put16(cd, kDosDate);
    put32(cd, w.crc);
    put32(cd, sizes64 ? uint32_t(kMax32) : uint32_t(w.size));
    put32(cd, sizes64 ? uint32_t(kMax32) : uint32_t(w.size));
    put16(cd, uint16_t(w.name.size()));
    put16(cd, extraLen);
    put16(cd, 0);              // comment length
    put16(cd, 0);              // disk number
    put16(cd, 0);              // internal attributes
    put32(cd, 0100644u << 16); // external attributes: regular file, rw-r--r--
    put32(cd, offset64 ? uint32_t(kMax32) : uint32_t(w.offset));
    cd.insert(cd.end(), w.name.begin(), w.name.end());
    if (extraLen) {
      put16(cd, 0x0001);
      put16(cd, uint16_t(extraLen - 4));
      if (sizes64) {
        put64(cd, w.size);
        put64(cd, w.size);
      }
      if (offset64)
        put64(cd, w.offset);
    }
  }
  uint64_t cdSize = cd.size();
  uint64_t count = written.size();
  std::vector<uint8_t> end;
  if (options.forceZip64 || count >= 0xFFFF || cdSize >= kMax32 ||
      cdOffset >= kMax32) {
    uint64_t recOffset = cdOffset + cdSize;
    put32(end, kZip64EocdSig);
    put64(end, kZip64EocdSize - 12);
    put16(end, (3 << 8) | 45);
    put16(end, 45);
    put32(end, 0);
    put32(end, 0);
    put64(end, count);
    put64(end, count);
    put64(end, cdSize);
    put64(end, cdOffset);
    put32(end, kZip64LocatorSig);
    put32(end, 0);
    put64(end, recOffset);
    put32(end, 1);
  }
  put32(end, kEocdSig);
  put16(end, 0);
  put16(end, 0);
  put16(end, uint16_t(std::min<uint64_t>(count, 0xFFFF)));
  put16(end, uint16_t(std::min<uint64_t>(count, 0xFFFF)));
  put32(end, uint32_t(std::min(cdSize, kMax32)));
  put32(end, uint32_t(std::min(cdOffset, kMax32)));
  put16(end, 0);
  return sink.write(cd, error) && sink.write(end, error);
}

/// Runs `body`, turning an allocation failure (a genuinely huge array, not a
/// lying header: sizes are checked against the input first) into an error.
template <typename F> bool guarded(std::string &error, F &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    error = "out of memory";
  } catch (const std::length_error &) {
    error = "out of memory";
  }
  return false;
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

size_t dtypeSize(const std::string &dtype) {
  for (const DtypeInfo &d : kDtypes)
    if (dtype == d.name)
      return d.size;
  return 0;
}

int64_t Array::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d == 0)
      n = 0;
  }
  if (n == 0)
    return 0;
  for (int64_t d : shape) {
    if (d > std::numeric_limits<int64_t>::max() / n)
      return -1;
    n *= d;
  }
  return n;
}

size_t Array::elementSize() const { return dtypeSize(dtype); }

bool parseNpy(const uint8_t *bytes, size_t size, Array &out,
              std::string &error) {
  return guarded(error, [&] {
    NpyHeader h;
    if (!parseNpyHeader(bytes, size, h, error))
      return false;
    out.dtype = std::move(h.dtype);
    out.shape = std::move(h.shape);
    out.data.assign(bytes + h.dataOffset, bytes + size);
    return true;
  });
}

bool serializeNpy(const Array &array, std::vector<uint8_t> &out,
                  std::string &error) {
  return guarded(error, [&] {
    std::vector<uint8_t> bytes;
    if (!buildNpyHeader(array, bytes, error))
      return false;
    bytes.insert(bytes.end(), array.data.begin(), array.data.end());
    out = std::move(bytes);
    return true;
  });
}

bool readNpy(const std::string &path, Array &out, std::string &error) {
  bool ok = guarded(error, [&] {
    FileSource src;
    std::vector<uint8_t> bytes;
    return src.open(path, error) &&
           readAt(src, 0, size_t(src.size()), bytes, "file", error) &&
           parseNpyOwned(std::move(bytes), out, error);
  });
  if (!ok)
    error = path + ": " + error;
  return ok;
}

bool writeNpy(const std::string &path, const Array &array, std::string &error) {
  bool ok = guarded(error, [&] {
    std::vector<uint8_t> header;
    FileSink sink(path);
    return buildNpyHeader(array, header, error) && sink.open(error) &&
           sink.write(header, error) && sink.write(array.data, error) &&
           sink.commit(error);
  });
  if (!ok)
    error = path + ": " + error;
  return ok;
}

bool parseNpz(const uint8_t *bytes, size_t size, NamedArrays &out,
              std::string &error) {
  return guarded(error, [&] {
    MemorySource src(bytes, size);
    return readNpzFrom(src, out, error);
  });
}

bool readNpz(const std::string &path, NamedArrays &out, std::string &error) {
  bool ok = guarded(error, [&] {
    FileSource src;
    return src.open(path, error) && readNpzFrom(src, out, error);
  });
  if (!ok)
    error = path + ": " + error;
  return ok;
}

bool serializeNpz(const NamedArrays &arrays, std::vector<uint8_t> &out,
                  std::string &error, const NpzWriteOptions &options) {
  return guarded(error, [&] {
    std::vector<uint8_t> bytes;
    VectorSink sink(bytes);
    if (!writeNpzTo(sink, arrays, options, error))
      return false;
    out = std::move(bytes);
    return true;
  });
}

bool writeNpz(const std::string &path, const NamedArrays &arrays,
              std::string &error, const NpzWriteOptions &options) {
  bool ok = guarded(error, [&] {
    FileSink sink(path);
    return sink.open(error) && writeNpzTo(sink, arrays, options, error) &&
           sink.commit(error);
  });
  if (!ok)
    error = path + ": " + error;
  return ok;
}

} // namespace kiln::npy
