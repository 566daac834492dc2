//===- kilnc.cpp - Kiln's gcc-style compiler command ----------------------===//
//
// kilnc model.onnx [-O0..-O3] [--input-shape name=1x128] [--emit=graph] -o out
//
// Option parsing and output around the compile driver (compiler/pipeline/
// Compile.h), which does the work.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Compile.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstring>

namespace cl = llvm::cl;

static cl::OptionCategory kilncCategory("kilnc options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::cat(kilncCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(kilncCategory));
static cl::opt<kiln::EmitKind> emit(
    "emit", cl::desc("What to produce (default: engine)"), cl::init(kiln::EmitKind::Engine),
    cl::values(clEnumValN(kiln::EmitKind::Graph, "graph",
                          "graph-dialect MLIR after the -O pipeline (.mlirbc output: bytecode)"),
               clEnumValN(kiln::EmitKind::Kernel, "kernel", "kernel-dialect MLIR (launches, memory plan)"),
               clEnumValN(kiln::EmitKind::Cuda, "cuda", "the CUDA C++ of every kernel"),
               clEnumValN(kiln::EmitKind::Engine, "engine", "an engine file for the runtime (kiln-run)")),
    cl::cat(kilncCategory));
static cl::opt<std::string> march("march",
                                  cl::desc("GPU architecture (default: the GPU present, else sm_90)"),
                                  cl::value_desc("sm_90"), cl::cat(kilncCategory));
static cl::opt<std::string> matmulPath(
    "matmul-path",
    cl::desc("Matmul kernels: auto (the heuristic's choice), mma (mma.sync), wgmma (Hopper "
             "warpgroup MMA, sm_90 only; matmuls it cannot take keep mma) or simt"),
    cl::value_desc("auto|mma|wgmma|simt"), cl::init("auto"), cl::cat(kilncCategory));
static cl::list<std::string> setConfig(
    "set",
    cl::desc("Set a tuning key of every launch of a kind, after the heuristics, e.g. "
             "--set=matmul.stages=3 or --set=attention.block_m=32 (repeatable)"),
    cl::value_desc("kind.key=value"), cl::cat(kilncCategory));
static cl::opt<std::string> tuningCachePath(
    "tuning-cache",
    cl::desc("Read tuned configs from this tuning cache: a launch whose signature has an "
             "entry takes its tuning keys (before --set); the others keep the heuristics"),
    cl::value_desc("file"), cl::cat(kilncCategory));
static cl::opt<std::string> autotuneLevel(
    "autotune",
    cl::desc("off: heuristics and the tuning cache only (no GPU needed; the default); "
             "default / max: measure a small / the full candidate space on the GPU for "
             "launches the cache does not hold"),
    cl::value_desc("off|default|max"), cl::init("off"), cl::cat(kilncCategory));
static cl::opt<double> tuneBudget(
    "tune-budget",
    cl::desc("With --autotune=default|max: stop measuring after this many seconds (the "
             "launch being measured finishes; later ones keep the heuristics); 0: no limit"),
    cl::value_desc("seconds"), cl::init(0), cl::cat(kilncCategory));
static cl::opt<double> tuneTimeout(
    "tune-timeout",
    cl::desc("With --autotune=default|max: seconds a measuring worker may go without an "
             "answer before it is killed and its candidate dropped"),
    cl::value_desc("seconds"), cl::init(30), cl::cat(kilncCategory));
static cl::opt<bool> explainTuning(
    "explain-tuning",
    cl::desc("Print each launch's signature, where its config came from (cache, heuristic, "
             "measured) and the winner's and runner-up's times when known (stderr)"),
    cl::cat(kilncCategory));
static cl::opt<bool> noSources("strip-sources",
                               cl::desc("Do not keep kernel sources in the engine"),
                               cl::cat(kilncCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("Optimization level 0-3 (default 2)"),
                                  cl::Prefix, cl::init(2), cl::cat(kilncCategory));
static cl::list<std::string> inputValues(
    "input-value", cl::desc("Freeze a model input to the contents of a .npy file (inputs that feed shapes)"),
    cl::value_desc("name=file.npy"), cl::cat(kilncCategory));
static cl::list<std::string> inputShapes(
    "input-shape", cl::desc("Static shape for a model input, e.g. input_ids=1x128"),
    cl::value_desc("name=DxD..."), cl::cat(kilncCategory));
static cl::opt<bool> verbose("v", cl::desc("Print phase timings and statistics"),
                             cl::cat(kilncCategory));
static cl::opt<bool> keepWeights(
    "keep-weights", cl::desc("Print weight blobs in textual IR instead of eliding them"),
    cl::cat(kilncCategory));

static cl::opt<std::string> precision(
    "precision",
    cl::desc("Compute precision: fp32 (as exported, exact f32 matmuls), fp16 or bf16 (f32 "
             "tensors converted, inputs and outputs stay f32), or tf32 (tensors stay f32; f32 "
             "matmuls and gemms round their operands to tf32 on tensor cores and sum in f32; "
             "reductions, softmax and norms stay f32)"),
    cl::init("fp32"), cl::cat(kilncCategory));

static cl::opt<bool> reportFusion(
    "report-fusion",
    cl::desc("Print each fusion region of the graph with the ONNX nodes it covers (stderr)"),
    cl::cat(kilncCategory));

int main(int argc, char **argv) {
  // A GPU measuring worker this process exec'd.
  if (argc > 1 && std::strcmp(argv[1], "--kiln-gpu-worker") == 0)
    return kiln::gpuWorkerMain(argc, argv);
  llvm::InitLLVM init(argc, argv);
  kiln::initCompilerTool("kilnc");
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "kilnc (Kiln) " << KILN_VERSION << "\n";
  });
  cl::HideUnrelatedOptions({&kilncCategory});
  cl::ParseCommandLineOptions(argc, argv, "Kiln: ONNX to GPU engine compiler\n");

  kiln::CompileOptions options;
  options.frontend.modelPath = inputPath;
  options.frontend.optLevel = optLevel;
  options.frontend.precision = precision;
  options.frontend.inputValues.assign(inputValues.begin(), inputValues.end());
  options.frontend.verbose = verbose;
  std::string error;
  if (failed(kiln::parseInputShapes(inputShapes, options.frontend.inputShapes, error))) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  options.emit = emit;
  options.bytecode = llvm::StringRef(outputPath).ends_with(".mlirbc");
  options.keepWeights = keepWeights;
  options.arch = march;
  options.matmulPath = matmulPath;
  options.settings.assign(setConfig.begin(), setConfig.end());
  options.tuningCachePath = tuningCachePath;
  options.autotune = autotuneLevel;
  options.tuneBudget = tuneBudget;
  options.tuneTimeout = tuneTimeout;
  options.keepSources = !noSources;
  options.compilerVersion = std::string("kilnc ") + KILN_VERSION;
  for (int i = 0; i < argc; ++i)
    options.compileFlags += (i ? " " : "") + std::string(argv[i]);
  options.reportFusion = reportFusion;
  options.explainTuning = explainTuning;

  mlir::FailureOr<kiln::CompileResult> result = kiln::compile(options, llvm::errs());
  if (failed(result))
    return 1;
  if (emit == kiln::EmitKind::Engine) {
    std::string path = outputPath;
    if (path == "-")
      path = llvm::sys::path::stem(inputPath).str() + ".engine";
    if (!kiln::writeEngineFile(*result, path, error)) {
      llvm::errs() << path << ": error: " << error << "\n";
      return 1;
    }
    if (verbose)
      llvm::errs() << "kilnc: wrote " << path << ": " << result->launches << " launches, "
                   << result->kernels << " kernels, arena " << result->arenaSize
                   << " bytes, target " << result->arch << "\n";
    return 0;
  }
  // Write to a temporary file that replaces the output only on success, so
  // a failed run never destroys an earlier result.
  std::error_code ec;
  llvm::ToolOutputFile out(outputPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << outputPath << ": error: cannot open for writing: " << ec.message() << "\n";
    return 1;
  }
  out.os() << result->text;
  out.os().flush();
  if (out.os().has_error()) {
    llvm::errs() << outputPath << ": error: write failed\n";
    out.os().clear_error();
    return 1;
  }
  out.keep();
  return 0;
}
