// Unit tests for kiln::npy: .npy/.npz round trips, numpy-made fixtures, and
// corrupt inputs that must fail with an error instead of crashing.
#include "support/npy/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace kiln::npy;

namespace {

const char *const kAllDtypes[] = {"b1", "i1", "u1", "i2", "u2", "f2", "i4",
                                  "u4", "f4", "i8", "u8", "f8", "c8", "c16"};

std::string dataPath(const std::string &name) {
  return std::string(KILN_NPY_TEST_DATA) + "/" + name;
}

std::string tempPath(const std::string &name) {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "kiln_npy_" + info->name() + "_" + name;
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            std::streamsize(bytes.size()));
}

bool fileExists(const std::string &path) { return std::ifstream(path).good(); }

/// An array of `dtype` and `shape` whose bytes follow a position-dependent
/// pattern, so reordered or shifted data is noticed.
Array patterned(const std::string &dtype, std::vector<int64_t> shape,
                unsigned seed = 0) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(size_t(a.numElements()) * a.elementSize());
  for (size_t i = 0; i < a.data.size(); ++i)
    a.data[i] = uint8_t(i * 37 + 11 + seed * 101);
  if (dtype == "b1") // numpy bools are 0 or 1
    for (uint8_t &b : a.data)
      b &= 1;
  return a;
}

template <typename T>
Array fromValues(const std::string &dtype, std::vector<int64_t> shape,
                 const std::vector<T> &values) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

template <typename T> std::vector<T> valuesOf(const Array &a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  if (!v.empty())
    std::memcpy(v.data(), a.data.data(), v.size() * sizeof(T));
  return v;
}

void expectSame(const Array &want, const Array &got) {
  EXPECT_EQ(want.dtype, got.dtype);
  EXPECT_EQ(want.shape, got.shape);
  EXPECT_EQ(want.data, got.data);
}

/// A .npy image with a hand-written header dict: `major`.0 format, the dict
/// padded with spaces and '\n' to a 64-byte boundary, then `dataBytes` bytes.
std::vector<uint8_t> makeNpy(const std::string &dict, size_t dataBytes,
                             int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  size_t len = header.size();
  out.push_back(uint8_t(len));
  out.push_back(uint8_t(len >> 8));
  if (major != 1) {
    out.push_back(uint8_t(len >> 16));
    out.push_back(uint8_t(len >> 24));
  }
  out.insert(out.end(), header.begin(), header.end());
  for (size_t i = 0; i < dataBytes; ++i)
    out.push_back(uint8_t(i));
  return out;
}

