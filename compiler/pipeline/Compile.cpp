//===- Compile.cpp - The compile driver -----------------------------------===//
#include "compiler/pipeline/Compile.h"

#include "autotune/GpuMeasure.h"
#include "autotune/Measure.h"
#include "autotune/SearchSpace.h"
#include "autotune/TuningCache.h"
#include "compiler/codegen/CompiledModel.h"
#include "compiler/engine/EngineEmitter.h"
#include "compiler/kernels/Autotune.h"
#include "compiler/kernels/Tuning.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/lowering/SpecBridge.h"
#include "compiler/nvrtc/NvrtcCompiler.h"
#include "compiler/pipeline/TargetArch.h"
#include "compiler/transforms/Passes.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelDialect.h"
#include "kiln/engine_writer.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"

#include <cmath>
#include <cstdio>
#include <set>

namespace kiln {

CompileResult::CompileResult() = default;
CompileResult::CompileResult(CompileResult &&) = default;
CompileResult &CompileResult::operator=(CompileResult &&) = default;
CompileResult::~CompileResult() = default;

namespace {

/// --autotune=default|max: measures every tunable launch the cache lacks
/// (in module order, until --tune-budget runs out), adds the winners to
/// `cache` and writes it to --tuning-cache after each. One progress line per
/// launch.
static mlir::LogicalResult measureMissing(mlir::ModuleOp module,
                                          const std::vector<kiln::LaunchTuning> &report,
                                          const CompileOptions &options,
                                          kiln::autotune::SearchLevel lvl,
                                          const kiln::codegen::TargetOptions &target,
                                          const kiln::autotune::Toolchain &toolchain,
                                          kiln::autotune::TuningCache &cache,
                                          std::set<std::string> &measured,
                                          llvm::raw_ostream &errs) {
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
  kiln::autotune::TuneBudget budget(options.tuneBudget);
  for (size_t i = 0; i < report.size(); ++i) {
    const kiln::LaunchTuning &t = report[i];
    if (!t.tunable || t.source == "cache")
      continue;
    ++done;
    errs << "tune [" << done << "/" << todo << "] @" << t.name << " " << t.kind
                 << ": ";
    if (measured.count(t.signature)) {
      errs << "same signature as a launch measured above\n";
      continue;
    }
    if (!budget.exceeded())
      errs << "measuring\n";
    else {
      errs << "--tune-budget=" << llvm::format("%g", options.tuneBudget)
                   << " s used up; keeps the heuristic\n";
      continue;
    }
    kiln::codegen::LaunchTuneResult r;
    std::string error;
    if (!kiln::codegen::tuneLaunch(specs[i], lvl, target, toolchain, options.tuneTimeout, r, error)) {
      errs << "\n" << options.toolName << ": error: " << error << "\n";
      return mlir::failure();
    }
    if (!r.entry) {
      errs << "kept the heuristic @" << t.name << " " << t.kind << ": " << r.skipped
                   << "\n";
    } else {
      ++tuned;
      const kiln::autotune::TuningEntry &e = *r.entry;
      errs << "tuned @" << t.name << " " << t.kind << ": " << r.candidates
                   << " candidates, " << r.passed << " passed, winner "
                   << kiln::autotune::printConfig(e.config) << " "
                   << llvm::format("%.4f", *e.winnerMs) << " ms";
      if (e.runnerUpMs)
        errs << ", runner-up " << llvm::format("%.4f", *e.runnerUpMs) << " ms ("
                     << llvm::format("%.2fx", *e.runnerUpMs / std::max(*e.winnerMs, 1e-9))
                     << ")";
      errs << "; compile " << llvm::format("%.1f", r.compileSeconds)
                   << " s, GPU " << llvm::format("%.1f", r.gpuSeconds) << " s\n";
      measured.insert(t.signature);
      cache.insert(e);
      // Written after each launch (atomically: a temporary file renamed),
      // so that a later launch's error or an interrupt keeps what was
      // measured, and the next compile resumes from it.
      if (!options.tuningCachePath.empty() && !cache.write(options.tuningCachePath, error)) {
        errs << options.toolName << ": error: " << error << "\n";
        return mlir::failure();
      }
    }
    for (const std::string &n : r.notes)
      errs << "  dropped: " << n << "\n";
  }
  errs << "tune: " << tuned << " of " << todo << " launches measured in "
               << llvm::format("%.1f", budget.elapsed()) << " s\n";
  if (tuned && options.tuningCachePath.empty())
    errs << "tune: no --tuning-cache given, the results are not kept\n";
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

/// %g of a double, as option errors print it.
std::string formatG(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

/// Tuning: the cache's entries, then measuring what it lacks, then --set.
/// Signatures carry the NVRTC version and, only when measuring is asked
/// for, the driver's: with autotune off no driver is queried, so a compile
/// gives the same engine with or without a GPU.
mlir::LogicalResult tuneLaunches(mlir::ModuleOp module, const CompileOptions &options,
                                 const std::string &arch, const std::string &probedDriver,
                                 const std::string &probeError,
                                 const std::string &probedCublasLt,
                                 autotune::TuningCache &cache, llvm::raw_ostream &errs) {
  const std::string &cachePath = options.tuningCachePath;
  autotune::Toolchain toolchain;
  toolchain.arch = arch;
  std::string nvrtcError;
  toolchain.nvrtc = nvrtc::loadNvrtc(nvrtcError) ? nvrtc::nvrtcVersion() : "none";
  toolchain.driver = probedDriver;
  const bool measuring = options.autotune != "off";
  const bool canMeasure = measuring && toolchain.driver != "none";
  codegen::TargetOptions target;
  target.arch = arch;
  target.matmulPath = options.matmulPath;
  // cuBLASLt is a candidate where the GPU worker could load it.
  if (canMeasure && probedCublasLt != "none")
    target.cublasLtVersion = probedCublasLt;
  std::vector<LaunchTuning> report;
  if (failed(applyTuningCache(module, cachePath.empty() ? nullptr : &cache, cachePath,
                              toolchain, /*anyDriver=*/!canMeasure, target, report)))
    return mlir::failure();
  if (measuring) {
    std::vector<const LaunchTuning *> missing;
    size_t tunable = 0;
    for (const LaunchTuning &t : report) {
      tunable += t.tunable;
      if (t.tunable && t.source != "cache")
        missing.push_back(&t);
    }
    if (!missing.empty() && canMeasure) {
      for (const LaunchTuning *t : missing)
        if (!t->note.empty())
          errs << "tune: @" << t->name << ": " << t->note << "; measuring it again\n";
      std::set<std::string> measured;
      if (failed(measureMissing(module, report, options,
                                *autotune::parseSearchLevel(options.autotune), target,
                                toolchain, cache, measured, errs)))
        return mlir::failure();
      // The measured winners, now in the cache; the other launches keep
      // what the first pass gave them.
      if (failed(applyTuningCache(module, &cache, cachePath, toolchain,
                                  /*anyDriver=*/false, target, report, &measured)))
        return mlir::failure();
      for (LaunchTuning &t : report)
        if (measured.count(t.signature))
          t.source = "measured";
    } else if (!missing.empty()) {
      errs << options.toolName << ": error: --autotune=" << options.autotune << ": "
           << missing.size() << " of " << tunable
           << " tunable launches have no entry in the tuning cache "
           << (cachePath.empty() ? std::string("(none given)") : cachePath)
           << " (first: @" << missing.front()->name << ", " << missing.front()->kind << ")";
      errs << ", and measuring them needs a GPU but none is present (no CUDA "
              "driver or device"
           << (probeError.empty() ? std::string() : ": " + probeError)
           << "); use --autotune=off, or a cache that holds every launch\n";
      return mlir::failure();
    }
  }
  std::string error;
  if (failed(applyConfigSettings(module, options.settings, error, target))) {
    errs << options.toolName << ": error: " << error << "\n";
    return mlir::failure();
  }
  if (options.explainTuning) {
    // --set wins over both sources: note the launches it changed.
    size_t i = 0;
    module->walk([&](kernel::LaunchOp launch) {
      if (i >= report.size())
        return;
      LaunchTuning &t = report[i++];
      mlir::FailureOr<codegen::LaunchSpec> spec = specFromLaunch(launch);
      if (succeeded(spec)) {
        autotune::TuningConfig now = codegen::tuningConfigOf(*spec);
        if (now != t.config) {
          t.config = now;
          t.source += " + --set";
        }
      }
    });
    printTuningReport(report, cachePath, options.autotune, errs);
  }
  return mlir::success();
}

} // namespace

mlir::LogicalResult checkCompileOptions(const CompileOptions &o, std::string &error) {
  if (o.frontend.modelPath.empty()) {
    error = "no input model (usage: kilnc model.onnx -o out)";
    return mlir::failure();
  }
  if (o.frontend.optLevel > 3) {
    error = "-O" + std::to_string(o.frontend.optLevel) + " is not a level (0 to 3)";
    return mlir::failure();
  }
  if (failed(checkPrecision(o.frontend.precision, error)))
    return mlir::failure();
  if (o.autotune != "off" && !autotune::parseSearchLevel(o.autotune)) {
    error = "--autotune=" + o.autotune + " is not a level (off, default or max)";
    return mlir::failure();
  }
  // A budget is a count of seconds, 0 for none; a worker's timeout must be
  // some time (infinity would let a hung candidate hang the compile).
  if (!(o.tuneBudget >= 0)) {
    error = "--tune-budget=" + formatG(o.tuneBudget) +
            " is not a number of seconds (0 or more; 0: no limit)";
    return mlir::failure();
  }
  if (!(o.tuneTimeout > 0) || !std::isfinite(o.tuneTimeout)) {
    error = "--tune-timeout=" + formatG(o.tuneTimeout) +
            " is not a number of seconds (more than 0, finite)";
    return mlir::failure();
  }
  if (o.matmulPath != "auto" && o.matmulPath != "mma" && o.matmulPath != "wgmma" &&
      o.matmulPath != "simt") {
    error = "--matmul-path=" + o.matmulPath +
            " is not a matmul path (auto, mma, wgmma or simt)";
    return mlir::failure();
  }
  return mlir::success();
}

mlir::FailureOr<CompileResult> compile(const CompileOptions &options,
                                       llvm::raw_ostream &errs) {
  auto fail = [&](const std::string &message) {
    errs << options.toolName << ": error: " << message << "\n";
    return mlir::failure();
  };
  std::string error;
  if (failed(checkCompileOptions(options, error)))
    return fail(error);
  const std::string &cachePath = options.tuningCachePath;
  autotune::TuningCache cache;
  // Measuring starts a cache that does not exist yet (and writes it);
  // without measuring, a named cache must be there.
  const bool startCache =
      options.autotune != "off" && !cachePath.empty() && !llvm::sys::fs::exists(cachePath);
  if (!cachePath.empty() && !startCache && !cache.read(cachePath, error))
    return fail(error);

  mlir::MLIRContext context;
  auto module = importAndOptimize(context, options.frontend, errs);
  if (!module)
    return mlir::failure();
  if (options.reportFusion)
    printFusionReport(*module, errs);

  // Measuring and the GPU probe run in exec'd workers (fresh processes of
  // options.workerExecutable), so whatever this process does with CUDA
  // cannot reach them.
  autotune::setGpuWorkerExecutable(options.workerExecutable);
  std::string probedDriver = "none", probedArch, probeError, probedCublasLt = "none";
  if (options.autotune != "off" &&
      !autotune::probeGpu(probedDriver, probedArch, probeError, &probedCublasLt))
    probedDriver = "none";
  // (With no GPU found, defaultTargetArch's own probe is harmless: nothing
  // will be measured.)
  CompileResult result;
  result.arch = !options.arch.empty()   ? options.arch
                : probedDriver != "none" ? probedArch
                                         : defaultTargetArch();
  const std::string &arch = result.arch;
  if (options.matmulPath == "wgmma" && !codegen::archHasWgmma(arch))
    return fail("--matmul-path=wgmma needs an sm_90 (Hopper) target, but the target is " +
                arch + " (set --march=sm_90)");
  ModelDiagnosticPrinter diagnostics(context, options.frontend.modelPath, errs);
  if (options.emit != EmitKind::Graph) {
    context.loadDialect<kernel::KernelDialect>();
    mlir::PassManager pm(&context);
    pm.addPass(createDecomposeForKernelsPass());
    LoweringOptions lowering;
    lowering.arch = arch;
    lowering.matmulPath = options.matmulPath;
    if (failed(pm.run(*module)) || failed(lowerToKernel(*module, lowering)))
      return mlir::failure();
    if (failed(tuneLaunches(*module, options, arch, probedDriver, probeError,
                            probedCublasLt, cache, errs)))
      return mlir::failure();
  }
  if (options.emit == EmitKind::Graph || options.emit == EmitKind::Kernel) {
    llvm::raw_string_ostream os(result.text);
    if (options.bytecode) {
      if (failed(mlir::writeBytecodeToFile(*module, os)))
        return fail("writing bytecode failed");
    } else {
      mlir::OpPrintingFlags flags;
      if (!options.keepWeights)
        flags.elideLargeResourceString(64);
      module->print(os, flags);
    }
    return result;
  }
  codegen::CodegenOptions cg;
  cg.arch = arch;
  cg.emitSourceOnly = options.emit == EmitKind::Cuda;
  auto compiled = codegen::compileModule(*module, cg);
  if (failed(compiled))
    return mlir::failure();
  if (options.emit == EmitKind::Cuda) {
    llvm::raw_string_ostream os(result.text);
    for (const auto &k : compiled->kernels)
      os << "// ---- kernel " << k.entry << " (" << k.name << ")\n" << k.source << "\n";
    // Library steps have no source of Kiln's: say where they went.
    for (const auto &l : compiled->launches)
      if (l.hasLibrary)
        os << "// ---- " << l.name << ": a cuBLASLt call (cublasLtMatmul, "
           << engine::matmulEpilogueName(l.library.epilogue) << " epilogue, heuristic answer "
           << l.library.algo << "), no kernel\n";
    return result;
  }
  EngineProvenance prov;
  prov.compilerVersion = options.compilerVersion;
  prov.modelPath = options.frontend.modelPath;
  prov.keepSources = options.keepSources;
  if (!cachePath.empty())
    prov.tuningCacheHash = "sha256:" + sha256File(cachePath);
  prov.compileFlags = options.compileFlags;
  result.engine = buildEngine(*compiled, prov, error);
  if (!result.engine)
    return fail(error);
  result.launches = compiled->launches.size();
  result.kernels = compiled->kernels.size();
  result.arenaSize = compiled->arenaSize;
  return result;
}

bool writeEngineFile(const CompileResult &result, const std::string &path,
                     std::string &error) {
  if (!result.engine) {
    error = "internal: the compile produced no engine";
    return false;
  }
  return result.engine->writeFile(path, error);
}

void initCompilerTool(const char *toolName) {
  // A crash inside NVRTC (a front-end fault on a kernel Kiln generated)
  // takes the process down: name the kernel, and whose bug it is.
  static std::string name = toolName;
  static std::string bugReport = "PLEASE report this Kiln bug with the " + name +
                                 " command line and the model.\n";
  llvm::setBugReportMsg(bugReport.c_str());
  llvm::sys::AddSignalHandler(
      [](void *) { nvrtc::writeCrashNote(2, name.c_str()); }, nullptr);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
}

int gpuWorkerMain(int argc, char **argv) {
  return autotune::gpuWorkerMain(argc, argv);
}

} // namespace kiln
