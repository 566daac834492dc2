//===- Registry.cpp - The kernel kinds --------------------------------------===//
#include "compiler/kernels/Registry.h"
#include "compiler/kernels/attention/Attention.h"
#include "compiler/kernels/common/EmitterSupport.h"
#include "compiler/kernels/conv/Conv.h"
#include "compiler/kernels/datamove/DataMove.h"
#include "compiler/kernels/elementwise/Elementwise.h"
#include "compiler/kernels/matmul/Matmul.h"
#include "compiler/kernels/rows/Rows.h"

#include <algorithm>

namespace kiln::codegen {

const std::vector<const KernelKind *> &allKinds() {
  // One line per kind.
  static const std::vector<const KernelKind *> kinds = [] {
    std::vector<const KernelKind *> v = {
        &kAttentionKind,   &kBatchNormKind, &kConcatKind,
        &kConvKind,        &kElementwiseKind, &kFusedElementwiseKind,
        &kGatherKind,      &kGatherElementsKind, &kLayerNormKind,
        &kMatmulKind,      &kPoolKind,      &kReduceKind,
        &kSliceKind,       &kSoftmaxKind,   &kTransposeKind,
        &kTriluKind,
    };
    std::sort(v.begin(), v.end(), [](const KernelKind *a, const KernelKind *b) {
      return std::string(a->name) < b->name;
    });
    return v;
  }();
  return kinds;
}

const KernelKind *findKind(const std::string &name) {
  for (const KernelKind *k : allKinds())
    if (name == k->name)
      return k;
  return nullptr;
}

bool KernelKind::takes(const KeyInfo &key) const {
  return std::find(tuningKeys.begin(), tuningKeys.end(), &key) !=
         tuningKeys.end();
}

std::set<std::string> tuningKeyNames(const std::string &kind) {
  std::set<std::string> out;
  if (const KernelKind *k = findKind(kind))
    for (const KeyInfo *key : k->tuningKeys)
      out.insert(key->name);
  return out;
}

std::vector<std::string> tunableKinds() {
  std::vector<std::string> out;
  for (const KernelKind *k : allKinds())
    if (!k->tuningKeys.empty())
      out.push_back(k->name);
  return out;
}

void vecSpace(autotune::SearchLevel level, const std::string &,
              std::vector<autotune::TuningConfig> &out) {
  for (int64_t v : level == autotune::SearchLevel::Max
                       ? std::vector<int64_t>{1, 2, 4, 8, 16}
                       : std::vector<int64_t>{1, 4, 8})
    out.push_back({{keys::vec.name(), std::to_string(v)}});
}

std::vector<autotune::TuningConfig> searchSpace(const std::string &kind,
                                                autotune::SearchLevel level,
                                                const std::string &arch) {
  std::vector<autotune::TuningConfig> out;
  const KernelKind *k = findKind(kind);
  if (!k)
    return out;
  if (k->space)
    k->space(level, arch, out);
  else if (k->takes(keys::vec.info))
    vecSpace(level, arch, out);
  return out;
}

std::string configFamily(const autotune::TuningConfig &config) {
#define KILN_FAMILY_KEY(n, type, family)                                       \
  if (family) {                                                                \
    auto it = config.find(keys::n.name());                                     \
    if (it != config.end())                                                    \
      out += std::string(keys::n.name()) + "=" + it->second + " ";             \
  }
  std::string out;
  KILN_TUNING_KEYS(KILN_FAMILY_KEY)
#undef KILN_FAMILY_KEY
  return out;
}

bool configureLaunch(LaunchSpec &s, std::string &error,
                     const TargetOptions &target) {
  auto fail = [&](const std::string &msg) {
    error = "launch @" + s.name + " (" + s.kind + "): " + msg;
    return false;
  };
  if (!outputCountValid(s))
    return fail("expects exactly one output buffer");
  const KernelKind *kind = findKind(s.kind);
  if (!kind)
    return fail("unknown kernel kind");
  std::string why;
  return kind->configure(s, why, target) || fail(why);
}

namespace cuda {
namespace {
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
  out = KernelSource();
  if (!outputCountValid(spec))
    return emitError(spec, error, "expects exactly one output");
  const KernelKind *kind = findKind(spec.kind);
  if (!kind)
    return emitError(spec, error, "no CUDA emitter for this kind");
  return kind->emit(spec, out, error) &&
         addGridDependencySync(spec, out, error);
}
} // namespace cuda

} // namespace kiln::codegen
