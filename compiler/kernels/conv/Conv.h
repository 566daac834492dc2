//===- Conv.h - Convolution (direct, implicit GEMM) and pooling ---*- C++ -*-===//
//
// The conv kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   conv         strides, pads, dilations, group; inputs x, w[, bias].
//   pool         op: "max"|"average", kernel_shape, strides, pads, dilations,
//                count_include_pad.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_CONV_H
#define KILN_COMPILER_KERNELS_CONV_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

bool configureConvPool(LaunchSpec &s, std::string &error, const TargetOptions &target);
void convSpace(autotune::SearchLevel level, const std::string &arch,
               std::vector<autotune::TuningConfig> &out);
extern const KernelKind kConvKind, kPoolKind;

namespace cuda {
bool emitConv(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitPool(const LaunchSpec &spec, KernelSource &out, std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif
