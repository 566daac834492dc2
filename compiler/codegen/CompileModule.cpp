//===- CompileModule.cpp - Kernel-dialect module to a CompiledModel -------===//
#include "compiler/codegen/CompiledModel.h"

#include "compiler/kernels/library/LibraryCalls.h"
#include "compiler/codegen/TensorBytes.h"
#include "compiler/kernels/common/KernelSource.h"
#include "compiler/lowering/Passes.h"
#include "compiler/lowering/SpecBridge.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>

using namespace mlir;
namespace kern = kiln::kernel;

namespace kiln::codegen {

namespace {

/// The kernel function to compile: @main, else the only one with kernel
/// arguments.
func::FuncOp findKernelFunction(ModuleOp module) {
  func::FuncOp found;
  unsigned count = 0;
  for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
    if (!fn->hasAttr(kern::KernelDialect::kArenaSizeAttr))
      continue;
    if (fn.getSymName() == "main")
      return fn;
    found = fn;
    ++count;
  }
  return count == 1 ? found : func::FuncOp();
}

std::string argName(func::FuncOp fn, unsigned i, const char *dflt,
                    int64_t index) {
  if (auto n =
          fn.getArgAttrOfType<StringAttr>(i, kern::KernelDialect::kNameAttr))
    return n.str();
  return std::string(dflt) + std::to_string(index);
}

/// The ONNX nodes of a launch, ", " separated (for profiles).
std::string nodeList(Location loc) {
  std::string out;
  for (const std::string &n : kiln::graph::onnxNodeNames(loc))
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

} // namespace

FailureOr<CompiledModel> compileModule(ModuleOp module,
                                       const CodegenOptions &options) {
  func::FuncOp fn = findKernelFunction(module);
  if (!fn)
    return module.emitError()
           << "no planned kernel function to compile (run "
              "kiln-lower-to-kernel and kiln-plan-memory first; with several "
              "functions, one must be @main)";
  CompiledModel m;
  m.arch = options.arch;
  m.arenaSize =
      fn->getAttrOfType<IntegerAttr>(kern::KernelDialect::kArenaSizeAttr)
          .getInt();

  // Buffers: one per bound argument, alloc and (distinct) weight.
  DenseMap<Value, uint32_t> bufferOf;
  std::map<int64_t, std::pair<TensorDesc, uint32_t>> inputs, outputs;
  for (BlockArgument arg : fn.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto in =
        fn.getArgAttrOfType<IntegerAttr>(i, kern::KernelDialect::kInputAttr);
    auto out =
        fn.getArgAttrOfType<IntegerAttr>(i, kern::KernelDialect::kOutputAttr);
    if (!in && !out)
      return fn.emitError() << "argument #" << i
                            << " is neither a kernel.input nor a kernel.output";
    FailureOr<BufferSpec> spec = bufferSpecOf(arg);
    if (failed(spec))
      return fn.emitError()
             << "argument #" << i << " has unsupported type " << arg.getType();
    int64_t index = in ? in.getInt() : out.getInt();
    TensorDesc t;
    t.name = argName(fn, i, in ? "input" : "output", index);
    t.dtype = spec->dtype;
    t.shape = spec->shape;
    t.bytes = kern::bufferByteSize(arg.getType());
    auto &table = in ? inputs : outputs;
    if (!table.emplace(index, std::make_pair(t, i)).second)
      return fn.emitError()
             << "two arguments bind " << (in ? "input " : "output ") << index;
  }
  for (auto [list, table, kind] :
       {std::make_tuple(&m.inputs, &inputs, BufferDesc::Kind::Input),
        std::make_tuple(&m.outputs, &outputs, BufferDesc::Kind::Output)}) {
    int64_t expect = 0;
    for (auto &[index, entry] : *table) {
      if (index != expect++)
        return fn.emitError() << "model inputs/outputs are not numbered 0..n-1";
      BufferDesc b;
      b.kind = kind;
      b.size = entry.first.bytes;
      b.index = static_cast<uint32_t>(list->size());
      b.name = entry.first.name;
      bufferOf[fn.getArgument(entry.second)] = m.buffers.size();
      m.buffers.push_back(b);
      list->push_back(entry.first);
    }
  }
  DenseMap<Attribute, uint32_t> weightOf; // value -> weight index
  std::vector<uint32_t> weightBuffer;     // weight index -> buffer index
  WalkResult walk = fn.walk([&](Operation *op) -> WalkResult {
    if (auto a = dyn_cast<kern::AllocOp>(op)) {
      if (!a.getOffset())
        return a.emitOpError()
               << "has no arena offset: run kiln-plan-memory first";
      BufferDesc b;
      b.kind = BufferDesc::Kind::Arena;
      b.offset = static_cast<uint64_t>(a.getOffsetAttr().getInt());
      b.size = a.getByteSize();
      if (b.offset + b.size > m.arenaSize)
        return a.emitOpError()
               << "lies outside the arena of " << m.arenaSize << " bytes";
      bufferOf[a.getResult()] = m.buffers.size();
      m.buffers.push_back(b);
    } else if (auto w = dyn_cast<kern::WeightOp>(op)) {
      auto [it, inserted] =
          weightOf.try_emplace(w.getValue(), m.weights.size());
      if (inserted) {
        WeightBlob blob;
        blob.name = w.getName() ? w.getName()->str()
                                : "weight" + std::to_string(m.weights.size());
        std::string error;
        // Printing CUDA needs no weight bytes (they may be elided from the IR).
        if (!packElements(w.getValue(), blob.data, error) &&
            !options.emitSourceOnly)
          return w.emitOpError() << "cannot be packed: " << error;
        m.weights.push_back(std::move(blob));
        BufferDesc b;
        b.kind = BufferDesc::Kind::Weights;
        b.size = m.weights.back().data.size();
        b.index = it->second;
        b.name = m.weights.back().name;
        weightBuffer.push_back(m.buffers.size());
        m.buffers.push_back(b);
      }
      // Every weight op of one value shares that value's buffer.
      bufferOf[w.getResult()] = weightBuffer[it->second];
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Launches and their kernels, identical sources sharing one image.
  std::vector<nvrtc::KernelRequest> requests;
  llvm::StringMap<uint32_t> kernelOf;
  uint32_t workspaceBuffer = 0;
  walk = fn.walk([&](kern::LaunchOp launch) -> WalkResult {
    FailureOr<LaunchSpec> spec = specFromLaunch(launch);
    if (failed(spec))
      return WalkResult::interrupt();
    // Operands: one buffer reference each, inputs then outputs.
    std::vector<LaunchArg> operands;
    for (Value v : launch->getOperands()) {
      BufferRoot r = resolveBuffer(v);
      auto found = bufferOf.find(r.root);
      if (found == bufferOf.end())
        return launch.emitOpError()
               << "uses a buffer that is not an argument, alloc or weight";
      LaunchArg arg;
      arg.kind = LaunchArg::Kind::BufferRef;
      arg.buffer = found->second;
      arg.value = static_cast<uint64_t>(r.offset);
      operands.push_back(arg);
    }
    std::string error;
    if (spec->kind == "matmul" &&
        spec->config.get(codegen::keys::path) == "cublaslt") {
      Launch l;
      l.name = spec->name;
      l.kind = spec->kind;
      l.nodes = nodeList(launch.getLoc());
      l.bytes = operandBytes(*spec);
      l.flops = estimateFlops(*spec);
      l.args = std::move(operands);
      l.hasLibrary = true;
      if (!cublasLtCall(*spec, l.library, error))
        return launch.emitOpError() << "cuBLASLt cannot run it: " << error;
      m.launches.push_back(std::move(l));
      return WalkResult::advance();
    }
    cuda::KernelSource src;
    if (!cuda::emitKernelSource(*spec, src, error))
      return launch.emitOpError() << error;
    // Arch-specific kernels (wgmma) compile for the "a" variant of the
    // target (sm_90a cubins run on every sm_90 GPU), the others for the
    // target itself so their PTX stays portable.
    std::string arch;
    if (src.archSpecific) {
      if (!archHasWgmma(options.arch))
        return launch.emitOpError()
               << "uses wgmma, which needs an sm_90 target, not "
               << options.arch;
      arch = "sm_90a";
    }
    auto [it, inserted] = kernelOf.try_emplace(src.source, requests.size());
    if (inserted) {
      requests.push_back({spec->name, src.entry, src.source, arch});
      m.kernelHasErrorFlag.push_back(src.hasErrorFlag);
    }
    Launch l;
    l.name = spec->name;
    l.kind = spec->kind;
    l.kernel = it->second;
    for (int i = 0; i < 3; ++i) {
      l.grid[i] = static_cast<uint32_t>(spec->grid[i]);
      l.block[i] = static_cast<uint32_t>(spec->block[i]);
    }
    l.smem = static_cast<uint32_t>(spec->smem);
    l.nodes = nodeList(launch.getLoc());
    l.bytes = operandBytes(*spec);
    l.flops = estimateFlops(*spec);
    // The wait is compiled in only for sm_90 and later (common.cuh): an
    // sm_80 engine JIT-compiled on a Hopper GPU must not be launched early.
    l.programmatic = src.gridDependencySync && archAtLeast(options.arch, 90);
    l.args = std::move(operands);
    // Tensor maps follow the pointers; their operand index becomes that
    // operand's buffer and offset.
    for (const autotune::TensorMapArg &tm : src.tensorMaps) {
      if (tm.buffer >= l.args.size())
        return launch.emitOpError()
               << "a tensor map names operand " << tm.buffer << " of "
               << l.args.size();
      autotune::TensorMapArg m = tm;
      m.buffer = l.args[tm.buffer].buffer;
      m.offset += l.args[tm.buffer].value;
      LaunchArg arg;
      arg.kind = LaunchArg::Kind::TensorMap;
      arg.value = l.tensorMaps.size();
      l.tensorMaps.push_back(std::move(m));
      l.args.push_back(arg);
    }
    // The kernel workspace, last (one buffer over all of it, for every
    // launch that uses it).
    if (const uint64_t ws = launchWorkspaceBytes(*spec)) {
      if (m.workspaceSize == 0) {
        workspaceBuffer = static_cast<uint32_t>(m.buffers.size());
        BufferDesc b;
        b.kind = BufferDesc::Kind::Workspace;
        b.name = "kernel workspace";
        m.buffers.push_back(b);
      }
      m.workspaceSize = std::max(m.workspaceSize, ws);
      m.buffers[workspaceBuffer].size = m.workspaceSize;
      LaunchArg arg;
      arg.kind = LaunchArg::Kind::BufferRef;
      arg.buffer = workspaceBuffer;
      l.args.push_back(arg);
    }
    m.launches.push_back(std::move(l));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  if (options.emitSourceOnly) {
    for (const nvrtc::KernelRequest &r : requests) {
      nvrtc::CompiledKernel k;
      k.name = r.name;
      k.entry = r.entry;
      k.source = r.source;
      m.kernels.push_back(std::move(k));
    }
    return m;
  }
  nvrtc::CompileOptions copts;
  copts.arch = options.arch;
  copts.jobs = options.jobs;
  copts.lineInfo = options.lineInfo;
  std::string error;
  if (!nvrtc::compileKernels(requests, copts, m.kernels, error))
    return fn.emitError() << error;
  m.nvrtcVersion = nvrtc::nvrtcVersion();
  return m;
}

} // namespace kiln::codegen

void kiln::registerCodegenPasses() { registerLoweringPasses(); }
