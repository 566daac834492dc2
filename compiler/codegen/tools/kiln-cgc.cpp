//===- kiln-cgc.cpp - Lower, generate and compile kernels of an MLIR model ===//
//
// kiln-cgc model.mlir [--emit=kernel|cuda|summary] [--arch=sm_90]
//                     [--set=kind.key=value]... [--bundle=DIR [--seed=N]] [-o
//                     out]
//
// The input is graph-dialect MLIR (kilnc --emit=graph) or already lowered
// kernel-dialect MLIR. --bundle writes what tools/gpu_check.py needs to run
// the compiled plan on a GPU and compare it with the reference evaluator:
// manifest.json, the cubins, weights, random inputs and expected outputs.
//
//===----------------------------------------------------------------------===//
#include "compiler/codegen/CompiledModel.h"
#include "compiler/codegen/TensorBytes.h"
#include "compiler/evaluator/Evaluator.h"
#include "compiler/lowering/Lowering.h"
#include "compiler/lowering/SpecBridge.h"
#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>

namespace cl = llvm::cl;
using namespace mlir;

static cl::OptionCategory category("kiln-cgc options");
static cl::opt<std::string> inputPath(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::desc("Output file"),
                                       cl::init("-"), cl::cat(category));
enum class Emit { Kernel, Cuda, Summary };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to print"), cl::init(Emit::Summary),
    cl::values(clEnumValN(Emit::Kernel, "kernel", "planned kernel-dialect IR"),
               clEnumValN(Emit::Cuda, "cuda", "CUDA C++ of every kernel"),
               clEnumValN(Emit::Summary, "summary",
                          "compile with NVRTC and list launches")),
    cl::cat(category));
static cl::opt<std::string> arch("arch", cl::desc("GPU architecture"),
                                 cl::init("sm_90"), cl::cat(category));
static cl::opt<std::string>
    bundleDir("bundle", cl::desc("Write a GPU check bundle to DIR"),
              cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool>
    noReference("no-reference",
                cl::desc("Bundle without inputs and expected outputs (for "
                         "timing large models; the "
                         "checker fills the inputs with random data)"),
                cl::cat(category));
static cl::list<std::string> setConfig(
    "set",
    cl::desc("Set a config key of every launch of a kind and recompute its "
             "geometry, e.g. --set=matmul.tile_m=64 (integers, true/false, "
             "else strings)"),
    cl::value_desc("kind.key=value"), cl::cat(category));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the bundle's random inputs"),
                              cl::init(1), cl::cat(category));

namespace {

const char *bufferKind(kiln::codegen::BufferDesc::Kind k) {
  switch (k) {
  case kiln::codegen::BufferDesc::Kind::Arena:
    return "arena";
  case kiln::codegen::BufferDesc::Kind::Weights:
    return "weights";
  case kiln::codegen::BufferDesc::Kind::Input:
    return "input";
  case kiln::codegen::BufferDesc::Kind::Output:
    return "output";
  case kiln::codegen::BufferDesc::Kind::Workspace:
    return "workspace";
  }
  return "?";
}

std::string jsonString(llvm::StringRef s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\';
    r += c;
  }
  return r + "\"";
}

bool writeFile(const std::string &path, const std::vector<char> &data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(f);
}

std::string shapeJson(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// Random inputs for the graph function and its reference outputs.
LogicalResult referenceRun(func::FuncOp fn,
                           std::vector<kiln::eval::Tensor> &inputs,
                           std::vector<kiln::eval::Tensor> &outputs) {
  for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes())) {
    auto rt = cast<RankedTensorType>(t);
    FailureOr<kiln::eval::DType> dt =
        kiln::eval::dtypeFromMlir(rt.getElementType());
    if (failed(dt))
      return fn.emitError()
             << "input #" << i << " has an element type the evaluator lacks";
    inputs.push_back(
        kiln::eval::randomTensor(*dt, rt.getShape(), seed + 7919 * i));
  }
  FailureOr<std::vector<kiln::eval::Tensor>> out =
      kiln::eval::evaluateFunction(fn, inputs);
  if (failed(out))
    return failure();
  outputs = std::move(*out);
  return success();
}

