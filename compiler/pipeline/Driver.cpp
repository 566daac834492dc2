//===- Driver.cpp - What kilnc and kiln-eval do, as a library -------------===//
#include "compiler/pipeline/Driver.h"

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/pipeline/Pipeline.h"
#include "dialects/graph/GraphDialect.h"
#include "support/npy/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Timer.h"

using namespace mlir;

namespace kiln {

LogicalResult parseInputShapes(llvm::ArrayRef<std::string> specs,
                               InputShapes &shapes, std::string &error) {
  for (const std::string &spec : specs) {
    llvm::SmallVector<llvm::StringRef> items;
    llvm::StringRef(spec).split(items, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef item : items) {
      auto [name, dims] = item.split('=');
      if (name.empty() || !item.contains('=')) {
        error = "--input-shape '" + item.str() + "' must look like name=1x128";
        return failure();
      }
      llvm::SmallVector<int64_t> shape;
      llvm::SmallVector<llvm::StringRef> parts;
      dims.split(parts, 'x', -1, /*KeepEmpty=*/true);
      for (llvm::StringRef p : parts) {
        if (dims.empty())
          break;
        int64_t d;
        if (p.getAsInteger(10, d) || d < 0) {
          error = "--input-shape '" + item.str() + "': dimension '" + p.str() +
                  "' is not a non-negative integer";
          return failure();
        }
        shape.push_back(d);
      }
      if (!shapes.emplace(name.str(), shape).second) {
        error = "--input-shape names '" + name.str() + "' twice";
        return failure();
      }
    }
  }
  return success();
}

/// Reads `name=file.npy` specs into frozen importer inputs.
static LogicalResult loadInputValues(MLIRContext &ctx, llvm::ArrayRef<std::string> specs,
                                     onnx_frontend::ImportOptions &options,
                                     llvm::raw_ostream &errs) {
  Builder b(&ctx);
  for (const std::string &spec : specs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (name.empty() || path.empty()) {
      errs << "kilnc: error: --input-value '" << spec << "' must look like name=file.npy\n";
      return failure();
    }
    npy::Array array;
    std::string error;
    if (!npy::readNpy(path.str(), array, error)) {
      errs << error << "\n";
      return failure();
    }
    static const std::pair<const char *, int> kTypes[] = {
        {"f2", 16}, {"f4", 32}, {"f8", 64}, {"b1", 1}, {"i1", -8}, {"i2", -16},
        {"i4", -32}, {"i8", -64}, {"u1", 8}, {"u2", 116}, {"u4", 132}, {"u8", 164}};
    Type et;
    for (auto [descr, code] : kTypes) {
      if (array.dtype != descr)
        continue;
      if (descr[0] == 'f')
        et = code == 16 ? Type(b.getF16Type()) : code == 32 ? Type(b.getF32Type()) : Type(b.getF64Type());
      else if (code == 1)
        et = b.getI1Type();
      else if (code < 0)
        et = b.getIntegerType(-code);
      else
        et = b.getIntegerType(code == 8 ? 8 : code - 100, /*isSigned=*/false);
    }
    if (!et) {
      errs << path << ": error: numpy dtype '" << array.dtype << "' is not supported for --input-value\n";
      return failure();
    }
    auto type = RankedTensorType::get(array.shape, et);
    options.inputValues[name.str()] = {type, std::vector<char>(array.data.begin(), array.data.end())};
  }
  return success();
}

void registerKilnDialects(MLIRContext &context) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
}

/// Formats a diagnostic from a pass: the ONNX node name comes from the
/// op's NameLoc.
static std::string formatDiagnostic(const std::string &model, Diagnostic &diag) {
  std::string node;
  diag.getLocation()->walk([&](Location loc) {
    if (auto name = dyn_cast<NameLoc>(loc)) {
      node = name.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  std::string line = model + ": ";
  if (!node.empty())
    line += "node '" + node + "': ";
  return line + "error: " + diag.str();
}

ModelDiagnosticPrinter::ModelDiagnosticPrinter(MLIRContext &context, std::string modelPath,
                                               llvm::raw_ostream &errs)
    : context(context), modelPath(std::move(modelPath)), errs(errs) {
  id = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      this->errs << formatDiagnostic(this->modelPath, diag) << "\n";
      ++errors;
    }
    return success();
  });
}

ModelDiagnosticPrinter::~ModelDiagnosticPrinter() { context.getDiagEngine().eraseHandler(id); }

OwningOpRef<ModuleOp> importAndOptimize(MLIRContext &context,
                                        const FrontendOptions &options,
                                        llvm::raw_ostream &errs) {
  registerKilnDialects(context);
  onnx_frontend::ImportOptions importOptions;
  importOptions.modelPath = options.modelPath;
  importOptions.inputShapes = options.inputShapes;
  if (failed(loadInputValues(context, options.inputValues, importOptions, errs)))
    return nullptr;

  llvm::TimerGroup timers("kilnc", "kilnc phases");
  llvm::Timer importTimer("import", "ONNX import", timers);
  if (options.verbose)
    importTimer.startTimer();
  auto module = onnx_frontend::importOnnxModel(
      context, importOptions, [&](const std::string &line) { errs << line << "\n"; });
  if (options.verbose)
    importTimer.stopTimer();
  if (!module)
    return nullptr;

  bool failedPass = false;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      errs << formatDiagnostic(options.modelPath, diag) << "\n";
      failedPass = true;
    }
    return success();
  });
  PassManager pm(&context);
  if (options.verbose)
    pm.enableTiming();
  std::string precision = options.precision == "fp16"   ? "f16"
                          : options.precision == "bf16" ? "bf16"
                          : options.precision == "tf32" ? "tf32"
                                                        : "";
  buildGraphPipeline(pm, options.optLevel, precision);
  if (failed(pm.run(*module)) || failedPass) {
    if (!failedPass)
      errs << options.modelPath << ": error: the graph pipeline failed\n";
    return nullptr;
  }
  if (options.verbose) {
    size_t ops = 0;
    module->walk([&](Operation *) { ++ops; });
    errs << "kilnc: " << options.modelPath << ": " << ops << " ops after -O"
         << options.optLevel << " (" << optLevelConfig(options.optLevel).summary << ")\n";
  }
  return module;
}

LogicalResult checkPrecision(const std::string &precision, std::string &error) {
  if (precision == "fp32" || precision == "fp16" || precision == "bf16" ||
      precision == "tf32")
    return success();
  error = "--precision must be fp32, fp16, bf16 or tf32, not '" + precision +
          "'";
  return failure();
}

} // namespace kiln
