//===- Kind.cpp - the attention kind ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/attention/Attention.h"

namespace kiln::codegen {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
using autotune::SearchLevel;
using autotune::TuningConfig;
} // namespace

void attentionSpace(SearchLevel level, const std::string &arch,
                    std::vector<TuningConfig> &out) {
  const bool max = level == SearchLevel::Max;
    for (int64_t bm : max ? std::vector<int64_t>{32, 64, 128}
                          : std::vector<int64_t>{64, 128})
      for (int64_t bn : {32, 64})
        out.push_back({{keys::variant.name(), "mma"},
                       {keys::block_m.name(), str(bm)},
                       {keys::block_n.name(), str(bn)}});
    // The wgmma kernel (64 x 64 blocks), one or two query tiles a block
    // (configureAttention rejects heads other than 64 or 128 wide, and two
    // tiles over more than 128 keys).
    if (archHasWgmma(arch))
      for (int64_t qt : {1, 2})
        out.push_back({{keys::variant.name(), "wgmma"},
                       {keys::block_m.name(), "64"},
                       {keys::block_n.name(), "64"},
                       {keys::q_tiles.name(), str(qt)}});
}


const KernelKind kAttentionKind = {
    "attention",
    {&keys::variant.info, &keys::block_m.info, &keys::block_n.info,
     &keys::q_tiles.info},
    cuda::configureAttention, cuda::emitAttention, attentionSpace};

} // namespace kiln::codegen
