//===- TensorMap.h - A TMA descriptor parameter as plain data ---*- C++ -*-===//
//
// A kernel parameter that is a CUtensorMap (the bulk tensor copy engine's
// descriptor, 128 bytes) rather than a pointer: which buffer it describes
// and the geometry that cuTensorMapEncodeTiled needs. The emitters produce
// it (relative to a launch's operands), the engine stores it per kernel
// (fb::TensorMap), and the runtime and the autotuner's workers encode it
// once the buffer's device address is known. Plain data: no CUDA, no MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_TENSORMAP_H
#define KILN_AUTOTUNE_TENSORMAP_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::autotune {

struct TensorMapArg {
  /// The buffer: an operand index (inputs first, then outputs) where the
  /// emitters and the autotuner use it; a plan buffer in the engine.
  uint32_t buffer = 0;
  uint64_t offset = 0;   ///< bytes from the buffer's start (16-byte aligned)
  std::string dtype;     ///< "f16", "bf16" or "f32"
  /// Extents, innermost first (1 to 5 dimensions).
  std::vector<uint64_t> dims;
  /// Byte strides of dims[1..] (dims.size() - 1 values, multiples of 16).
  std::vector<uint64_t> strides;
  /// The box one copy moves, per dimension (1 to 256 each).
  std::vector<uint32_t> box;
  /// Shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128.
  uint32_t swizzle = 0;
};

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_TENSORMAP_H
