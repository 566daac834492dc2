//===- kilnc.cpp - Kiln's gcc-style compiler command ----------------------===//
//
// kilnc model.onnx [-O0..-O3] [--input-shape name=1x128] [--emit=graph] -o out
//
//===----------------------------------------------------------------------===//
#include "autotune/GpuMeasure.h"
#include "autotune/Measure.h"
#include "autotune/SearchSpace.h"
#include "autotune/TuningCache.h"
#include "compiler/kernels/Autotune.h"
#include "compiler/codegen/CompiledModel.h"
#include "compiler/kernels/Tuning.h"
#include "compiler/nvrtc/NvrtcCompiler.h"
#include "compiler/engine/EngineEmitter.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/lowering/SpecBridge.h"
#include "compiler/pipeline/Driver.h"
#include "compiler/pipeline/TargetArch.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstring>
#include <set>

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>

namespace cl = llvm::cl;

static cl::OptionCategory kilncCategory("kilnc options");

static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::cat(kilncCategory));
static cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                       cl::value_desc("file"), cl::init("-"),
                                       cl::cat(kilncCategory));
enum class Emit { Graph, Kernel, Cuda, Engine };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to produce (default: engine)"), cl::init(Emit::Engine),
    cl::values(clEnumValN(Emit::Graph, "graph",
                          "graph-dialect MLIR after the -O pipeline (.mlirbc output: bytecode)"),
               clEnumValN(Emit::Kernel, "kernel", "kernel-dialect MLIR (launches, memory plan)"),
               clEnumValN(Emit::Cuda, "cuda", "the CUDA C++ of every kernel"),
               clEnumValN(Emit::Engine, "engine", "an engine file for the runtime (kiln-run)")),
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

static kiln::autotune::SearchLevel level() {
  return *kiln::autotune::parseSearchLevel(autotuneLevel);
}

/// --autotune=default|max: measures every tunable launch the cache lacks
/// (in module order, until --tune-budget runs out), adds the winners to
/// `cache` and writes it to --tuning-cache after each. One progress line per
/// launch.
static mlir::LogicalResult measureMissing(mlir::ModuleOp module,
                                          const std::vector<kiln::LaunchTuning> &report,
                                          kiln::autotune::SearchLevel lvl,
                                          const kiln::codegen::TargetOptions &target,
                                          const kiln::autotune::Toolchain &toolchain,
                                          kiln::autotune::TuningCache &cache,
                                          std::set<std::string> &measured) {
  std::vector<kiln::codegen::LaunchSpec> specs;
  bool bad = false;
  module->walk([&](kiln::kernel::LaunchOp launch) {
    mlir::FailureOr<kiln::codegen::LaunchSpec> spec = kiln::specFromLaunch(launch);
    if (failed(spec))
      bad = true;
    else
      specs.push_back(std::move(*spec));
  });
  if (bad || specs.size() != report.size())
    return mlir::failure();
  size_t todo = 0, done = 0, tuned = 0;
  for (const kiln::LaunchTuning &t : report)
    todo += t.tunable && t.source != "cache";
  kiln::autotune::TuneBudget budget(tuneBudget);
  for (size_t i = 0; i < report.size(); ++i) {
    const kiln::LaunchTuning &t = report[i];
    if (!t.tunable || t.source == "cache")
      continue;
    ++done;
    llvm::errs() << "tune [" << done << "/" << todo << "] @" << t.name << " " << t.kind
                 << ": ";
    if (measured.count(t.signature)) {
      llvm::errs() << "same signature as a launch measured above\n";
      continue;
    }
    if (!budget.exceeded())
      llvm::errs() << "measuring\n";
    else {
      llvm::errs() << "--tune-budget=" << llvm::format("%g", tuneBudget.getValue())
                   << " s used up; keeps the heuristic\n";
      continue;
    }
    kiln::codegen::LaunchTuneResult r;
    std::string error;
    if (!kiln::codegen::tuneLaunch(specs[i], lvl, target, toolchain, tuneTimeout, r, error)) {
      llvm::errs() << "\nkilnc: error: " << error << "\n";
      return mlir::failure();
    }
    if (!r.entry) {
      llvm::errs() << "kept the heuristic @" << t.name << " " << t.kind << ": " << r.skipped
                   << "\n";
    } else {
      ++tuned;
      const kiln::autotune::TuningEntry &e = *r.entry;
      llvm::errs() << "tuned @" << t.name << " " << t.kind << ": " << r.candidates
                   << " candidates, " << r.passed << " passed, winner "
                   << kiln::autotune::printConfig(e.config) << " "
                   << llvm::format("%.4f", *e.winnerMs) << " ms";
      if (e.runnerUpMs)
        llvm::errs() << ", runner-up " << llvm::format("%.4f", *e.runnerUpMs) << " ms ("
                     << llvm::format("%.2fx", *e.runnerUpMs / std::max(*e.winnerMs, 1e-9))
                     << ")";
      llvm::errs() << "; compile " << llvm::format("%.1f", r.compileSeconds)
                   << " s, GPU " << llvm::format("%.1f", r.gpuSeconds) << " s\n";
      measured.insert(t.signature);
      cache.insert(e);
      // Written after each launch (atomically: a temporary file renamed),
      // so that a later launch's error or an interrupt keeps what was
      // measured, and the next compile resumes from it.
      if (!tuningCachePath.empty() && !cache.write(tuningCachePath, error)) {
        llvm::errs() << "kilnc: error: " << error << "\n";
        return mlir::failure();
      }
    }
    for (const std::string &n : r.notes)
      llvm::errs() << "  dropped: " << n << "\n";
  }
  llvm::errs() << "tune: " << tuned << " of " << todo << " launches measured in "
               << llvm::format("%.1f", budget.elapsed()) << " s\n";
  if (tuned && tuningCachePath.empty())
    llvm::errs() << "tune: no --tuning-cache given, the results are not kept\n";
  return mlir::success();
}

