//===- OnnxModel.cpp - Reading ONNX protobufs and tensor payloads ---------===//
#include "compiler/frontend/onnx/OnnxModel.h"

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <fstream>

using namespace mlir;
using llvm::createStringError;
using llvm::Expected;

namespace kiln::onnx_frontend {

static llvm::Error err(const llvm::Twine &msg) {
  return createStringError(llvm::inconvertibleErrorCode(), msg);
}

Expected<std::unique_ptr<onnx::ModelProto>> loadModelProto(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return err("cannot read the model file: " + buffer.getError().message());
  llvm::StringRef data = (*buffer)->getBuffer();
  if (data.empty())
    return err("the file is empty, not an ONNX model");
  if (data.size() > (size_t)INT32_MAX)
    return err("the model file is larger than 2 GiB; store weights as external data");
  auto model = std::make_unique<onnx::ModelProto>();
  google::protobuf::io::ArrayInputStream raw(data.data(), (int)data.size());
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!model->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return err("the file is not a valid ONNX model (protobuf parse failed; "
               "truncated or not ONNX)");
  if (!model->has_graph())
    return err("the file is not a valid ONNX model (no graph)");
  if (model->ir_version() <= 0 || model->opset_import_size() == 0)
    return err("the file is not a valid ONNX model (missing ir_version or opset_import)");
  return model;
}

FailureOr<Type> elementTypeFromOnnx(int32_t t, MLIRContext *ctx) {
  Builder b(ctx);
  using TP = onnx::TensorProto;
  switch (t) {
  case TP::FLOAT: return b.getF32Type();
  case TP::FLOAT16: return b.getF16Type();
  case TP::BFLOAT16: return b.getBF16Type();
  case TP::DOUBLE: return b.getF64Type();
  case TP::BOOL: return b.getI1Type();
  case TP::INT8: return b.getIntegerType(8);
  case TP::INT16: return b.getIntegerType(16);
  case TP::INT32: return b.getI32Type();
  case TP::INT64: return b.getI64Type();
  case TP::UINT8: return b.getIntegerType(8, /*isSigned=*/false);
  case TP::UINT16: return b.getIntegerType(16, false);
  case TP::UINT32: return b.getIntegerType(32, false);
  case TP::UINT64: return b.getIntegerType(64, false);
  default: return failure();
  }
}

std::string onnxTypeName(int32_t t) {
  if (onnx::TensorProto::DataType_IsValid(t))
    return onnx::TensorProto::DataType_Name((onnx::TensorProto::DataType)t);
  return std::to_string(t);
}

int64_t storageBytes(Type t) {
  unsigned bits = t.getIntOrFloatBitWidth();
  return bits == 1 ? 1 : bits / 8;
}

Expected<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> shape, Type et) {
  constexpr int64_t kMaxElements = int64_t(1) << 48;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return err("negative dimension " + llvm::Twine(d));
    if (d != 0 && n > kMaxElements / d)
      return err("shape overflows: more than 2^48 elements");
    n *= d;
  }
  (void)et;
  return n;
}

/// Resolves an external-data location against the model folder; rejects
/// absolute paths, '..' components and symlinks that lead outside.
static Expected<std::string> resolveExternal(const std::string &location,
                                             const std::string &modelDir) {
  if (location.empty())
    return err("external data has an empty location");
  if (llvm::sys::path::is_absolute(location))
    return err("external data location '" + location +
               "' is an absolute path; only files inside the model's folder are allowed");
  for (auto it = llvm::sys::path::begin(location),
            e = llvm::sys::path::end(location); it != e; ++it)
    if (*it == "..")
      return err("external data location '" + location +
                 "' leaves the model's folder");
  llvm::SmallString<256> dirReal, fileReal;
  if (llvm::sys::fs::real_path(modelDir.empty() ? "." : modelDir, dirReal))
    return err("cannot resolve the model's folder '" + modelDir + "'");
  llvm::SmallString<256> joined(dirReal);
  llvm::sys::path::append(joined, location);
  if (std::error_code ec = llvm::sys::fs::real_path(joined, fileReal))
    return err("external data file '" + location + "' cannot be opened: " + ec.message());
  llvm::StringRef f = fileReal;
  if (!f.starts_with(dirReal) || f.size() <= dirReal.size() ||
      !llvm::sys::path::is_separator(f[dirReal.size()]))
    return err("external data location '" + location +
               "' resolves outside the model's folder (through a symlink)");
  return std::string(fileReal);
}

