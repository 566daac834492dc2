//===- IndexSpace.h - Strided index maps of data-movement kernels -*- C++
//-*-===//
//
// Elementwise, transpose, slice, expand and trilu kernels all loop over the
// output's elements and read each input at `base + sum(coord[d] * stride[d])`.
// An IndexSpace holds that map; collapsing merges axes every access walks
// contiguously, so the generated index math has as few divisions as possible,
// and vectorWidth finds how many consecutive outputs one thread may move
// with single vector loads and stores.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_CUDA_INDEXSPACE_H
#define KILN_COMPILER_CODEGEN_CUDA_INDEXSPACE_H

#include "compiler/kernels/common/KernelSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen::cuda {

/// One operand's offset as a function of the iteration coordinates, in
/// elements.
struct StridedAccess {
  int64_t base = 0;
  std::vector<int64_t> strides;
  /// Bytes per element and known address alignment of the operand's buffer.
  int64_t elementBytes = 4;
  int64_t alignment = 16;
};

struct IndexSpace {
  std::vector<int64_t> shape;
  /// Inputs in order, then the output (always base 0, row-major).
  std::vector<StridedAccess> accesses;

  int64_t numElements() const { return product(shape); }
};

/// The map of a broadcasting elementwise launch (numpy rules) or of expand,
/// or the explicit one of a fused_elementwise launch with `space` and
/// `input_strides` (configureLaunch checked it).
IndexSpace broadcastSpace(const LaunchSpec &spec);
/// The map of a transpose (config "perm") or slice ("starts", "steps").
IndexSpace transposeSpace(const LaunchSpec &spec);
IndexSpace sliceSpace(const LaunchSpec &spec);

/// A transpose whose innermost output axis is strided in the input moves
/// through 32x32 shared-memory tiles: reads coalesced along the input's
/// contiguous axis (output axis `a`), writes along the output's innermost
/// axis `c`; every other axis is a batch axis.
struct TransposeTiles {
  int64_t a = -1;         // output axis contiguous in the input
  int64_t da = 0, dc = 0; // extents of axes a and c (innermost)
  int64_t inStrideC = 0, outStrideA = 0;
  std::vector<int64_t> batchShape, inBatchStrides, outBatchStrides;
  int64_t tiles = 0; // batch * ceil(da / 32) * ceil(dc / 32)
};
/// The tiling of a collapsed transpose space, or false when its innermost
/// output axis is already contiguous in the input (no tiles needed).
bool transposeTiles(const IndexSpace &collapsed, TransposeTiles &t);

/// Drops unit axes and merges neighbouring axes that every access walks
/// contiguously. The last `keepInner` axes are kept as they are (trilu needs
/// its row and column coordinates).
IndexSpace collapse(const IndexSpace &space, int keepInner = 0);

/// The largest width V (a power of two with V * elementBytes <= 16 for every
/// vector-accessed operand) such that each thread can handle V consecutive
/// outputs along the innermost axis: that axis' extent is a multiple of V and
/// every access either walks it contiguously from V-aligned offsets of an
/// address aligned to V elements, or does not move along it (a broadcast,
/// read once).
int64_t maxVectorWidth(const IndexSpace &space);
/// Whether width `v` satisfies the conditions above.
bool vectorWidthLegal(const IndexSpace &space, int64_t v);

} // namespace kiln::codegen::cuda

#endif // KILN_COMPILER_CODEGEN_CUDA_INDEXSPACE_H