/// --explain-tuning: a block per launch.
static void printTuningReport(const std::vector<kiln::LaunchTuning> &report,
                              const std::string &cacheName, const std::string &level,
                              llvm::raw_ostream &os) {
  os << "tuning: autotune=" << level << ", cache "
     << (cacheName.empty() ? std::string("none") : cacheName) << "\n";
  for (const kiln::LaunchTuning &t : report) {
    os << "tuning: @" << t.name << " (" << t.kind << "): ";
    if (!t.tunable) {
      os << "nothing to tune\n";
      continue;
    }
    os << t.source;
    if (llvm::StringRef(t.source).starts_with("cache"))
      os << " (" << cacheName << ")";
    os << ": " << kiln::autotune::printConfig(t.config) << "\n";
    os << "  signature: " << t.signature << "\n";
    if (t.winnerMs) {
      os << "  winner " << llvm::format("%.4f", *t.winnerMs) << " ms";
      if (t.runnerUpMs) {
        os << ", runner-up " << llvm::format("%.4f", *t.runnerUpMs) << " ms";
        if (*t.winnerMs > 0)
          os << " (" << llvm::format("%.3f", *t.runnerUpMs / *t.winnerMs) << "x)";
      }
      os << "\n";
    }
  }
}

/// --report-fusion: one line per region, then the totals.
static void printFusionReport(mlir::ModuleOp module, llvm::raw_ostream &os) {
  unsigned regions = 0, fused = 0, outside = 0;
  module.walk([&](mlir::func::FuncOp fn) {
    for (mlir::Operation &op : fn.getBody().front()) {
      auto f = mlir::dyn_cast<kiln::graph::FusionOp>(op);
      if (!f) {
        if (!mlir::isa<kiln::graph::ConstantOp, mlir::func::ReturnOp>(op))
          ++outside;
        continue;
      }
      std::vector<std::string> names = kiln::graph::onnxNodeNames(f.getLoc());
      unsigned members = 0;
      std::string ops;
      for (mlir::Operation &m : f.getBody().front().without_terminator()) {
        ops += (members++ ? " " : "") + m.getName().stripDialect().str();
      }
      fused += members;
      os << "fusion #" << regions++ << " (" << f.getKind() << ", " << members << " ops: " << ops
         << "; " << f.getInputs().size() << " inputs):";
      for (const std::string &n : names)
        os << " " << n;
      os << "\n";
    }
  });
  os << "fusion: " << regions << " regions hold " << fused << " ops; " << outside
     << " ops outside regions\n";
}

