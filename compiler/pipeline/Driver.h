//===- Driver.h - What kilnc and kiln-eval do, as a library -----*- C++ -*-===//
#ifndef KILN_COMPILER_PIPELINE_DRIVER_H
#define KILN_COMPILER_PIPELINE_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

using InputShapes = std::map<std::string, llvm::SmallVector<int64_t>>;

/// Parses `--input-shape` values: `name=1x128`, several separated by ',' or
/// given repeatedly; `name=` (empty) is a scalar. Fails with a message.
mlir::LogicalResult parseInputShapes(llvm::ArrayRef<std::string> specs,
                                     InputShapes &shapes, std::string &error);

struct FrontendOptions {
  std::string modelPath;
  InputShapes inputShapes;
  /// `--input-value name=file.npy`: graph inputs frozen to constants.
  std::vector<std::string> inputValues;
  unsigned optLevel = 2;
  /// `--precision`: "fp32" (as exported), "fp16", "bf16" (tensors
  /// converted) or "tf32" (f32 tensors, matmul operands rounded to tf32).
  std::string precision = "fp32";
  bool verbose = false;
};

/// Checks a `--precision` value; fails with a message naming the choices.
mlir::LogicalResult checkPrecision(const std::string &precision,
                                   std::string &error);

/// Imports the model and runs the graph pipeline of `optLevel`. Errors go to
/// `errs` one line each (`model.onnx: node 'name' (Op): error: ...`).
mlir::OwningOpRef<mlir::ModuleOp> importAndOptimize(mlir::MLIRContext &context,
                                                    const FrontendOptions &options,
                                                    llvm::raw_ostream &errs);

/// While alive, prints every error diagnostic of `context` as one line
/// `model.onnx: node 'name': error: ...` (the node from the op's location).
class ModelDiagnosticPrinter {
public:
  ModelDiagnosticPrinter(mlir::MLIRContext &context, std::string modelPath,
                         llvm::raw_ostream &errs);
  ~ModelDiagnosticPrinter();
  bool sawError() const { return errors > 0; }

private:
  mlir::MLIRContext &context;
  std::string modelPath;
  llvm::raw_ostream &errs;
  uint64_t id;
  int errors = 0;
};

/// Registers every dialect the compiler produces.
void registerKilnDialects(mlir::MLIRContext &context);

} // namespace kiln

#endif
