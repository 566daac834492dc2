//===- TensorBytes.cpp - Raw device bytes of constants and tensors --------===//
#include "compiler/codegen/TensorBytes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

namespace kiln::codegen {

std::vector<char> packTensor(const eval::Tensor &t) {
  using eval::DType;
  unsigned bytes = t.dtype() == DType::I1 ? 1 : eval::bitWidth(t.dtype()) / 8;
  std::vector<char> out(static_cast<size_t>(t.numElements()) * bytes);
  char *p = out.data();
  for (int64_t i = 0, n = t.numElements(); i < n; ++i, p += bytes) {
    switch (t.dtype()) {
    case DType::F16: {
      uint16_t h = eval::floatToHalfBits(static_cast<float>(t.floats()[i]));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::BF16: {
      uint16_t h = eval::floatToBF16Bits(static_cast<float>(t.floats()[i]));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::F32: {
      float f = static_cast<float>(t.floats()[i]);
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(p, &t.floats()[i], 8);
      break;
    default: {
      int64_t v = t.ints()[i]; // little-endian: the low `bytes` bytes
      std::memcpy(p, &v, bytes);
      break;
    }
    }
  }
  return out;
}

bool packElements(ElementsAttr attr, std::vector<char> &out,
                  std::string &error) {
  auto type = cast<ShapedType>(attr.getType());
  Type et = type.getElementType();
  if (!et.isIntOrFloat()) {
    error = "unsupported element type";
    return false;
  }
  unsigned bits = et.getIntOrFloatBitWidth();
  size_t elemBytes = bits <= 8 ? 1 : bits / 8;
  size_t n = static_cast<size_t>(type.getNumElements());
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) {
      error = "its dense_resource blob has no data (elided from the IR?)";
      return false;
    }
    ArrayRef<char> data = blob->getData();
    if (data.size() != n * elemBytes) {
      error = "its blob has " + std::to_string(data.size()) +
              " bytes, expected " + std::to_string(n * elemBytes);
      return false;
    }
    out.assign(data.begin(), data.end());
    return true;
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (bits == 1) {
      out.resize(n);
      size_t i = 0;
      for (bool b : dense.getValues<bool>())
        out[i++] = b ? 1 : 0;
      return true;
    }
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      out.resize(n * elemBytes);
      for (size_t i = 0; i < n; ++i)
        std::memcpy(out.data() + i * elemBytes, raw.data(), elemBytes);
      return true;
    }
    if (raw.size() == n * elemBytes) {
      out.assign(raw.begin(), raw.end());
      return true;
    }
  }
  FailureOr<eval::Tensor> t = eval::tensorFromAttr(attr);
  if (failed(t)) {
    error = "its elements cannot be read";
    return false;
  }
  out = packTensor(*t);
  return true;
}

} // namespace kiln::codegen
