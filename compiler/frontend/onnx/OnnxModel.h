//===- OnnxModel.h - Reading ONNX protobufs and tensor payloads -*- C++ -*-===//
//
// Loads a ModelProto from disk with size checks, converts ONNX element types
// and shapes to MLIR types, and extracts tensor payloads from raw, typed and
// external-data fields. External data is confined to the model's folder.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_FRONTEND_ONNX_ONNXMODEL_H
#define KILN_COMPILER_FRONTEND_ONNX_ONNXMODEL_H

#include "onnx.pb.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln::onnx_frontend {

/// Parses the model file; the error names what is wrong with the file.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
loadModelProto(const std::string &path);

/// Maps an ONNX TensorProto.DataType to an MLIR element type, or failure for
/// types Kiln does not handle (strings, complex, float8, 4-bit).
mlir::FailureOr<mlir::Type> elementTypeFromOnnx(int32_t onnxType,
                                                mlir::MLIRContext *ctx);
std::string onnxTypeName(int32_t onnxType);

/// Bytes per element of an MLIR element type as ONNX stores it (i1: 1).
int64_t storageBytes(mlir::Type elementType);

/// Checks dimensions (non-negative, product fits in 2^48 elements, bytes fit
/// in int64) and returns the element count.
llvm::Expected<int64_t> checkedElementCount(llvm::ArrayRef<int64_t> shape,
                                            mlir::Type elementType);

/// A tensor payload in Kiln's storage layout: little-endian, C order, one
/// byte per bool, raw 16-bit patterns for f16/bf16.
struct TensorPayload {
  mlir::RankedTensorType type;
  std::vector<char> bytes;
};

/// Reads a TensorProto (initializer or Constant value). `modelDir` is the
/// folder external data must stay inside.
llvm::Expected<TensorPayload> readTensor(const onnx::TensorProto &tensor,
                                         const std::string &modelDir,
                                         mlir::MLIRContext *ctx);

} // namespace kiln::onnx_frontend

#endif
