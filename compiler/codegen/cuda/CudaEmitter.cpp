//===- CudaEmitter.cpp - CUDA C++ for one kernel launch -------------------===//
#include "compiler/codegen/cuda/CudaEmitter.h"
#include "compiler/codegen/cuda/EmitterSupport.h"

namespace kiln::codegen::cuda {

namespace {
bool emitKind(const LaunchSpec &spec, KernelSource &out, std::string &error);

/// Makes kiln::grid_dependency_sync() the entry's first statement: the
/// source's one __global__ function is the entry, and the first opening
/// brace after its name ends its parameter list (parameters hold no braces).
bool addGridDependencySync(const LaunchSpec &spec, KernelSource &out,
                           std::string &error) {
  size_t global = out.source.rfind("__global__");
  size_t at = global == std::string::npos
                  ? global
                  : out.source.find(" " + out.entry + "(", global);
  size_t brace =
      at == std::string::npos ? at : out.source.find('{', at + out.entry.size());
  if (brace == std::string::npos)
    return emitError(spec, error,
                     "internal: no body for entry '" + out.entry + "'");
  out.source.insert(brace + 1, "\n  kiln::grid_dependency_sync();");
  out.gridDependencySync = true;
  return true;
}
} // namespace

bool emitKernelSource(const LaunchSpec &spec, KernelSource &out,
                      std::string &error) {
  return emitKind(spec, out, error) &&
         addGridDependencySync(spec, out, error);
}

namespace {
bool emitKind(const LaunchSpec &spec, KernelSource &out, std::string &error) {
  out = KernelSource();
  if (!outputCountValid(spec))
    return emitError(spec, error, "expects exactly one output");
  const std::string &k = spec.kind;
  if (k == "elementwise" || k == "fused_elementwise" || k == "transpose" ||
      k == "slice" || k == "trilu")
    return emitElementwiseFamily(spec, out, error);
  if (k == "concat")
    return emitConcat(spec, out, error);
  if (k == "batch_norm")
    return emitBatchNorm(spec, out, error);
  if (k == "reduce")
    return emitReduce(spec, out, error);
  if (k == "softmax")
    return emitSoftmax(spec, out, error);
  if (k == "layer_norm")
    return emitLayerNorm(spec, out, error);
  if (k == "matmul")
    return emitMatmul(spec, out, error);
  if (k == "attention")
    return emitAttention(spec, out, error);
  if (k == "conv")
    return emitConv(spec, out, error);
  if (k == "pool")
    return emitPool(spec, out, error);
  if (k == "gather")
    return emitGather(spec, out, error);
  if (k == "gather_elements")
    return emitGatherElements(spec, out, error);
  return emitError(spec, error, "no CUDA emitter for this kind");
}
} // namespace

} // namespace kiln::codegen::cuda
