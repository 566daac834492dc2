//===- OnnxImporter.h - ONNX model to graph dialect -------------*- C++ -*-===//
#ifndef KILN_COMPILER_FRONTEND_ONNX_ONNXIMPORTER_H
#define KILN_COMPILER_FRONTEND_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <string>

namespace kiln::onnx_frontend {

struct ImportOptions {
  /// Path of the .onnx file; also the name errors start with.
  std::string modelPath;
  /// Static shapes for graph inputs (`--input-shape name=1x128`).
  std::map<std::string, llvm::SmallVector<int64_t>> inputShapes;
  /// Graph inputs frozen to constant values (`--input-value name=x.npy`),
  /// for inputs that feed shape operands. Raw little-endian bytes in C order
  /// (one byte per bool) of the given type.
  struct FrozenInput {
    mlir::RankedTensorType type;
    std::vector<char> bytes;
  };
  std::map<std::string, FrozenInput> inputValues;
  /// Constants with at most this many elements are printed inline as
  /// dense<...>; larger ones become dense_resource blobs.
  int64_t inlineConstantLimit = 16;
  /// Ops whose operands are all constants and hold at most this many
  /// elements in total are evaluated while importing (shape subgraphs).
  int64_t importFoldLimit = 1 << 16;
};

/// Parses `options.modelPath` and builds a module with one `func.func @main`.
/// On failure returns null after passing every error, one line each in the
/// form `model.onnx: node 'name' (OpType): error: ...`, to `emitError`.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxModel(mlir::MLIRContext &context, const ImportOptions &options,
                llvm::function_ref<void(const std::string &)> emitError);

/// Registers the dialects the importer produces.
void registerImporterDialects(mlir::MLIRContext &context);

/// The ONNX op types (default domain) the importer handles, sorted.
std::vector<std::string> supportedOnnxOps();

} // namespace kiln::onnx_frontend

#endif
