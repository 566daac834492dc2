//===- EngineEmitter.cpp - CompiledModel to engine file -------------------===//
#include "compiler/engine/EngineEmitter.h"

#include "kiln/engine_writer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"

namespace kiln {

namespace cg = kiln::codegen;
namespace ew = kiln::engine;

static kiln_dtype toRuntime(cg::DType t) {
  switch (t) {
  case cg::DType::F16: return KILN_DTYPE_F16;
  case cg::DType::BF16: return KILN_DTYPE_BF16;
  case cg::DType::F32: return KILN_DTYPE_F32;
  case cg::DType::F64: return KILN_DTYPE_F64;
  case cg::DType::Bool: return KILN_DTYPE_BOOL;
  case cg::DType::I8: return KILN_DTYPE_I8;
  case cg::DType::I16: return KILN_DTYPE_I16;
  case cg::DType::I32: return KILN_DTYPE_I32;
  case cg::DType::I64: return KILN_DTYPE_I64;
  case cg::DType::U8: return KILN_DTYPE_U8;
  case cg::DType::U16: return KILN_DTYPE_U16;
  case cg::DType::U32: return KILN_DTYPE_U32;
  case cg::DType::U64: return KILN_DTYPE_U64;
  }
  return KILN_DTYPE_INVALID;
}

std::string sha256File(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return "";
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::unique_ptr<ew::EngineWriter> buildEngine(const cg::CompiledModel &model,
                                              const EngineProvenance &prov,
                                              std::string &error) {
  ew::ManifestSpec manifest;
  manifest.compilerVersion = prov.compilerVersion.substr(0, 31);
  manifest.targetArch = model.arch;
  for (const auto &t : model.inputs)
    manifest.inputs.push_back({t.name, toRuntime(t.dtype), t.shape});
  for (const auto &t : model.outputs)
    manifest.outputs.push_back({t.name, toRuntime(t.dtype), t.shape});
  manifest.provenance.modelSha256 = sha256File(prov.modelPath);
  manifest.provenance.compileFlags = prov.compileFlags;
  manifest.provenance.tuningCacheHash = prov.tuningCacheHash;

  auto owned = std::make_unique<ew::EngineWriter>(std::move(manifest));
  ew::EngineWriter &writer = *owned;
  ew::PlanSpec plan;
  plan.arenaSize = model.arenaSize;
  plan.isStatic = true;

  for (size_t i = 0; i < model.kernels.size(); ++i) {
    const auto &k = model.kernels[i];
    ew::ImageSpec image;
    image.name = k.name;
    image.arch = k.arch;
    if (!k.cubin.empty())
      image.cubinSection =
          (int32_t)writer.addCubin(std::vector<uint8_t>(k.cubin.begin(), k.cubin.end()));
    if (!k.ptx.empty())
      image.ptxSection = (int32_t)writer.addPtx(k.ptx);
    if (prov.keepSources)
      writer.addExtra("source:" + std::to_string(i) + ":" + k.entry,
                      std::vector<uint8_t>(k.source.begin(), k.source.end()));
    plan.images.push_back(std::move(image));
  }
  std::vector<uint32_t> weightSections;
  for (const auto &w : model.weights)
    weightSections.push_back(
        writer.addWeights(std::vector<uint8_t>(w.data.begin(), w.data.end())));

  for (const auto &b : model.buffers) {
    switch (b.kind) {
    case cg::BufferDesc::Kind::Arena:
      plan.buffers.push_back(ew::BufferSpec::arena(b.offset, b.size, b.name));
      break;
    case cg::BufferDesc::Kind::Weights:
      if (b.index >= weightSections.size()) {
        error = "internal: buffer '" + b.name + "' names weight " + std::to_string(b.index) +
                " of " + std::to_string(weightSections.size());
        return nullptr;
      }
      plan.buffers.push_back(
          ew::BufferSpec::weights(weightSections[b.index], b.offset, b.size, b.name));
      break;
    case cg::BufferDesc::Kind::Input:
      plan.buffers.push_back(ew::BufferSpec::input(b.index, b.size, b.name));
      break;
    case cg::BufferDesc::Kind::Output:
      plan.buffers.push_back(ew::BufferSpec::output(b.index, b.size, b.name));
      break;
    case cg::BufferDesc::Kind::Workspace:
      plan.buffers.push_back(ew::BufferSpec::workspace(b.offset, b.size, b.name));
      break;
    }
  }
  plan.workspaceSize = model.workspaceSize;
  for (size_t i = 0; i < model.launches.size(); ++i) {
    const cg::Launch &l = model.launches[i];
    ew::KernelSpec k;
    k.name = l.name;
    if (l.hasLibrary) {
      k.hasLibrary = true;
      k.entry = "cublasLtMatmul";
      k.library = l.library;
    } else {
      k.image = l.kernel;
      k.entry = model.kernels.at(l.kernel).entry;
    }
    k.grid = {l.grid[0], l.grid[1], l.grid[2]};
    k.block = {l.block[0], l.block[1], l.block[2]};
    k.dynamicSharedBytes = l.smem;
    k.nodes = l.nodes;
    k.bytes = l.bytes;
    k.flops = l.flops;
    k.programmaticLaunch = l.programmatic;
    for (const autotune::TensorMapArg &m : l.tensorMaps) {
      ew::TensorMapSpec t;
      t.buffer = m.buffer;
      t.offset = m.offset;
      t.dtype = kiln_dtype_from_name(m.dtype.c_str());
      t.dims = m.dims;
      t.strides = m.strides;
      t.box = m.box;
      t.swizzle = m.swizzle;
      k.tensorMaps.push_back(std::move(t));
    }
    for (const cg::LaunchArg &a : l.args) {
      ew::ArgSpec arg;
      arg.kind = static_cast<ew::ArgKind>(a.kind);
      arg.scalarType = static_cast<ew::ScalarType>(a.scalarType);
      arg.buffer = a.buffer;
      arg.value = a.value;
      k.args.push_back(arg);
    }
    plan.kernels.push_back(std::move(k));
    plan.launchOrder.push_back((uint32_t)i);
  }
  writer.addPlan(std::move(plan));
  return owned;
}

} // namespace kiln
