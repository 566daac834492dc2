//===- Rows.h - Row kernels: reduce, softmax, layer_norm, batch_norm ---*- C++ -*-===//
//
// The rows kind folder's entry points: its heuristics (configure: fill the
// tuning keys the config lacks, check the rest, set the geometry), its
// search space and its CUDA emitters. The registry (Registry.cpp) is their
// only user outside the folder.
//
// Config keys (op parameters; the tuning keys, from common/TuningKeys.h, are
// filled by configure when absent):
//
//   reduce       op: "sum" "mean" "max" "min" "prod"; axes (sorted, of the
//                input; empty: all). Tuning: variant ("row": a block per
//                output, "col": a thread per output), block_size.
//   softmax      axis, log (bool). Tuning: variant, block_size (row variant:
//                threads per row, a power of two up to 32, several rows
//                sharing a block, or a multiple of 32, the whole block).
//   layer_norm   axis, epsilon, rms (no mean, no bias: RMSNorm); inputs x,
//                scale[, bias]. Tuning: block_size (threads per row, as for
//                softmax).
//   batch_norm   epsilon; inputs x, scale, bias, mean, var.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_KERNELS_ROWS_H
#define KILN_COMPILER_KERNELS_ROWS_H

#include "compiler/kernels/Registry.h"

namespace kiln::codegen {

bool configureRows(LaunchSpec &s, std::string &error, const TargetOptions &target);
void reduceSpace(autotune::SearchLevel level, const std::string &arch,
                 std::vector<autotune::TuningConfig> &out);
void softmaxSpace(autotune::SearchLevel level, const std::string &arch,
                  std::vector<autotune::TuningConfig> &out);
void layerNormSpace(autotune::SearchLevel level, const std::string &arch,
                    std::vector<autotune::TuningConfig> &out);
extern const KernelKind kReduceKind, kSoftmaxKind, kLayerNormKind, kBatchNormKind;

namespace cuda {
bool emitReduce(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitSoftmax(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitLayerNorm(const LaunchSpec &spec, KernelSource &out, std::string &error);
bool emitBatchNorm(const LaunchSpec &spec, KernelSource &out, std::string &error);
} // namespace cuda

} // namespace kiln::codegen

#endif