bool writeBundle(const kiln::codegen::CompiledModel &m,
                 const std::vector<kiln::eval::Tensor> &inputs,
                 const std::vector<kiln::eval::Tensor> &outputs) {
  const std::string dir = bundleDir;
  if (llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "kiln-cgc: error: cannot create " << dir << "\n";
    return false;
  }
  std::string j = "{\n  \"arch\": " + jsonString(m.arch) + ",\n";
  j += "  \"arena_size\": " + std::to_string(m.arenaSize) +
       ",\n  \"kernels\": [\n";
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    std::string file = "k" + std::to_string(i) + ".cubin";
    if (!writeFile(dir + "/" + file, m.kernels[i].cubin))
      return false;
    j += "    {\"entry\": " + jsonString(m.kernels[i].entry) +
         ", \"cubin\": " + jsonString(file) +
         ", \"name\": " + jsonString(m.kernels[i].name) +
         ", \"error_flag\": " + (m.kernelHasErrorFlag[i] ? "true" : "false") +
         "}" + (i + 1 < m.kernels.size() ? ",\n" : "\n");
  }
  j += "  ],\n  \"buffers\": [\n";
  for (size_t i = 0; i < m.buffers.size(); ++i) {
    const auto &b = m.buffers[i];
    j += std::string("    {\"kind\": \"") + bufferKind(b.kind) +
         "\", \"offset\": " + std::to_string(b.offset) +
         ", \"size\": " + std::to_string(b.size) +
         ", \"index\": " + std::to_string(b.index) + "}" +
         (i + 1 < m.buffers.size() ? ",\n" : "\n");
  }
  j += "  ],\n  \"launches\": [\n";
  for (size_t i = 0; i < m.launches.size(); ++i) {
    const auto &l = m.launches[i];
    j += "    {\"name\": " + jsonString(l.name) +
         ", \"kind\": " + jsonString(l.kind) +
         ", \"kernel\": " + std::to_string(l.kernel) + ", \"grid\": [" +
         std::to_string(l.grid[0]) + ", " + std::to_string(l.grid[1]) + ", " +
         std::to_string(l.grid[2]) + "], \"block\": [" +
         std::to_string(l.block[0]) + ", " + std::to_string(l.block[1]) + ", " +
         std::to_string(l.block[2]) + "], \"smem\": " + std::to_string(l.smem) +
         ", \"args\": [";
    for (size_t a = 0; a < l.args.size(); ++a)
      j += (a ? ", [" : "[") + std::to_string(l.args[a].buffer) + ", " +
           std::to_string(l.args[a].value) + "]";
    j += "]}" + std::string(i + 1 < m.launches.size() ? ",\n" : "\n");
  }
  j += "  ],\n  \"weights\": [";
  for (size_t i = 0; i < m.weights.size(); ++i) {
    std::string file = "w" + std::to_string(i) + ".bin";
    if (!writeFile(dir + "/" + file, m.weights[i].data))
      return false;
    j += (i ? ", " : "") + jsonString(file);
  }
  j += "],\n";
  for (int side = 0; side < 2; ++side) {
    const auto &descs = side ? m.outputs : m.inputs;
    const auto &tensors = side ? outputs : inputs;
    j += side ? "  \"outputs\": [\n" : "  \"inputs\": [\n";
    for (size_t i = 0; i < descs.size(); ++i) {
      std::string file = (side ? "out" : "in") + std::to_string(i) + ".bin";
      if (i >= tensors.size())
        file.clear(); // --no-reference
      else if (!writeFile(dir + "/" + file,
                          kiln::codegen::packTensor(tensors[i])))
        return false;
      j += "    {\"name\": " + jsonString(descs[i].name) + ", \"dtype\": \"" +
           kiln::codegen::dtypeName(descs[i].dtype) +
           "\", \"shape\": " + shapeJson(descs[i].shape) + ", \"file\": " +
           (file.empty() ? std::string("null") : jsonString(file)) + "}" +
           (i + 1 < descs.size() ? ",\n" : "\n");
    }
    j += side ? "  ]\n" : "  ],\n";
  }
  j += "}\n";
  std::vector<char> text(j.begin(), j.end());
  return writeFile(dir + "/manifest.json", text);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  cl::HideUnrelatedOptions({&category});
  cl::ParseCommandLineOptions(argc, argv,
                              "Kiln: lower, generate and compile kernels\n");

  DialectRegistry registry;
  registry.insert<kiln::graph::GraphDialect, func::FuncDialect>();
  kiln::registerKernelDialect(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sources;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(inputPath);
  if (!buffer) {
    llvm::errs() << "kiln-cgc: error: cannot read " << inputPath << "\n";
    return 1;
  }
  sources.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sources, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (!module)
    return 1;

  std::vector<kiln::eval::Tensor> inputs, outputs;
  if (!bundleDir.empty()) {
    func::FuncOp fn = module->lookupSymbol<func::FuncOp>("main");
    if (!fn || llvm::any_of(fn.getArgumentTypes(),
                            [](Type t) { return !isa<TensorType>(t); })) {
      llvm::errs() << "kiln-cgc: error: --bundle needs a graph-dialect @main\n";
      return 1;
    }
    if (!noReference && failed(referenceRun(fn, inputs, outputs)))
      return 1;
  }
  kiln::LoweringOptions lowering;
  lowering.arch = arch;
  if (failed(kiln::lowerToKernel(*module, lowering)))
    return 1;
  {
    std::string error;
    std::vector<std::string> settings(setConfig.begin(), setConfig.end());
    kiln::codegen::TargetOptions target;
    target.arch = arch;
    if (failed(kiln::applyConfigSettings(*module, settings, error, target))) {
      llvm::errs() << "kiln-cgc: error: " << error << "\n";
      return 1;
    }
  }

  std::error_code ec;
  llvm::ToolOutputFile out(outputPath, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << outputPath << ": error: " << ec.message() << "\n";
    return 1;
  }
  if (emit == Emit::Kernel) {
    OpPrintingFlags flags;
    flags.elideLargeResourceString(64);
    module->print(out.os(), flags);
    out.keep();
    return 0;
  }
  kiln::codegen::CodegenOptions options;
  options.arch = arch;
  options.emitSourceOnly = emit == Emit::Cuda && bundleDir.empty();
  FailureOr<kiln::codegen::CompiledModel> m =
      kiln::codegen::compileModule(*module, options);
  if (failed(m))
    return 1;
  if (emit == Emit::Cuda) {
    for (const auto &k : m->kernels)
      out.os() << "// ===== kernel " << k.entry << " (first launch @" << k.name
               << ")\n"
               << k.source << "\n";
  } else {
    auto &os = out.os();
    size_t cubinBytes = 0, weightBytes = 0;
    for (const auto &k : m->kernels)
      cubinBytes += k.cubin.size();
    for (const auto &w : m->weights)
      weightBytes += w.data.size();
    os << "arch " << m->arch << " nvrtc " << m->nvrtcVersion << "\n";
    os << "kernels " << m->kernels.size() << " cubin_bytes " << cubinBytes
       << "\n";
    os << "launches " << m->launches.size() << "\n";
    os << "arena " << m->arenaSize << "\n";
    os << "weights " << m->weights.size() << " bytes " << weightBytes << "\n";
    for (const auto &t : m->inputs)
      os << "input " << t.name << " " << kiln::codegen::dtypeName(t.dtype)
         << " " << shapeJson(t.shape) << "\n";
    for (const auto &t : m->outputs)
      os << "output " << t.name << " " << kiln::codegen::dtypeName(t.dtype)
         << " " << shapeJson(t.shape) << "\n";
    for (const auto &l : m->launches) {
      const auto &k = m->kernels[l.kernel];
      os << "launch @" << l.name << " " << l.kind << " " << k.entry << " grid "
         << l.grid[0] << "x" << l.grid[1] << "x" << l.grid[2] << " block "
         << l.block[0] << " cubin " << (k.cubin.empty() ? "none" : "ok")
         << "\n";
    }
  }
  if (!bundleDir.empty() && !writeBundle(*m, inputs, outputs))
    return 1;
  out.keep();
  return 0;
}
