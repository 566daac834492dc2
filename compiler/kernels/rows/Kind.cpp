//===- Kind.cpp - the row kinds ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/rows/Rows.h"

namespace kiln::codegen {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
using autotune::SearchLevel;
using autotune::TuningConfig;
/// Threads per row of softmax "row" and layer_norm: sub-warp teams (several
/// rows a block) and whole blocks.
std::vector<int64_t> rowTeams(SearchLevel level) {
  if (level == SearchLevel::Max)
    return {4, 8, 16, 32, 64, 128, 256, 512, 1024};
  return {32, 128, 256, 512};
}
} // namespace

void softmaxSpace(SearchLevel level, const std::string &,
                  std::vector<TuningConfig> &out) {
    for (int64_t t : rowTeams(level))
      out.push_back({{keys::variant.name(), "row"}, {keys::block_size.name(), str(t)}});
}

void layerNormSpace(SearchLevel level, const std::string &,
                    std::vector<TuningConfig> &out) {
    for (int64_t t : rowTeams(level))
      out.push_back({{keys::block_size.name(), str(t)}});
}

void reduceSpace(SearchLevel level, const std::string &,
                 std::vector<TuningConfig> &out) {
  const bool max = level == SearchLevel::Max;
    for (int64_t b : max ? std::vector<int64_t>{32, 64, 128, 256, 512, 1024}
                         : std::vector<int64_t>{128, 256, 512})
      out.push_back({{keys::variant.name(), "row"}, {keys::block_size.name(), str(b)}});
}


const KernelKind kReduceKind = {"reduce",
                                {&keys::variant.info, &keys::block_size.info},
                                configureRows, cuda::emitReduce, reduceSpace};
const KernelKind kSoftmaxKind = {"softmax",
                                 {&keys::variant.info, &keys::block_size.info},
                                 configureRows, cuda::emitSoftmax, softmaxSpace};
const KernelKind kLayerNormKind = {"layer_norm",
                                   {&keys::block_size.info},
                                   configureRows, cuda::emitLayerNorm,
                                   layerNormSpace};
const KernelKind kBatchNormKind = {"batch_norm", {}, configureRows,
                                   cuda::emitBatchNorm};

} // namespace kiln::codegen
