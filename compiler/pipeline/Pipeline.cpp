//===- Pipeline.cpp - Kiln's -O levels as pass pipelines ------------------===//
#include "compiler/pipeline/Pipeline.h"

#include "compiler/transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace kiln {

static const OptLevelConfig kOptLevels[] = {
    // level, canonicalize, foldConstants, fuse, summary
    {0, false, false, false, "import only: shape subgraphs folded, nothing else"},
    {1, true, true, false, "canonicalize and fold constants"},
    {2, true, true, true, "-O1 and elementwise fusion (attention joins here)"},
    {3, true, true, true, "-O2 (wider autotuning joins here)"},
};

const OptLevelConfig &optLevelConfig(unsigned level) {
  return kOptLevels[std::min<unsigned>(level, 3)];
}

void buildGraphPipeline(mlir::OpPassManager &pm, unsigned level) {
  const OptLevelConfig &cfg = optLevelConfig(level);
  if (cfg.canonicalize)
    pm.addPass(mlir::createCanonicalizerPass());
  if (cfg.foldConstants) {
    pm.addPass(createFoldConstantsPass());
    pm.addPass(mlir::createCanonicalizerPass());
  }
  if (cfg.fuse)
    pm.addPass(createFusePass());
}

void registerKilnPipelines() {
  for (unsigned level = 0; level <= 3; ++level) {
    std::string name = "kiln-graph-O" + std::to_string(level);
    mlir::PassPipelineRegistration<>(
        name, optLevelConfig(level).summary,
        [level](mlir::OpPassManager &pm) { buildGraphPipeline(pm, level); });
  }
}

} // namespace kiln
