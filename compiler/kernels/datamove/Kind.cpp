//===- Kind.cpp - the data-movement kinds ---===//
//
// The kind's registry entries: tuning keys, heuristics, search space and
// emitter.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/datamove/DataMove.h"

namespace kiln::codegen {


const KernelKind kConcatKind = {"concat", {&keys::vec.info}, configureDataMove,
                                cuda::emitConcat};
const KernelKind kGatherKind = {"gather", {&keys::vec.info}, configureDataMove,
                                cuda::emitGather};
const KernelKind kGatherElementsKind = {"gather_elements", {}, configureDataMove,
                                        cuda::emitGatherElements};

} // namespace kiln::codegen