uint32_t le32(const std::vector<uint8_t> &b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 |
         uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
void set32(std::vector<uint8_t> &b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[at + i] = uint8_t(v >> (8 * i));
}
/// Offset of the central directory of a zip without a comment or Zip64.
size_t centralDirectory(const std::vector<uint8_t> &zip) {
  return le32(zip, zip.size() - 22 + 16);
}

/// Bitwise CRC-32 (the zip polynomial), independent of the library's zlib.
uint32_t crc32(const uint8_t *p, size_t n) {
  uint32_t c = 0xFFFFFFFF;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k)
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

float halfToFloat(uint16_t h) {
  int exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v = exp == 0 ? std::ldexp(float(mant), -24)
                     : std::ldexp(float(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

NamedArrays sampleArrays() {
  NamedArrays arrays;
  arrays.emplace_back("weights", patterned("f4", {2, 3, 4}, 1));
  arrays.emplace_back("ids", patterned("i8", {5}, 2));
  arrays.emplace_back("scale", patterned("f8", {}, 3));
  arrays.emplace_back("empty", patterned("u1", {0, 7}, 4));
  arrays.emplace_back("mask", patterned("b1", {3}, 5));
  arrays.emplace_back("half", patterned("f2", {4, 1}, 6));
  return arrays;
}

void expectSame(const NamedArrays &want, const NamedArrays &got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i].first);
    EXPECT_EQ(want[i].first, got[i].first);
    expectSame(want[i].second, got[i].second);
  }
}

//===----------------------------------------------------------------------===//
// Array
//===----------------------------------------------------------------------===//

TEST(NpyArray, ElementSizes) {
  const std::pair<const char *, size_t> sizes[] = {
      {"b1", 1}, {"i1", 1}, {"u1", 1}, {"i2", 2},  {"u2", 2},
      {"f2", 2}, {"i4", 4}, {"u4", 4}, {"f4", 4},  {"i8", 8},
      {"u8", 8}, {"f8", 8}, {"c8", 8}, {"c16", 16}};
  for (auto [dtype, size] : sizes) {
    EXPECT_EQ(dtypeSize(dtype), size) << dtype;
    Array a;
    a.dtype = dtype;
    EXPECT_EQ(a.elementSize(), size) << dtype;
  }
  for (const char *bad : {"", "f4 ", "<f4", "f16", "V4", "U5", "O"})
    EXPECT_EQ(dtypeSize(bad), 0u) << bad;
}

TEST(NpyArray, NumElements) {
  Array a;
  EXPECT_EQ(a.numElements(), 1); // scalar
  a.shape = {2, 3, 4};
  EXPECT_EQ(a.numElements(), 24);
  a.shape = {5, 0, 3};
  EXPECT_EQ(a.numElements(), 0);
  a.shape = {2, -1};
  EXPECT_EQ(a.numElements(), -1);
  a.shape = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_EQ(a.numElements(), -1); // overflow
  a.shape = {int64_t(1) << 40, int64_t(1) << 40, 0};
  EXPECT_EQ(a.numElements(), 0); // a zero dimension wins over overflow
}

//===----------------------------------------------------------------------===//
// .npy writing and reading
//===----------------------------------------------------------------------===//

TEST(Npy, RoundTripEveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {1}, {5}, {2, 3, 4}, {0}, {3, 0, 2}, {1, 1, 1, 1, 1, 1, 1, 1, 1}};
  for (const char *dtype : kAllDtypes) {
    for (const auto &shape : shapes) {
      Array a = patterned(dtype, shape);
      SCOPED_TRACE(std::string(dtype) + " rank " +
                   std::to_string(shape.size()));
      std::vector<uint8_t> bytes;
      std::string error;
      ASSERT_TRUE(serializeNpy(a, bytes, error)) << error;
      EXPECT_EQ(bytes[6], 1); // format 1.0
      EXPECT_EQ((bytes.size() - a.data.size()) % 64, 0u) << "data unaligned";
      Array b;
      ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), b, error)) << error;
      expectSame(a, b);
    }
  }
}

TEST(Npy, FileRoundTrip) {
  std::string path = tempPath("a.npy");
  for (const char *dtype : kAllDtypes) {
    Array a = patterned(dtype, {3, 2});
    std::string error;
    ASSERT_TRUE(writeNpy(path, a, error)) << error;
    Array b;
    ASSERT_TRUE(readNpy(path, b, error)) << error;
    expectSame(a, b);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(serializeNpy(a, bytes, error));
    EXPECT_EQ(readFile(path), bytes);
  }
  std::remove(path.c_str());
}

TEST(Npy, HeaderMatchesNumpy) {
  // Headers as numpy 2.4's np.save writes them.
  auto numpyHeader = [](const std::string &dict) {
    std::string h = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict;
    h.resize(127, ' ');
    return h + "\n";
  };
  struct Case {
    Array array;
    std::string dict;
  } cases[] = {
      {patterned("f4", {}),
       "{'descr': '<f4', 'fortran_order': False, 'shape': (), }"},
      {patterned("f4", {3}),
       "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"},
      {patterned("u1", {0, 3}),
       "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }"},
  };
  for (const Case &c : cases) {
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(serializeNpy(c.array, bytes, error)) << error;
    ASSERT_GE(bytes.size(), 128u);
    EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 128),
              numpyHeader(c.dict));
  }
}

TEST(Npy, ReadsNumpyFixtureAndWritesItIdentically) {
  std::vector<uint8_t> file = readFile(dataPath("v1.npy"));
  Array a;
  std::string error;
  ASSERT_TRUE(readNpy(dataPath("v1.npy"), a, error)) << error;
  EXPECT_EQ(a.dtype, "f2");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3, 4}));
  std::vector<uint16_t> halves = valuesOf<uint16_t>(a);
  ASSERT_EQ(halves.size(), 24u);
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(halfToFloat(halves[i]), float(i - 12)) << i;
  std::vector<uint8_t> again;
  ASSERT_TRUE(serializeNpy(a, again, error)) << error;
  EXPECT_EQ(again, file) << "np.save and serializeNpy disagree";
}