static Expected<std::vector<char>> readExternal(const onnx::TensorProto &t,
                                                const std::string &modelDir,
                                                int64_t needBytes) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : t.external_data()) {
    if (kv.key() == "location")
      location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v;
      if (!llvm::to_integer(kv.value(), v, 10) || v < 0)
        return err("external data " + kv.key() + " '" + kv.value() + "' is not a non-negative integer");
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  auto path = resolveExternal(location, modelDir);
  if (!path)
    return path.takeError();
  uint64_t fileSize = 0;
  if (llvm::sys::fs::file_size(*path, fileSize))
    return err("cannot stat external data file '" + location + "'");
  if (length < 0)
    length = (int64_t)fileSize - offset;
  if (offset > (int64_t)fileSize || length > (int64_t)fileSize - offset)
    return err("external data [" + llvm::Twine(offset) + ", +" + llvm::Twine(length) +
               ") runs past the end of '" + location + "' (" + llvm::Twine(fileSize) + " bytes)");
  if (length != needBytes)
    return err("external data has " + llvm::Twine(length) + " bytes but the shape needs " +
               llvm::Twine(needBytes));
  std::vector<char> bytes(needBytes);
  std::ifstream in(*path, std::ios::binary);
  in.seekg(offset);
  if (!in.read(bytes.data(), needBytes))
    return err("reading external data from '" + location + "' failed");
  return bytes;
}

template <typename Src, typename Dst>
static void packTyped(const Src &field, std::vector<char> &out) {
  out.resize(field.size() * sizeof(Dst));
  Dst *p = reinterpret_cast<Dst *>(out.data());
  for (int i = 0; i < field.size(); ++i)
    p[i] = static_cast<Dst>(field.Get(i));
}

Expected<TensorPayload> readTensor(const onnx::TensorProto &t,
                                   const std::string &modelDir, MLIRContext *ctx) {
  auto et = elementTypeFromOnnx(t.data_type(), ctx);
  if (failed(et))
    return err("unsupported element type " + onnxTypeName(t.data_type()));
  if (t.has_segment())
    return err("segmented tensors are not supported");
  llvm::SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto count = checkedElementCount(shape, *et);
  if (!count)
    return count.takeError();
  int64_t elemBytes = storageBytes(*et);
  if (*count > INT64_MAX / elemBytes)
    return err("tensor is too large");
  int64_t need = *count * elemBytes;
  TensorPayload out{RankedTensorType::get(shape, *et), {}};

  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    auto bytes = readExternal(t, modelDir, need);
    if (!bytes)
      return bytes.takeError();
    out.bytes = std::move(*bytes);
    return out;
  }
  if (t.has_raw_data()) {
    if ((int64_t)t.raw_data().size() != need)
      return err("data has " + llvm::Twine(t.raw_data().size()) +
                 " bytes but the shape needs " + llvm::Twine(need));
    out.bytes.assign(t.raw_data().begin(), t.raw_data().end());
    return out;
  }
  using TP = onnx::TensorProto;
  int64_t have = -1;
  switch (t.data_type()) {
  case TP::FLOAT: have = t.float_data_size(); packTyped<decltype(t.float_data()), float>(t.float_data(), out.bytes); break;
  case TP::DOUBLE: have = t.double_data_size(); packTyped<decltype(t.double_data()), double>(t.double_data(), out.bytes); break;
  case TP::INT64: have = t.int64_data_size(); packTyped<decltype(t.int64_data()), int64_t>(t.int64_data(), out.bytes); break;
  case TP::UINT64: have = t.uint64_data_size(); packTyped<decltype(t.uint64_data()), uint64_t>(t.uint64_data(), out.bytes); break;
  case TP::UINT32: have = t.uint64_data_size(); packTyped<decltype(t.uint64_data()), uint32_t>(t.uint64_data(), out.bytes); break;
  case TP::INT32: have = t.int32_data_size(); packTyped<decltype(t.int32_data()), int32_t>(t.int32_data(), out.bytes); break;
  case TP::INT16: have = t.int32_data_size(); packTyped<decltype(t.int32_data()), int16_t>(t.int32_data(), out.bytes); break;
  case TP::UINT16: case TP::FLOAT16: case TP::BFLOAT16:
    have = t.int32_data_size(); packTyped<decltype(t.int32_data()), uint16_t>(t.int32_data(), out.bytes); break;
  case TP::INT8: have = t.int32_data_size(); packTyped<decltype(t.int32_data()), int8_t>(t.int32_data(), out.bytes); break;
  case TP::UINT8: case TP::BOOL:
    have = t.int32_data_size(); packTyped<decltype(t.int32_data()), uint8_t>(t.int32_data(), out.bytes); break;
  default: return err("unsupported element type " + onnxTypeName(t.data_type()));
  }
  if (have != *count)
    return err("data has " + llvm::Twine(have) + " elements but the shape needs " +
               llvm::Twine(*count));
  if (t.data_type() == TP::BOOL)
    for (char &c : out.bytes)
      c = c != 0;
  return out;
}

} // namespace kiln::onnx_frontend
