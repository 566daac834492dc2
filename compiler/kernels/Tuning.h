//===- Tuning.h - LaunchSpecs as the autotuner sees them --------*- C++ -*-===//
//
// The bridge between launch specs and autotune/ (which knows no LaunchSpec):
// a launch's kernel signature, its tuning keys as a TuningConfig, applying a
// TuningConfig through configureLaunch, and the pruned candidate space.
// Plain C++ (no MLIR).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_TUNING_H
#define KILN_COMPILER_CODEGEN_TUNING_H

#include "autotune/SearchSpace.h"
#include "autotune/TuningCache.h"
#include "compiler/kernels/Registry.h"
#include "compiler/kernels/common/KernelSpec.h"

namespace kiln::codegen {

/// A config value as tuning text: decimal ints, %.17g floats, true/false,
/// strings as they are, int lists as "[1,2,3]".
std::string configValueText(const ConfigValue &v);
/// The inverse for tuning keys (which are ints, bools or strings): an
/// integer, true/false, else a string.
ConfigValue configValueFromText(const std::string &text);

/// `text` as the value of tuning key `key` of `kind`: false with `why` when
/// `key` is not one of the kind's tuning keys or `text` is not of its type
/// (KeyInfo::checkText). The one gate for the tuning cache, the
/// autotuner's candidates and --set.
bool tuningValueFromText(const std::string &kind, const std::string &key,
                         const std::string &text, ConfigValue &value,
                         std::string &why);

/// The signature of `spec`: kind, buffers (dtype, shape, alignment), every
/// config key that is not a tuning key of the kind, and `toolchain`.
autotune::KernelSignature kernelSignature(const LaunchSpec &spec,
                                          const autotune::Toolchain &toolchain);

/// The tuning keys present in `spec.config`.
autotune::TuningConfig tuningConfigOf(const LaunchSpec &spec);

/// Replaces the tuning keys of `spec.config` by `config` and re-runs
/// configureLaunch (keys `config` lacks get the heuristics' values given the
/// others). False with `error` (naming the launch) when the result is not a
/// valid launch or `config` names a key that is not a tuning key.
bool applyTuningConfig(LaunchSpec &spec, const autotune::TuningConfig &config,
                       const TargetOptions &target, std::string &error);

/// The candidates of `configured` (a launch configureLaunch accepted, whose
/// tuning keys are the baseline) at `level`, pruned by configureLaunch:
/// the baseline first, then each new valid config in the space's order.
autotune::PrunedSpace tuningCandidates(const LaunchSpec &configured,
                                       autotune::SearchLevel level,
                                       const TargetOptions &target);

} // namespace kiln::codegen

#endif // KILN_COMPILER_CODEGEN_TUNING_H
