//===- Compile.h - The compile driver: ONNX to an engine, one call -*- C++ -*-===//
//
// The compiler's public entry: import, graph passes, lowering, tuning (the
// tuning cache applied once, what it lacks measured, then --set), codegen
// and the engine writer, as one library call. kilnc, kiln-cgc and the tests
// call it; a tool's main is option parsing and printing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PIPELINE_COMPILE_H
#define KILN_COMPILER_PIPELINE_COMPILE_H

#include "compiler/pipeline/Driver.h"

#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kiln::engine {
class EngineWriter;
} // namespace kiln::engine

namespace kiln {

/// What a compile produces.
enum class EmitKind {
  Graph,  ///< graph-dialect MLIR after the -O pipeline
  Kernel, ///< kernel-dialect MLIR (launches, memory plan)
  Cuda,   ///< the CUDA C++ of every kernel
  Engine, ///< an engine for the runtime
};

struct CompileOptions {
  /// The model, input shapes and values, -O level and precision.
  FrontendOptions frontend;
  EmitKind emit = EmitKind::Engine;
  /// Graph and Kernel: MLIR bytecode (weights included) instead of text.
  bool bytecode = false;
  /// Graph and Kernel text: print weight blobs instead of eliding them.
  bool keepWeights = false;
  /// The GPU architecture; empty: the GPU present when measuring, else the
  /// default target (defaultTargetArch).
  std::string arch;
  /// "auto", "mma", "wgmma" (sm_90) or "simt".
  std::string matmulPath = "auto";
  /// `kind.key=value` tuning settings, applied last (--set).
  std::vector<std::string> settings;
  /// Read (and, when measuring, write) this tuning cache; empty: none.
  std::string tuningCachePath;
  /// "off" (heuristics and the cache only; no GPU needed), "default" or
  /// "max" (measure what the cache lacks on the GPU).
  std::string autotune = "off";
  /// Seconds of measuring before the remaining launches keep the
  /// heuristics (0: no limit), and a measuring worker's timeout.
  double tuneBudget = 0, tuneTimeout = 30;
  /// The executable a GPU worker runs as (`EXE --kiln-gpu-worker`).
  std::string workerExecutable = "/proc/self/exe";
  /// Engine: keep each kernel's CUDA source as an extra section.
  bool keepSources = true;
  /// Engine provenance: the compiler's version and command line.
  std::string compilerVersion, compileFlags;
  /// Reports on `errs`: the fusion regions, and where each launch's
  /// tuning keys came from.
  bool reportFusion = false, explainTuning = false;
  /// The name option and toolchain errors start with ("kilnc: error: ...").
  std::string toolName = "kilnc";
};

struct CompileResult {
  CompileResult();
  CompileResult(CompileResult &&);
  CompileResult &operator=(CompileResult &&);
  ~CompileResult();

  /// Graph, Kernel and Cuda: the output (text, or bytecode).
  std::string text;
  /// Engine: the engine, ready to write (writeFile) or serialize (finish).
  std::unique_ptr<engine::EngineWriter> engine;
  /// The target compiled for.
  std::string arch;
  /// Engine: counts for a summary line.
  size_t launches = 0, kernels = 0;
  uint64_t arenaSize = 0;
};

/// Checks `options` (levels, paths, budgets) without compiling; fails with
/// a one-line message naming the option.
mlir::LogicalResult checkCompileOptions(const CompileOptions &options,
                                        std::string &error);

/// Compiles `options.frontend.modelPath`. Errors go to `errs` one line each
/// (`model.onnx: node 'name' (Op): error: ...`, or `kilnc: error: ...` for
/// options and the toolchain), as do autotune progress and the reports.
mlir::FailureOr<CompileResult> compile(const CompileOptions &options,
                                       llvm::raw_ostream &errs);

/// Writes the engine of `result` to `path` through a temporary file renamed
/// into place; false with `error`.
bool writeEngineFile(const CompileResult &result, const std::string &path,
                     std::string &error);

/// For a compiler tool's main, before option parsing: MLIR's printing and
/// context options, and crash handlers that name the tool and, for a crash
/// inside NVRTC, the kernel.
void initCompilerTool(const char *toolName);

/// The main of a GPU measuring worker (`EXE --kiln-gpu-worker ...`): a tool
/// that compiles with autotuning calls it first when argv[1] says so.
int gpuWorkerMain(int argc, char **argv);

} // namespace kiln

#endif // KILN_COMPILER_PIPELINE_COMPILE_H