TEST(Npy, LongHeaderUsesFormat2) {
  // 22000 unit dimensions make a dict longer than format 1.0's 64 KiB limit.
  Array a = patterned("i4", std::vector<int64_t>(22000, 1));
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serializeNpy(a, bytes, error)) << error;
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ((bytes.size() - 4) % 64, 0u);
  Array b;
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), b, error)) << error;
  expectSame(a, b);
}

TEST(Npy, ReadsFormats2And3) {
  for (int major : {2, 3}) {
    std::vector<uint8_t> bytes =
        makeNpy("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 2), }",
                8, major);
    Array a;
    std::string error;
    ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), a, error)) << error;
    EXPECT_EQ(a.dtype, "i2");
    EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  }
}

TEST(Npy, AcceptsHeaderSpellings) {
  struct Case {
    const char *dict;
    const char *dtype;
    std::vector<int64_t> shape;
  } cases[] = {
      {"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}",
       "f4",
       {3}},
      {"{'shape': (2, 3), 'descr': '<u2', 'fortran_order': False}",
       "u2",
       {2, 3}},
      {"{ 'descr' : '|b1' ,\n 'fortran_order' : False , 'shape' : ( 4 , ) , }",
       "b1",
       {4}},
      {"{'descr': '<i8', 'fortran_order': False, 'shape': (3L, 2L), }",
       "i8",
       {3, 2}}, // Python 2 longs
      {"{'descr': '<c16', 'fortran_order': False, 'shape': (1,1), }",
       "c16",
       {1, 1}},
      {"{'descr': '|i1', 'fortran_order': False, 'shape': (), }", "i1", {}},
      {"{'descr': '<u1', 'fortran_order': False, 'shape': (0,), }", "u1", {0}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.dict);
    uint64_t bytes = dtypeSize(c.dtype);
    for (int64_t d : c.shape)
      bytes *= uint64_t(d);
    std::vector<uint8_t> file = makeNpy(c.dict, size_t(bytes));
    Array a;
    std::string error;
    ASSERT_TRUE(parseNpy(file.data(), file.size(), a, error)) << error;
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, c.shape);
    EXPECT_EQ(a.data.size(), bytes);
  }
}

