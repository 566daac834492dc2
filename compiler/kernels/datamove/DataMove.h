//===- DataMove.h - Data movement: concat, gather, gather_elements ---*- C++ -*-===//
//
// The datamove kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   concat       axis. Tuning: vec.
//   gather       axis; inputs data, indices.
//   gather_elements axis; inputs data, indices.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_DATAMOVE_H
#define KILN_COMPILER_KERNELS_DATAMOVE_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

bool configureDataMove(LaunchSpec &s, std::string &error, const TargetOptions &target);
extern const KernelKind kConcatKind, kGatherKind, kGatherElementsKind;

namespace cuda {
bool emitConcat(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitGather(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitGatherElements(const LaunchSpec &spec, KernelSource &out,
                        std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif
