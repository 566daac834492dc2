//===- FusionMaps.h - Index maps of elementwise fusion regions --*- C++ -*-===//
//
// An elementwise fusion region computes every value at one point of an
// iteration space per thread. Elementwise ops, broadcasts, reshapes and
// transposes only decide *where* each value is read, so a region holding
// them is one kernel as long as every value has one strided map from the
// iteration space into its row-major storage.
//
// The iteration space starts as the results' shape and is refined (an axis
// split into two) wherever a reshape makes an axis straddle two axes of a
// value upstream; the results stay row-major over the refined space. Reshapes
// keep a value's map (the same flat offsets), transposes permute it and
// broadcasts zero the strides of broadcast axes. A value reached along two
// paths with different maps, or a reshape the space cannot be refined for,
// has no map: such ops are not fused.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_FUSIONMAPS_H
#define KILN_DIALECTS_GRAPH_FUSIONMAPS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln::graph {

/// Ops that only move elements and may sit inside an elementwise region.
bool isIndexMapOp(mlir::Operation *op);

struct RegionMaps {
  /// Extents of the iteration space (a refinement of the results' shape).
  llvm::SmallVector<int64_t> space;
  /// Every value computed in or read by the region: its element offset as
  /// sum(coord[k] * strides[k]) over the iteration space.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<int64_t>> strides;
};

/// The maps of a region made of `members` (in program order; elementwise
/// ops, expands, reshapes and transposes) whose results are `results` (all of
/// one shape), or nullopt when some value has no single map. Values not
/// computed by a member are the region's inputs.
std::optional<RegionMaps> computeRegionMaps(llvm::ArrayRef<mlir::Operation *> members,
                                            llvm::ArrayRef<mlir::Value> results);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_FUSIONMAPS_H
