//===- Tensor.cpp - Host tensors, rounding and attribute conversion -------===//
#include "compiler/evaluator/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/ErrorHandling.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace kiln::eval {

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}

bool isUnsigned(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 ||
         t == DType::U64;
}

unsigned bitWidth(DType t) {
  switch (t) {
  case DType::I1:
    return 1;
  case DType::I8:
  case DType::U8:
    return 8;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 16;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 32;
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 64;
  }
  llvm_unreachable("unknown dtype");
}

StringRef dtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "ui8";
  case DType::U16:
    return "ui16";
  case DType::U32:
    return "ui32";
  case DType::U64:
    return "ui64";
  }
  llvm_unreachable("unknown dtype");
}

Type dtypeToMlir(DType t, MLIRContext *ctx) {
  switch (t) {
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F64:
    return Float64Type::get(ctx);
  default:
    return IntegerType::get(ctx, bitWidth(t),
                            isUnsigned(t) ? IntegerType::Unsigned
                                          : IntegerType::Signless);
  }
}

FailureOr<DType> dtypeFromMlir(Type t) {
  if (t.isF16())
    return DType::F16;
  if (t.isBF16())
    return DType::BF16;
  if (t.isF32())
    return DType::F32;
  if (t.isF64())
    return DType::F64;
  auto it = dyn_cast<IntegerType>(t);
  if (!it)
    return failure();
  bool u = it.isUnsigned();
  switch (it.getWidth()) {
  case 1:
    return DType::I1;
  case 8:
    return u ? DType::U8 : DType::I8;
  case 16:
    return u ? DType::U16 : DType::I16;
  case 32:
    return u ? DType::U32 : DType::I32;
  case 64:
    return u ? DType::U64 : DType::I64;
  default:
    return failure();
  }
}

//===----------------------------------------------------------------------===//
// f16 / bf16
//===----------------------------------------------------------------------===//

// floatToHalfBits and friends: HalfBits.h.

//===----------------------------------------------------------------------===//
// Rounding and wrapping
//===----------------------------------------------------------------------===//

// Rounding double -> float -> half (or bf16) equals rounding double -> half
// directly: binary32 has more than 2p+2 significand bits for p = 11 and 8.
double roundToDType(DType t, double v) {
  switch (t) {
  case DType::F64:
    return v;
  case DType::F32:
    return static_cast<float>(v);
  case DType::F16:
    return halfBitsToFloat(floatToHalfBits(static_cast<float>(v)));
  case DType::BF16:
    return bf16BitsToFloat(floatToBF16Bits(static_cast<float>(v)));
  default:
    return v;
  }
}

int64_t wrapToDType(DType t, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
  case DType::I1:
    return v != 0;
  case DType::I8:
    return static_cast<int8_t>(static_cast<uint8_t>(u));
  case DType::I16:
    return static_cast<int16_t>(static_cast<uint16_t>(u));
  case DType::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(u));
  case DType::U8:
    return u & 0xffu;
  case DType::U16:
    return u & 0xffffu;
  case DType::U32:
    return u & 0xffffffffu;
  default:
    return v;
  }
}

