//===- Kind.cpp - the elementwise kinds ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/elementwise/Elementwise.h"

namespace kiln::codegen {

namespace {
std::string str(int64_t v) { return std::to_string(v); }
using autotune::SearchLevel;
using autotune::TuningConfig;
} // namespace

void transposeSpace(SearchLevel, const std::string &,
                    std::vector<TuningConfig> &out) {
    out.push_back({{keys::variant.name(), "tiled"}});
    for (int64_t v : {1, 2, 4, 8})
      out.push_back({{keys::variant.name(), "index"}, {keys::vec.name(), str(v)}});
}


const KernelKind kElementwiseKind = {"elementwise", {&keys::vec.info},
                                     configureElementwise,
                                     cuda::emitElementwiseFamily};
const KernelKind kFusedElementwiseKind = {"fused_elementwise",
                                          {&keys::vec.info},
                                          configureElementwise,
                                          cuda::emitElementwiseFamily};
const KernelKind kTransposeKind = {
    "transpose", {&keys::variant.info, &keys::vec.info}, configureElementwise,
    cuda::emitElementwiseFamily, transposeSpace};
const KernelKind kSliceKind = {"slice", {&keys::vec.info}, configureElementwise,
                               cuda::emitElementwiseFamily};
const KernelKind kTriluKind = {"trilu", {&keys::vec.info}, configureElementwise,
                               cuda::emitElementwiseFamily};

} // namespace kiln::codegen
