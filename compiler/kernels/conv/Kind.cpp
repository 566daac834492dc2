//===- Kind.cpp - the conv and pool kinds ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/conv/Conv.h"

namespace kiln::codegen {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
using autotune::SearchLevel;
using autotune::TuningConfig;
} // namespace

void convSpace(SearchLevel level, const std::string &,
               std::vector<TuningConfig> &out) {
  const bool max = level == SearchLevel::Max;
    // The direct kernel, and the implicit GEMM on the tensor cores (f16 and
    // bf16 without groups; the heuristics reject the others). Every
    // candidate is checked against the reference before it may win.
    out.push_back({{keys::path.name(), "direct"}});
    struct Tile {
      int64_t m, n, wm, wn;
    };
    const std::vector<Tile> tiles =
        max ? std::vector<Tile>{{64, 64, 2, 2},
                                {64, 128, 2, 2},
                                {128, 64, 2, 2},
                                {128, 128, 2, 4}}
            : std::vector<Tile>{{64, 64, 2, 2}, {128, 128, 2, 4}};
    for (const Tile &t : tiles)
      for (int64_t bk : max ? std::vector<int64_t>{32, 64}
                            : std::vector<int64_t>{32})
        for (bool stageOut : max ? std::vector<bool>{false, true}
                                 : std::vector<bool>{false})
          for (int64_t stages : max ? std::vector<int64_t>{1, 2}
                                    : std::vector<int64_t>{1})
            out.push_back({{keys::path.name(), "igemm"},
                           {keys::tile_m.name(), str(t.m)},
                           {keys::tile_n.name(), str(t.n)},
                           {keys::tile_k.name(), str(bk)},
                           {keys::warps_m.name(), str(t.wm)},
                           {keys::warps_n.name(), str(t.wn)},
                           {keys::stage_out.name(), stageOut ? "true" : "false"},
                           {keys::stages.name(), str(stages)}});
}


const KernelKind kConvKind = {
    "conv",
    {&keys::path.info, &keys::tile_m.info, &keys::tile_n.info,
     &keys::tile_k.info, &keys::warps_m.info, &keys::warps_n.info,
     &keys::stage_out.info, &keys::stages.info},
    configureConvPool, cuda::emitConv, convSpace};
const KernelKind kPoolKind = {"pool", {}, configureConvPool, cuda::emitPool};

} // namespace kiln::codegen