int64_t castFloatToInt(DType t, double v) {
  if (t == DType::I1)
    return v != 0; // NaN != 0 is true, as in ONNX.
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  unsigned w = bitWidth(t);
  if (isUnsigned(t)) {
    if (v <= 0)
      return 0;
    if (v >= std::ldexp(1.0, w))
      return static_cast<int64_t>(w == 64 ? ~uint64_t(0)
                                          : (uint64_t(1) << w) - 1);
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  double lim = std::ldexp(1.0, w - 1);
  uint64_t maxVal = (uint64_t(1) << (w - 1)) - 1;
  if (v >= lim)
    return static_cast<int64_t>(maxVal);
  if (v < -lim)
    return static_cast<int64_t>(~maxVal);
  return static_cast<int64_t>(v);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::vector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

int64_t numElementsOf(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string describe(DType t, ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + dtypeName(t).str();
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

Tensor::Tensor(DType dtype, ArrayRef<int64_t> shape)
    : type(dtype), dims(shape.begin(), shape.end()),
      count(numElementsOf(shape)) {
  if (eval::isFloat(dtype))
    fdata.assign(count, 0.0);
  else
    idata.assign(count, 0);
}

Tensor Tensor::zeros(DType dtype, ArrayRef<int64_t> shape) {
  return Tensor(dtype, shape);
}

Tensor Tensor::filled(DType dtype, ArrayRef<int64_t> shape, double value) {
  Tensor t(dtype, shape);
  if (t.isFloat())
    t.fdata.assign(t.count, roundToDType(dtype, value));
  else
    t.idata.assign(t.count, castFloatToInt(dtype, value));
  return t;
}

Tensor Tensor::fromFloats(DType dtype, ArrayRef<int64_t> shape,
                          std::vector<double> data) {
  Tensor t(dtype, shape);
  assert(static_cast<int64_t>(data.size()) == t.count && "size mismatch");
  if (t.isFloat()) {
    t.fdata = std::move(data);
  } else {
    for (int64_t i = 0; i < t.count; ++i)
      t.idata[i] = castFloatToInt(dtype, data[i]);
  }
  t.normalize();
  return t;
}

Tensor Tensor::fromInts(DType dtype, ArrayRef<int64_t> shape,
                        std::vector<int64_t> data) {
  Tensor t(dtype, shape);
  assert(static_cast<int64_t>(data.size()) == t.count && "size mismatch");
  if (t.isFloat()) {
    for (int64_t i = 0; i < t.count; ++i)
      t.fdata[i] = static_cast<double>(data[i]);
  } else {
    t.idata = std::move(data);
  }
  t.normalize();
  return t;
}

double Tensor::getDouble(int64_t i) const {
  if (isFloat())
    return fdata[i];
  if (isUnsigned())
    return static_cast<double>(static_cast<uint64_t>(idata[i]));
  return static_cast<double>(idata[i]);
}

int64_t Tensor::getInt(int64_t i) const {
  return isFloat() ? castFloatToInt(DType::I64, fdata[i]) : idata[i];
}

void Tensor::setDouble(int64_t i, double v) {
  if (isFloat())
    fdata[i] = roundToDType(type, v);
  else
    idata[i] = castFloatToInt(type, v);
}

void Tensor::setInt(int64_t i, int64_t v) {
  if (isFloat())
    fdata[i] = roundToDType(type, static_cast<double>(v));
  else
    idata[i] = wrapToDType(type, v);
}

Tensor Tensor::reshaped(ArrayRef<int64_t> newShape) const {
  assert(numElementsOf(newShape) == count && "reshape changes the size");
  Tensor t = *this;
  t.dims.assign(newShape.begin(), newShape.end());
  return t;
}

void Tensor::normalize() {
  if (isFloat()) {
    if (type != DType::F64)
      for (double &v : fdata)
        v = roundToDType(type, v);
  } else if (type != DType::I64 && type != DType::U64) {
    for (int64_t &v : idata)
      v = wrapToDType(type, v);
  }
}

bool Tensor::identical(const Tensor &o) const {
  if (type != o.type || dims != o.dims)
    return false;
  if (!isFloat())
    return idata == o.idata;
  for (int64_t i = 0; i < count; ++i) {
    double a = fdata[i], b = o.fdata[i];
    if (a == b ? std::signbit(a) != std::signbit(b)
               : !(std::isnan(a) && std::isnan(b)))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// Bytes per element in a dense_resource blob.
static unsigned blobElementBytes(DType t) {
  return t == DType::I1 ? 1 : bitWidth(t) / 8;
}

static FailureOr<Tensor> tensorFromBlob(ArrayRef<char> data, DType dtype,
                                        ArrayRef<int64_t> shape) {
  Tensor t(dtype, shape);
  int64_t n = t.numElements();
  unsigned bytes = blobElementBytes(dtype);
  if (static_cast<int64_t>(data.size()) != n * bytes)
    return failure();
  namespace endian = llvm::support::endian;
  constexpr auto le = llvm::endianness::little;
  const char *p = data.data();
  for (int64_t i = 0; i < n; ++i, p += bytes) {
    switch (dtype) {
    case DType::F16:
      t.floats()[i] = halfBitsToFloat(endian::read<uint16_t, le>(p));
      break;
    case DType::BF16:
      t.floats()[i] = bf16BitsToFloat(endian::read<uint16_t, le>(p));
      break;
    case DType::F32:
      t.floats()[i] = endian::read<float, le>(p);
      break;
    case DType::F64:
      t.floats()[i] = endian::read<double, le>(p);
      break;
    case DType::I1:
      t.ints()[i] = *p != 0;
      break;
    case DType::I8:
      t.ints()[i] = static_cast<int8_t>(*p);
      break;
    case DType::U8:
      t.ints()[i] = static_cast<uint8_t>(*p);
      break;
    case DType::I16:
      t.ints()[i] = endian::read<int16_t, le>(p);
      break;
    case DType::U16:
      t.ints()[i] = endian::read<uint16_t, le>(p);
      break;
    case DType::I32:
      t.ints()[i] = endian::read<int32_t, le>(p);
      break;
    case DType::U32:
      t.ints()[i] = endian::read<uint32_t, le>(p);
      break;
    case DType::I64:
    case DType::U64:
      t.ints()[i] = endian::read<int64_t, le>(p);
      break;
    }
  }
  return t;
}

static double apfloatToDouble(const llvm::APFloat &f) {
  llvm::APFloat d = f;
  bool lost;
  d.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return d.convertToDouble();
}

static int64_t apintToInt(const llvm::APInt &v, DType dtype) {
  if (dtype == DType::I1)
    return !v.isZero();
  return isUnsigned(dtype) ? static_cast<int64_t>(v.getZExtValue())
                           : v.getSExtValue();
}

FailureOr<Tensor> tensorFromAttr(ElementsAttr attr) {
  if (!attr)
    return failure();
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape())
    return failure();
  FailureOr<DType> dtype = dtypeFromMlir(type.getElementType());
  if (failed(dtype))
    return failure();
  ArrayRef<int64_t> shape = type.getShape();

  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    const AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) // e.g. dense_resource<__elided__>
      return failure();
    return tensorFromBlob(blob->getData(), *dtype, shape);
  }

  Tensor t(*dtype, shape);
  int64_t n = t.numElements();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    int64_t i = 0;
    if (*dtype == DType::F32) {
      for (float v : dense.getValues<float>())
        t.floats()[i++] = v;
    } else if (*dtype == DType::F64) {
      for (double v : dense.getValues<double>())
        t.floats()[i++] = v;
    } else if (t.isFloat()) {
      for (const llvm::APFloat &v : dense.getValues<llvm::APFloat>())
        t.floats()[i++] = apfloatToDouble(v);
    } else {
      for (const llvm::APInt &v : dense.getValues<llvm::APInt>())
        t.ints()[i++] = apintToInt(v, *dtype);
    }
    if (i != n)
      return failure();
    return t;
  }

  // Any other ElementsAttr (sparse, dialect attributes) that iterates.
  int64_t i = 0;
  if (t.isFloat()) {
    auto values = attr.tryGetValues<llvm::APFloat>();
    if (!values)
      return failure();
    for (const llvm::APFloat &v : *values)
      t.floats()[i++] = apfloatToDouble(v);
  } else {
    auto values = attr.tryGetValues<llvm::APInt>();
    if (!values)
      return failure();
    for (const llvm::APInt &v : *values)
      t.ints()[i++] = apintToInt(v, *dtype);
  }
  if (i != n)
    return failure();
  t.normalize();
  return t;
}

ElementsAttr tensorToAttr(const Tensor &t, RankedTensorType type) {
  FailureOr<DType> dtype = dtypeFromMlir(type.getElementType());
  if (failed(dtype) || *dtype != t.dtype() || type.getShape() != t.shape())
    return {};
  int64_t n = t.numElements();
  if (t.dtype() == DType::I1) {
    SmallVector<bool> bits(n);
    for (int64_t i = 0; i < n; ++i)
      bits[i] = t.ints()[i] != 0;
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  // Everything else goes through the raw little-endian buffer.
  unsigned bytes = bitWidth(t.dtype()) / 8;
  std::vector<char> raw(static_cast<size_t>(n) * bytes);
  namespace endian = llvm::support::endian;
  constexpr auto le = llvm::endianness::little;
  char *p = raw.data();
  for (int64_t i = 0; i < n; ++i, p += bytes) {
    switch (t.dtype()) {
    case DType::F16:
      endian::write<uint16_t, le>(
          p, floatToHalfBits(static_cast<float>(t.floats()[i])));
      break;
    case DType::BF16:
      endian::write<uint16_t, le>(
          p, floatToBF16Bits(static_cast<float>(t.floats()[i])));
      break;
    case DType::F32:
      endian::write<float, le>(p, static_cast<float>(t.floats()[i]));
      break;
    case DType::F64:
      endian::write<double, le>(p, t.floats()[i]);
      break;
    case DType::I8:
    case DType::U8:
      *p = static_cast<char>(t.ints()[i]);
      break;
    case DType::I16:
    case DType::U16:
      endian::write<uint16_t, le>(p, static_cast<uint16_t>(t.ints()[i]));
      break;
    case DType::I32:
    case DType::U32:
      endian::write<uint32_t, le>(p, static_cast<uint32_t>(t.ints()[i]));
      break;
    case DType::I64:
    case DType::U64:
      endian::write<uint64_t, le>(p, static_cast<uint64_t>(t.ints()[i]));
      break;
    case DType::I1:
      break;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(raw));
}

//===----------------------------------------------------------------------===//
// Random tensors
//===----------------------------------------------------------------------===//

namespace {
/// splitmix64: tiny, fast and good enough for test inputs.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};
} // namespace

Tensor randomTensor(DType dtype, ArrayRef<int64_t> shape, uint64_t seed) {
  Tensor t(dtype, shape);
  SplitMix64 rng{seed};
  int64_t n = t.numElements();
  if (t.isFloat()) {
    // -1 + k * 2^-m with m the dtype's fraction bits is exactly representable
    // and stays in [-1, 1).
    int m = dtype == DType::F16    ? 10
            : dtype == DType::BF16 ? 7
            : dtype == DType::F32  ? 23
                                   : 52;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t k = rng.next() >> (64 - (m + 1));
      t.floats()[i] = -1.0 + std::ldexp(static_cast<double>(k), -m);
    }
  } else if (dtype == DType::I1) {
    for (int64_t i = 0; i < n; ++i)
      t.ints()[i] = rng.next() >> 63;
  } else {
    for (int64_t i = 0; i < n; ++i)
      t.ints()[i] = static_cast<int64_t>(rng.next() % 10);
  }
  return t;
}

} // namespace kiln::eval