TEST(Npy, RejectsBadHeaders) {
  const std::string ok = "'fortran_order': False, ";
  struct Case {
    std::string dict;
    size_t dataBytes;
    const char *expect; // a substring of the error
  } cases[] = {
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16,
       "Fortran order"},
      {"{'descr': '>f4', " + ok + "'shape': (2,), }", 8, "big-endian"},
      {"{'descr': '>i8', " + ok + "'shape': (), }", 8, "big-endian"},
      {"{'descr': '=f4', " + ok + "'shape': (2,), }", 8, "native byte order"},
      {"{'descr': '|f4', " + ok + "'shape': (2,), }", 8, "lacks a byte order"},
      {"{'descr': 'f4', " + ok + "'shape': (2,), }", 8, "unsupported dtype"},
      {"{'descr': '<U5', " + ok + "'shape': (2,), }", 40, "unsupported dtype"},
      {"{'descr': '|O', " + ok + "'shape': (2,), }", 16, "unsupported dtype"},
      {"{'descr': '<V4', " + ok + "'shape': (2,), }", 4, "unsupported dtype"},
      {"{'descr': [('a', '<f4')], " + ok + "'shape': (2,), }", 8,
       "expected a quoted string"},
      {"{'descr': '<f4', " + ok + "}", 4, "lacks 'shape'"},
      {"{'shape': (), }", 4, "lacks 'descr', 'fortran_order'"},
      {"{'descr': '<f4', 'descr': '<f4', " + ok + "'shape': (), }", 4,
       "duplicate key 'descr'"},
      {"{'descr': '<f4', " + ok + "'shape': (), 'extra': 1, }", 4,
       "unexpected key 'extra'"},
      {"{'descr': '<f4', " + ok + "'shape': (3), }", 12, "trailing comma"},
      {"{'descr': '<f4', " + ok + "'shape': (-3,), }", 0, "negative"},
      {"{'descr': '<f4', " + ok + "'shape': 3, }", 12, "expected '('"},
      {"{'descr': '<f4', " + ok + "'shape': (3.0,), }", 12, "expected ','"},
      {"{'descr': '<f4', " + ok + "'shape': (99999999999999999999,), }", 0,
       "dimension too large"},
      {"{'descr': '<f4', " + ok + "'shape': (4294967296, 4294967296), }", 0,
       "too large to address"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (), }", 4,
       "expected True or False"},
      {"{'descr': '<f4', " + ok + "'shape': (), } junk", 4,
       "unexpected text after"},
      {"['descr', '<f4']", 4, "expected '{'"},
      {"{'descr': '<f4', " + ok + "'shape': (), ", 4, "expected a quoted"},
      {"{'descr': '<f4, " + ok + "'shape': (), }", 4, "expected ','"},
      {"{'descr: '<f4', " + ok + "'shape': (), }", 4, "expected ':'"},
      // The header lies about the shape: too little and too much data.
      {"{'descr': '<f4', " + ok + "'shape': (4,), }", 12, "data is 12 bytes"},
      {"{'descr': '<f4', " + ok + "'shape': (2,), }", 12, "data is 12 bytes"},
      {"{'descr': '<f8', " + ok + "'shape': (0,), }", 1, "data is 1 bytes"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.dict);
    std::vector<uint8_t> file = makeNpy(c.dict, c.dataBytes);
    Array a;
    std::string error;
    EXPECT_FALSE(parseNpy(file.data(), file.size(), a, error));
    EXPECT_NE(error.find(c.expect), std::string::npos) << error;
  }
}

TEST(Npy, RejectsBadPreamble) {
  std::vector<uint8_t> good =
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
  struct Case {
    std::vector<uint8_t> bytes;
    const char *expect;
  };
  std::vector<Case> cases;
  cases.push_back({{}, "truncated"});
  cases.push_back({{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}, "bad magic"});
  auto badMagic = good;
  badMagic[1] = 'n';
  cases.push_back({badMagic, "bad magic"});
  auto v4 = good;
  v4[6] = 4;
  cases.push_back({v4, "unsupported .npy format version 4.0"});
  auto v11 = good;
  v11[7] = 1;
  cases.push_back({v11, "unsupported .npy format version 1.1"});
  auto longHeader = good;
  longHeader[8] = 0xFF;
  longHeader[9] = 0xFF;
  cases.push_back({longHeader, "header claims 65535 bytes"});
  for (const Case &c : cases) {
    Array a;
    std::string error;
    EXPECT_FALSE(parseNpy(c.bytes.data(), c.bytes.size(), a, error));
    EXPECT_NE(error.find(c.expect), std::string::npos) << error;
  }
}

TEST(Npy, TruncatedAtEveryLengthFails) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serializeNpy(patterned("f4", {3, 2}), bytes, error));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + ptrdiff_t(n));
    Array a;
    error.clear();
    EXPECT_FALSE(parseNpy(cut.data(), cut.size(), a, error)) << n;
    EXPECT_FALSE(error.empty()) << n;
  }
}

TEST(Npy, FlippedBytesNeverCrash) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serializeNpy(patterned("i2", {2, 3}), bytes, error));
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x20, 0x80, 0xFF}) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= mask;
      Array a;
      error.clear();
      if (parseNpy(bad.data(), bad.size(), a, error))
        EXPECT_EQ(a.data.size(), size_t(a.numElements()) * a.elementSize());
      else
        EXPECT_FALSE(error.empty());
    }
  }
}

