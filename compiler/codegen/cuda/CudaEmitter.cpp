//===- CudaEmitter.cpp - CUDA C++ for one kernel launch -------------------===//
#include "compiler/codegen/cuda/CudaEmitter.h"
#include "compiler/codegen/cuda/EmitterSupport.h"

namespace kiln::codegen::cuda {

bool emitKernelSource(const LaunchSpec &spec, KernelSource &out,
                      std::string &error) {
  out = KernelSource();
  if (spec.outputs.size() != 1)
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

} // namespace kiln::codegen::cuda