int main(int argc, char **argv) {
  // A GPU measuring worker this process exec'd (autotune/GpuMeasure.h).
  if (argc > 1 && std::strcmp(argv[1], "--kiln-gpu-worker") == 0)
    return kiln::autotune::gpuWorkerMain(argc, argv);
  llvm::InitLLVM init(argc, argv);
  // A crash inside NVRTC (a front-end fault on a kernel Kiln generated)
  // takes the process down: name the kernel, and whose bug it is.
  llvm::setBugReportMsg("PLEASE report this Kiln bug with the kilnc command "
                        "line and the model.\n");
  llvm::sys::AddSignalHandler(
      [](void *) { kiln::nvrtc::writeCrashNote(2, "kilnc"); }, nullptr);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "kilnc (Kiln) " << KILN_VERSION << "\n";
  });
  cl::HideUnrelatedOptions({&kilncCategory});
  cl::ParseCommandLineOptions(argc, argv, "Kiln: ONNX to GPU engine compiler\n");

  if (inputPath.empty()) {
    llvm::errs() << "kilnc: error: no input model (usage: kilnc model.onnx -o out)\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::errs() << "kilnc: error: -O" << optLevel << " is not a level (0 to 3)\n";
    return 1;
  }
  kiln::FrontendOptions options;
  options.modelPath = inputPath;
  options.optLevel = optLevel;
  options.precision = precision;
  options.inputValues.assign(inputValues.begin(), inputValues.end());
  options.verbose = verbose;
  std::string error;
  if (failed(kiln::checkPrecision(options.precision, error))) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }
  if (failed(kiln::parseInputShapes(inputShapes, options.inputShapes, error))) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }

  if (autotuneLevel != "off" && !kiln::autotune::parseSearchLevel(autotuneLevel)) {
    llvm::errs() << "kilnc: error: --autotune=" << autotuneLevel
                 << " is not a level (off, default or max)\n";
    return 1;
  }
  // A budget is a count of seconds, 0 for none; a worker's timeout must be
  // some time (infinity would let a hung candidate hang the compile).
  if (!(tuneBudget >= 0)) {
    llvm::errs() << "kilnc: error: --tune-budget=" << llvm::format("%g", tuneBudget.getValue())
                 << " is not a number of seconds (0 or more; 0: no limit)\n";
    return 1;
  }
  if (!(tuneTimeout > 0) || !std::isfinite(tuneTimeout)) {
    llvm::errs() << "kilnc: error: --tune-timeout=" << llvm::format("%g", tuneTimeout.getValue())
                 << " is not a number of seconds (more than 0, finite)\n";
    return 1;
  }
  kiln::autotune::TuningCache cache;
  // Measuring starts a cache that does not exist yet (and writes it);
  // without measuring, a named cache must be there.
  const bool startCache = autotuneLevel != "off" && !tuningCachePath.empty() &&
                          !llvm::sys::fs::exists(tuningCachePath);
  if (!tuningCachePath.empty() && !startCache && !cache.read(tuningCachePath, error)) {
    llvm::errs() << "kilnc: error: " << error << "\n";
    return 1;
  }

  mlir::MLIRContext context;
  auto module = kiln::importAndOptimize(context, options, llvm::errs());
  if (!module)
    return 1;
  if (reportFusion)
    printFusionReport(*module, llvm::errs());

  // Measuring and the GPU probe run in exec'd workers (fresh processes), so
  // whatever this process does with CUDA cannot reach them.
  // Workers are fresh processes of this executable, whatever this one has
  // loaded or initialized.
  kiln::autotune::setGpuWorkerExecutable("/proc/self/exe");
  std::string probedDriver = "none", probedArch, probeError, probedCublasLt = "none";
  if (autotuneLevel != "off" &&
      !kiln::autotune::probeGpu(probedDriver, probedArch, probeError, &probedCublasLt))
    probedDriver = "none";
  // (With no GPU found, defaultTargetArch's own probe is harmless: nothing
  // will be measured.)
  std::string arch = !march.empty()          ? march.getValue()
                     : probedDriver != "none" ? probedArch
                                              : kiln::defaultTargetArch();
  if (matmulPath != "auto" && matmulPath != "mma" && matmulPath != "wgmma" &&
      matmulPath != "simt") {
    llvm::errs() << "kilnc: error: --matmul-path=" << matmulPath
                 << " is not a matmul path (auto, mma, wgmma or simt)\n";
    return 1;
  }
  if (matmulPath == "wgmma" && !kiln::codegen::archHasWgmma(arch)) {
    llvm::errs() << "kilnc: error: --matmul-path=wgmma needs an sm_90 (Hopper) target, "
                    "but the target is "
                 << arch << " (set --march=sm_90)\n";
    return 1;
  }
  kiln::ModelDiagnosticPrinter diagnostics(context, inputPath, llvm::errs());
  if (emit != Emit::Graph) {
    context.loadDialect<kiln::kernel::KernelDialect>();
    mlir::PassManager pm(&context);
    pm.addPass(kiln::createDecomposeForKernelsPass());
    kiln::LoweringOptions lowering;
    lowering.arch = arch;
    lowering.matmulPath = matmulPath;
    if (failed(pm.run(*module)) || failed(kiln::lowerToKernel(*module, lowering)))
      return 1;
    // Tuning: the cache's entries, then measuring what it lacks, then --set.
    // Signatures carry the NVRTC version and, only when measuring is asked
    // for, the driver's: with --autotune=off no driver is queried, so a
    // compile gives the same engine with or without a GPU.
    kiln::autotune::Toolchain toolchain;
    toolchain.arch = arch;
    std::string nvrtcError;
    toolchain.nvrtc = kiln::nvrtc::loadNvrtc(nvrtcError) ? kiln::nvrtc::nvrtcVersion() : "none";
    toolchain.driver = probedDriver;
    const bool canMeasure = autotuneLevel != "off" && toolchain.driver != "none";
    kiln::codegen::TargetOptions target;
    target.arch = arch;
    target.matmulPath = matmulPath;
    // cuBLASLt is a candidate where the GPU worker could load it.
    if (canMeasure && probedCublasLt != "none")
      target.cublasLtVersion = probedCublasLt;
    std::vector<kiln::LaunchTuning> report;
    if (failed(kiln::applyTuningCache(*module, tuningCachePath.empty() ? nullptr : &cache,
                                      tuningCachePath, toolchain,
                                      /*anyDriver=*/!canMeasure, target, report)))
      return 1;
    if (autotuneLevel != "off") {
      std::vector<const kiln::LaunchTuning *> missing;
      size_t tunable = 0;
      for (const kiln::LaunchTuning &t : report) {
        tunable += t.tunable;
        if (t.tunable && t.source != "cache")
          missing.push_back(&t);
      }
      if (!missing.empty() && canMeasure) {
        for (const kiln::LaunchTuning *t : missing)
          if (!t->note.empty())
            llvm::errs() << "tune: @" << t->name << ": " << t->note << "; measuring it again\n";
        std::set<std::string> measured;
        if (failed(measureMissing(*module, report, level(), target, toolchain, cache,
                                  measured)))
          return 1;
        report.clear();
        if (failed(kiln::applyTuningCache(*module, &cache, tuningCachePath, toolchain,
                                          /*anyDriver=*/false, target, report)))
          return 1;
        for (kiln::LaunchTuning &t : report)
          if (measured.count(t.signature))
            t.source = "measured";
      } else if (!missing.empty()) {
        llvm::errs() << "kilnc: error: --autotune=" << autotuneLevel << ": " << missing.size()
                     << " of " << tunable << " tunable launches have no entry in the tuning cache "
                     << (tuningCachePath.empty() ? std::string("(none given)")
                                                 : tuningCachePath.getValue())
                     << " (first: @" << missing.front()->name << ", " << missing.front()->kind
                     << ")";
        llvm::errs() << ", and measuring them needs a GPU but none is present (no CUDA "
                        "driver or device"
                     << (probeError.empty() ? std::string() : ": " + probeError)
                     << "); use --autotune=off, or a cache that holds every launch\n";
        return 1;
      }
    }
    std::vector<std::string> settings(setConfig.begin(), setConfig.end());
    if (failed(kiln::applyConfigSettings(*module, settings, error, target))) {
      llvm::errs() << "kilnc: error: " << error << "\n";
      return 1;
    }
    if (explainTuning) {
      // --set wins over both sources: note the launches it changed.
      size_t i = 0;
      module->walk([&](kiln::kernel::LaunchOp launch) {
        if (i >= report.size())
          return;
        kiln::LaunchTuning &t = report[i++];
        mlir::FailureOr<kiln::codegen::LaunchSpec> spec = kiln::specFromLaunch(launch);
        if (succeeded(spec)) {
          kiln::autotune::TuningConfig now = kiln::codegen::tuningConfigOf(*spec);
          if (now != t.config) {
            t.config = now;
            t.source += " + --set";
          }
        }
      });
      printTuningReport(report, tuningCachePath, autotuneLevel, llvm::errs());
    }
  }
  kiln::codegen::CompiledModel compiled;
  if (emit == Emit::Cuda || emit == Emit::Engine) {
    kiln::codegen::CodegenOptions cg;
    cg.arch = arch;
    cg.emitSourceOnly = emit == Emit::Cuda;
    auto result = kiln::codegen::compileModule(*module, cg);
    if (failed(result))
      return 1;
    compiled = std::move(*result);
  }
  if (emit == Emit::Engine) {
    std::string path = outputPath;
    if (path == "-") {
      path = llvm::sys::path::stem(inputPath).str() + ".engine";
    }
    kiln::EngineProvenance prov;
    prov.compilerVersion = std::string("kilnc ") + KILN_VERSION;
    prov.modelPath = inputPath;
    prov.keepSources = !noSources;
    if (!tuningCachePath.empty())
      prov.tuningCacheHash = "sha256:" + kiln::sha256File(tuningCachePath);
    for (int i = 0; i < argc; ++i)
      prov.compileFlags += (i ? " " : "") + std::string(argv[i]);
    std::string error;
    if (!kiln::writeEngine(compiled, prov, path, error)) {
      llvm::errs() << path << ": error: " << error << "\n";
      return 1;
    }
    if (verbose)
      llvm::errs() << "kilnc: wrote " << path << ": " << compiled.launches.size()
                   << " launches, " << compiled.kernels.size() << " kernels, arena "
                   << compiled.arenaSize << " bytes, target " << arch << "\n";
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
  if (emit == Emit::Cuda) {
    for (const auto &k : compiled.kernels)
      out.os() << "// ---- kernel " << k.entry << " (" << k.name << ")\n" << k.source << "\n";
    // Library steps have no source of Kiln's: say where they went.
    for (const auto &l : compiled.launches)
      if (l.hasLibrary)
        out.os() << "// ---- " << l.name << ": a cuBLASLt call (cublasLtMatmul, "
                 << kiln::engine::matmulEpilogueName(l.library.epilogue) << " epilogue, heuristic answer "
                 << l.library.algo << "), no kernel\n";
  } else if (llvm::StringRef(outputPath).ends_with(".mlirbc")) {
    if (failed(mlir::writeBytecodeToFile(*module, out.os()))) {
      llvm::errs() << outputPath << ": error: writing bytecode failed\n";
      return 1;
    }
  } else {
    mlir::OpPrintingFlags flags;
    if (!keepWeights)
      flags.elideLargeResourceString(64);
    module->print(out.os(), flags);
  }
  out.os().flush();
  if (out.os().has_error()) {
    llvm::errs() << outputPath << ": error: write failed\n";
    out.os().clear_error();
    return 1;
  }
  out.keep();
  return 0;
}