TEST(Npy, ReadErrorsNameTheFile) {
  std::string path = tempPath("missing.npy");
  Array a;
  std::string error;
  EXPECT_FALSE(readNpy(path, a, error));
  EXPECT_EQ(error.rfind(path + ": cannot open", 0), 0u) << error;

  std::string bad = tempPath("bad.npy");
  writeFile(bad, {'n', 'o', 'p', 'e', 0, 0, 0, 0, 0, 0});
  EXPECT_FALSE(readNpy(bad, a, error));
  EXPECT_EQ(error, bad + ": bad magic: not a .npy file");
  std::remove(bad.c_str());

  std::string dir = ::testing::TempDir();
  EXPECT_FALSE(readNpy(dir, a, error));
  EXPECT_EQ(error, dir + ": not a regular file");
  NamedArrays arrays;
  EXPECT_FALSE(readNpz(dir, arrays, error));
  EXPECT_EQ(error, dir + ": not a regular file");
}

TEST(Npy, WriteRejectsInconsistentArrays) {
  std::string path = tempPath("bad.npy");
  Array a = patterned("f4", {2, 2});
  a.data.pop_back();
  std::string error;
  EXPECT_FALSE(writeNpy(path, a, error));
  EXPECT_NE(error.find("needs 16 bytes but data has 15"), std::string::npos)
      << error;
  EXPECT_FALSE(fileExists(path)) << "a failed write left a file behind";

  Array b = patterned("f4", {2});
  b.dtype = "bf16";
  std::vector<uint8_t> bytes;
  EXPECT_FALSE(serializeNpy(b, bytes, error));
  EXPECT_NE(error.find("unsupported dtype 'bf16'"), std::string::npos);
  b.dtype = "f4";
  b.shape = {-2};
  EXPECT_FALSE(serializeNpy(b, bytes, error));
  EXPECT_NE(error.find("negative"), std::string::npos) << error;

  EXPECT_FALSE(
      writeNpy(tempPath("no/such/dir/x.npy"), patterned("f4", {1}), error));
  EXPECT_NE(error.find("cannot create"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// .npz
//===----------------------------------------------------------------------===//

TEST(Npz, RoundTripInMemory) {
  NamedArrays arrays = sampleArrays();
  for (bool zip64 : {false, true}) {
    SCOPED_TRACE(zip64 ? "zip64" : "plain");
    std::vector<uint8_t> bytes;
    std::string error;
    NpzWriteOptions options;
    options.forceZip64 = zip64;
    ASSERT_TRUE(serializeNpz(arrays, bytes, error, options)) << error;
    const uint8_t zip64End[] = {'P', 'K', 6, 6};
    bool hasZip64End = std::search(bytes.begin(), bytes.end(), zip64End,
                                   zip64End + 4) != bytes.end();
    EXPECT_EQ(hasZip64End, zip64);
    NamedArrays back;
    ASSERT_TRUE(parseNpz(bytes.data(), bytes.size(), back, error)) << error;
    expectSame(arrays, back);
  }
}

TEST(Npz, FileRoundTripIsReproducible) {
  NamedArrays arrays = sampleArrays();
  std::string path = tempPath("a.npz");
  std::string error;
  ASSERT_TRUE(writeNpz(path, arrays, error)) << error;
  NamedArrays back;
  ASSERT_TRUE(readNpz(path, back, error)) << error;
  expectSame(arrays, back);
  std::vector<uint8_t> once, twice;
  ASSERT_TRUE(serializeNpz(arrays, once, error));
  ASSERT_TRUE(serializeNpz(arrays, twice, error));
  EXPECT_EQ(once, twice);
  EXPECT_EQ(readFile(path), once);
  std::remove(path.c_str());
}

TEST(Npz, EmptyArchive) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(serializeNpz({}, bytes, error)) << error;
  EXPECT_EQ(bytes.size(), 22u); // just the end record
  NamedArrays back = sampleArrays();
  ASSERT_TRUE(parseNpz(bytes.data(), bytes.size(), back, error)) << error;
  EXPECT_TRUE(back.empty());
}

TEST(Npz, WriteRejectsBadInput) {
  std::string error;
  std::vector<uint8_t> bytes;
  NamedArrays dup;
  dup.emplace_back("x", patterned("f4", {1}));
  dup.emplace_back("x", patterned("f4", {2}));
  EXPECT_FALSE(serializeNpz(dup, bytes, error));
  EXPECT_NE(error.find("'x' appears twice"), std::string::npos) << error;

  NamedArrays bad;
  bad.emplace_back("ok", patterned("f4", {1}));
  bad.emplace_back("broken", patterned("f4", {2}));
  bad.back().second.data.push_back(0);
  std::string path = tempPath("bad.npz");
  EXPECT_FALSE(writeNpz(path, bad, error));
  EXPECT_NE(error.find("array 'broken'"), std::string::npos) << error;
  EXPECT_FALSE(fileExists(path)) << "a failed write left a file behind";
}

/// The fixture arrays of make_fixtures.py.
void expectFixtureArrays(const NamedArrays &got) {
  ASSERT_EQ(got.size(), 5u);
  const char *names[] = {"a", "b", "c", "d", "e"};
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(got[i].first, names[i]);
  expectSame(fromValues<float>("f4", {2, 3}, {0, 0.25f, 0.5f, 0.75f, 1, 1.25f}),
             got[0].second);
  expectSame(fromValues<int64_t>("i8", {4}, {-2, -1, 0, 1}), got[1].second);
  expectSame(fromValues<double>("f8", {}, {2.5}), got[2].second);
  expectSame(fromValues<uint8_t>("u1", {0, 3}, {}), got[3].second);
  expectSame(fromValues<uint8_t>("b1", {3}, {1, 0, 1}), got[4].second);
}

TEST(Npz, ReadsNumpySavez) {
  NamedArrays got;
  std::string error;
  ASSERT_TRUE(readNpz(dataPath("savez.npz"), got, error)) << error;
  expectFixtureArrays(got);
}

TEST(Npz, ReadsNumpySavezCompressed) {
  NamedArrays got;
  std::string error;
  ASSERT_TRUE(readNpz(dataPath("savez_compressed.npz"), got, error)) << error;
  expectFixtureArrays(got);
}

class NpzCorrupt : public ::testing::TestWithParam<const char *> {
protected:
  std::vector<uint8_t> original() {
    std::string name = GetParam();
    if (name == "kiln" || name == "kiln-zip64") {
      NamedArrays arrays;
      arrays.emplace_back("x", patterned("f4", {3}));
      arrays.emplace_back("y", patterned("i8", {}));
      std::vector<uint8_t> bytes;
      std::string error;
      NpzWriteOptions options;
      options.forceZip64 = name == "kiln-zip64";
      EXPECT_TRUE(serializeNpz(arrays, bytes, error, options)) << error;
      return bytes;
    }
    return readFile(dataPath(name));
  }
};

TEST_P(NpzCorrupt, TruncatedAtEveryLengthFails) {
  std::vector<uint8_t> bytes = original();
  for (size_t n = 0; n < bytes.size(); ++n) {
    NamedArrays out;
    std::string error;
    EXPECT_FALSE(parseNpz(bytes.data(), n, out, error)) << n;
    EXPECT_FALSE(error.empty()) << n;
  }
}

TEST_P(NpzCorrupt, FlippedBitsNeverCrash) {
  std::vector<uint8_t> bytes = original();
  size_t rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = bytes;
      bad[i] ^= uint8_t(1 << bit);
      NamedArrays out;
      std::string error;
      if (!parseNpz(bad.data(), bad.size(), out, error)) {
        EXPECT_FALSE(error.empty());
        ++rejected;
        continue;
      }
      // Accepted flips hit fields that do not matter (times, attributes,
      // version numbers); whatever comes back is self-consistent.
      for (const auto &[name, array] : out)
        EXPECT_EQ(array.data.size(),
                  size_t(array.numElements()) * array.elementSize());
    }
  }
  // Most flips hit checked bytes (CRC-covered data, sizes, offsets).
  EXPECT_GT(rejected, bytes.size() * 8 / 2);
}

