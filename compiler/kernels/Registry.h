//===- Registry.h - The kernel kinds, and how the compiler reaches them -*- C++ -*-===//
//
// A kernel kind is one folder of compiler/kernels (matmul/, attention/, ...)
// holding its heuristics, search space, emitter and .cuh templates; the
// tuning keys it takes come from the one table in common/TuningKeys.h. The
// registry lists the kinds, and is how the lowering (configureLaunch), the
// autotuner (searchSpace, tuning keys), --set, the tuning cache, codegen
// (emitKernelSource) and the tests reach one. Adding a kind is its folder
// and one line of Registry.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_REGISTRY_H
#define KILN_COMPILER_KERNELS_REGISTRY_H

#include "autotune/SearchSpace.h"
#include "compiler/kernels/common/KernelSource.h"
#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/kernels/common/TuningKeys.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::codegen {

/// One kernel kind (a `kernel.launch` kind).
struct KernelKind {
  /// The launch kind's spelling ("matmul").
  const char *name;
  /// The tuning keys it takes; empty for kinds with nothing to tune.
  std::vector<const KeyInfo *> tuningKeys;
  /// Fills the config's missing tuning keys, checks the rest and sets
  /// grid, block and smem; false with a message (the registry adds the
  /// launch's name).
  bool (*configure)(LaunchSpec &spec, std::string &error,
                    const TargetOptions &target);
  /// The CUDA source of a configured launch.
  bool (*emit)(const LaunchSpec &spec, cuda::KernelSource &out,
               std::string &error);
  /// The unpruned candidates at `level` on `arch`, in a fixed order; null
  /// for kinds with nothing to tune but `vec` (vecSpace).
  void (*space)(autotune::SearchLevel level, const std::string &arch,
                std::vector<autotune::TuningConfig> &out) = nullptr;

  bool takes(const KeyInfo &key) const;
};

/// Every kind, in name order.
const std::vector<const KernelKind *> &allKinds();
/// The kind spelled `name`; null when there is none.
const KernelKind *findKind(const std::string &name);

/// The tuning keys of `kind` by name (empty for unknown kinds and kinds
/// with nothing to tune).
std::set<std::string> tuningKeyNames(const std::string &kind);
/// The kinds that have tuning keys, in name order.
std::vector<std::string> tunableKinds();
/// The unpruned candidates of `kind` on `arch` (wgmma ones only where the
/// arch has it), in a fixed order; empty for kinds with nothing to tune.
std::vector<autotune::TuningConfig>
searchSpace(const std::string &kind, autotune::SearchLevel level,
            const std::string &arch);
/// The family of a candidate: its family keys (TuningKeys.h) as text; the
/// staged search measures one member per family first.
std::string configFamily(const autotune::TuningConfig &config);
/// Candidates of a kind whose one tuning key is `vec` (the grid-stride
/// kinds): vector widths.
void vecSpace(autotune::SearchLevel level, const std::string &arch,
              std::vector<autotune::TuningConfig> &out);

} // namespace kiln::codegen

#endif // KILN_COMPILER_KERNELS_REGISTRY_H
