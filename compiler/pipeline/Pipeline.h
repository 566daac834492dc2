//===- Pipeline.h - Kiln's -O levels as pass pipelines ----------*- C++ -*-===//
#ifndef KILN_COMPILER_PIPELINE_PIPELINE_H
#define KILN_COMPILER_PIPELINE_PIPELINE_H

#include "mlir/Pass/PassManager.h"

namespace kiln {

/// What one -O level turns on. The levels are rows of one table
/// (Pipeline.cpp), not conditions spread through the driver.
struct OptLevelConfig {
  unsigned level;
  bool canonicalize;
  bool foldConstants;
  bool fuse;      ///< kiln-fuse: elementwise fusion regions
  bool epilogues; ///< kiln-fuse epilogues: matmul + elementwise regions
  bool raiseNorms; ///< kiln-raise-norms: written-out RMSNorm -> layer_norm
  bool attention;  ///< kiln-raise-attention: one flash-attention kernel
  bool siblings;   ///< kiln-merge-siblings (Q/K/V as one matmul) and heads
                   ///< read out of fused projections by the attention
  bool causal;     ///< kiln-raise-attention causal: a constant causal mask
                   ///< becomes `causal` (fully masked key blocks skipped)
  bool gelu;       ///< kiln-raise-gelu: written-out GELU -> graph.gelu
  bool convMatmul; ///< kiln-conv-to-matmul: 1x1 and patch convolutions as
                   ///< matmuls
  const char *summary;
};

/// The row for -O<level>; levels above 3 are clamped to 3.
const OptLevelConfig &optLevelConfig(unsigned level);

/// Graph-level passes (after import, before lowering) for -O<level>;
/// `precision` "f16" or "bf16" converts an f32 model after constant folding
/// (kiln-convert-precision), "tf32" marks its f32 matmuls and gemms tf32
/// (tensors stay f32), "" or "f32" keeps it.
void buildGraphPipeline(mlir::OpPassManager &pm, unsigned level,
                        const std::string &precision = "");

/// Registers the pipelines with the pass registry (`kiln-graph-O2`, ...)
/// so kiln-opt can run them.
void registerKilnPipelines();

} // namespace kiln

#endif