INSTANTIATE_TEST_SUITE_P(Inputs, NpzCorrupt,
                         ::testing::Values("kiln", "kiln-zip64", "savez.npz",
                                           "savez_compressed.npz"),
                         [](const auto &info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '.', '_');
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

TEST(Npz, FlippedDataFailsCrc) {
  Array a = patterned("u2", {4, 4});
  NamedArrays arrays;
  arrays.emplace_back("a", a);
  std::vector<uint8_t> zip, member;
  std::string error;
  ASSERT_TRUE(serializeNpz(arrays, zip, error));
  ASSERT_TRUE(serializeNpy(a, member, error));
  auto at = std::search(zip.begin(), zip.end(), member.begin(), member.end());
  ASSERT_NE(at, zip.end());
  size_t start = size_t(at - zip.begin());
  for (size_t i = start; i < start + member.size(); ++i) {
    std::vector<uint8_t> bad = zip;
    bad[i] ^= 0x10;
    NamedArrays out;
    EXPECT_FALSE(parseNpz(bad.data(), bad.size(), out, error)) << i;
    EXPECT_NE(error.find("member 'a.npy': CRC-32 mismatch"), std::string::npos)
        << error;
  }
}

/// Runs parseNpz on `bytes` and expects failure with `expect` in the error.
void expectNpzError(const std::vector<uint8_t> &bytes, const char *expect) {
  NamedArrays out;
  std::string error;
  EXPECT_FALSE(parseNpz(bytes.data(), bytes.size(), out, error));
  EXPECT_NE(error.find(expect), std::string::npos) << error;
  EXPECT_TRUE(out.empty());
}

TEST(Npz, RejectsNonZip) {
  expectNpzError({}, "not a zip file");
  expectNpzError(std::vector<uint8_t>(100, 'x'), "not a zip file");
  expectNpzError(readFile(dataPath("v1.npy")), "not a zip file");
}

TEST(Npz, RejectsLyingCentralDirectory) {
  std::vector<uint8_t> zip = readFile(dataPath("savez_compressed.npz"));
  size_t cd = centralDirectory(zip);
  size_t eocd = zip.size() - 22;

  auto hugeSize = zip; // uncompressed size of member 'a'
  set32(hugeSize, cd + 24, 0x7FFFFFFF);
  expectNpzError(hugeSize, "more than deflate can encode");

  auto smallSize = zip;
  set32(smallSize, cd + 24, le32(zip, cd + 24) - 1);
  expectNpzError(smallSize, "decompresses to more than the declared");

  auto bigSize = zip;
  set32(bigSize, cd + 24, le32(zip, cd + 24) + 1);
  expectNpzError(bigSize, "decompresses to");

  auto badCompressedSize = zip;
  set32(badCompressedSize, cd + 20, 0x7FFFFFFF);
  expectNpzError(badCompressedSize, "runs past the end of the member area");

  auto badLocal = zip;
  set32(badLocal, cd + 42, uint32_t(cd + 100));
  expectNpzError(badLocal, "local header offset");

  auto badMethod = zip;
  badMethod[cd + 10] = 12; // bzip2
  expectNpzError(badMethod, "compression method 12 is not supported");

  auto encrypted = zip;
  encrypted[cd + 8] |= 1;
  expectNpzError(encrypted, "encrypted");

  auto tooMany = zip;
  tooMany[eocd + 8] = tooMany[eocd + 10] = 0xFF;
  tooMany[eocd + 9] = tooMany[eocd + 11] = 0xFF;
  expectNpzError(tooMany, "cannot hold them");

  auto cdOutside = zip;
  set32(cdOutside, eocd + 16, uint32_t(zip.size()));
  expectNpzError(cdOutside, "lies outside the file");

  auto multiDisk = zip;
  multiDisk[eocd + 4] = 1;
  expectNpzError(multiDisk, "multi-disk");

  auto badCentralSig = zip;
  badCentralSig[cd] = 'X';
  expectNpzError(badCentralSig,
                 "central directory entry 0 has a bad signature");

  auto badLocalSig = zip;
  badLocalSig[0] = 'X';
  expectNpzError(badLocalSig, "bad local header signature at offset 0");

  auto corruptDeflate = zip; // 0b11 is a reserved deflate block type
  size_t data = 30 + 5 + (zip[28] | zip[29] << 8);
  corruptDeflate[data] |= 0x06;
  expectNpzError(corruptDeflate, "invalid deflate data");
}

TEST(Npz, RejectsLyingStoredSize) {
  std::vector<uint8_t> zip = readFile(dataPath("savez.npz"));
  size_t cd = centralDirectory(zip);
  set32(zip, cd + 24, le32(zip, cd + 20) + 1); // size != compressed size
  expectNpzError(zip, "member 'a.npy': stored, but its compressed size");
}

TEST(Npz, RejectsBadZip64Records) {
  NamedArrays arrays;
  arrays.emplace_back("x", patterned("f4", {3}));
  std::vector<uint8_t> zip;
  std::string error;
  NpzWriteOptions options;
  options.forceZip64 = true;
  ASSERT_TRUE(serializeNpz(arrays, zip, error, options));
  size_t locator = zip.size() - 22 - 20;
  ASSERT_EQ(le32(zip, locator), 0x07064b50u);

  auto outside = zip;
  set32(outside, locator + 8, uint32_t(zip.size()));
  expectNpzError(outside, "Zip64 locator points outside the file");

  auto badSig = zip;
  size_t record = le32(zip, locator + 8);
  badSig[record] = 'X';
  expectNpzError(badSig, "bad Zip64 end-of-central-directory signature");

  auto hugeCount = zip; // entries in the Zip64 record
  hugeCount[record + 32 + 7] = hugeCount[record + 24 + 7] = 0x10;
  expectNpzError(hugeCount, "cannot hold them");

  // Shrink the central entry's extra field so its Zip64 values are missing.
  auto shortExtra = zip;
  size_t cd = le32(zip, record + 48);
  shortExtra[cd + 46 + 5 + 2] = 8; // Zip64 field length 24 -> 8
  expectNpzError(shortExtra, "Zip64 extra field of entry 'x.npy' is too short");
}

TEST(Npz, RejectsDuplicateAndMismatchedNames) {
  NamedArrays arrays;
  arrays.emplace_back("a", patterned("f4", {1}));
  arrays.emplace_back("b", patterned("f4", {1}));
  std::vector<uint8_t> zip;
  std::string error;
  ASSERT_TRUE(serializeNpz(arrays, zip, error));
  auto rename = [](std::vector<uint8_t> bytes, const std::string &from,
                   const std::string &to, bool all) {
    for (auto it = bytes.begin();
         (it = std::search(it, bytes.end(), from.begin(), from.end())) !=
         bytes.end();) {
      std::copy(to.begin(), to.end(), it);
      if (!all)
        break;
    }
    return bytes;
  };
  expectNpzError(rename(zip, "b.npy", "a.npy", true),
                 "member 'a.npy' appears twice");
  // Only the first "b.npy" (the local header) changes.
  expectNpzError(rename(zip, "b.npy", "c.npy", false),
                 "local header name does not match");
}

TEST(Npz, MemberErrorsNameFileAndMember) {
  // A member whose npy header lies about its shape, with a CRC that matches
  // the lie, so the error comes from the .npy check.
  Array a = patterned("f4", {2});
  NamedArrays arrays;
  arrays.emplace_back("big", a);
  std::vector<uint8_t> zip, member;
  std::string error;
  ASSERT_TRUE(serializeNpz(arrays, zip, error));
  ASSERT_TRUE(serializeNpy(a, member, error));
  size_t start =
      size_t(std::search(zip.begin(), zip.end(), member.begin(), member.end()) -
             zip.begin());
  ASSERT_LT(start, zip.size());
  std::string from = "(2,)", to = "(3,)";
  auto it = std::search(zip.begin() + ptrdiff_t(start), zip.end(), from.begin(),
                        from.end());
  ASSERT_NE(it, zip.end());
  std::copy(to.begin(), to.end(), it);
  uint32_t crc = crc32(zip.data() + start, member.size());
  set32(zip, 14, crc);                         // local header
  set32(zip, centralDirectory(zip) + 16, crc); // central directory

  std::string path = tempPath("lying.npz");
  writeFile(path, zip);
  NamedArrays out;
  EXPECT_FALSE(readNpz(path, out, error));
  EXPECT_EQ(error, path + ": member 'big.npy': data is 8 bytes but shape (3,) "
                          "of f4 needs 12 (truncated file?)");
  std::remove(path.c_str());

  EXPECT_FALSE(readNpz(tempPath("missing.npz"), out, error));
  EXPECT_NE(error.find("missing.npz: cannot open"), std::string::npos) << error;
}

} // namespace
