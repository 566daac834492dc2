//===- KernelOps.cpp - Kiln kernel dialect verifiers ----------------------===//
#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::kernel;

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

int64_t AllocOp::getByteSize() { return bufferByteSize(getType()); }

LogicalResult AllocOp::verify() {
  // Read the attribute itself: the accessor returns the value as unsigned.
  if (IntegerAttr offset = getOffsetAttr(); offset && offset.getInt() < 0)
    return emitOpError() << "offset " << offset.getInt() << " is negative";
  return success();
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  auto valueType = dyn_cast<ShapedType>(getValue().getType());
  MemRefType type = getType();
  if (!valueType || valueType.getShape() != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError() << "value of type " << getValue().getType()
                         << " does not match the buffer type " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// AliasOp
//===----------------------------------------------------------------------===//

LogicalResult AliasOp::verify() {
  int64_t offset = getOffsetAttr().getInt();
  int64_t srcBytes = bufferByteSize(getSource().getType());
  int64_t viewBytes = bufferByteSize(getType());
  int64_t elemBytes = elementByteSize(getType().getElementType());
  if (offset < 0 || offset % elemBytes != 0)
    return emitOpError()
           << "offset " << offset
           << " must be a non-negative multiple of the element size "
           << elemBytes;
  if (offset + viewBytes > srcBytes)
    return emitOpError() << "view of " << viewBytes << " bytes at offset "
                         << offset << " exceeds the source's " << srcBytes
                         << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

void LaunchOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getInputsMutable())
    effects.emplace_back(MemoryEffects::Read::get(), &operand,
                         SideEffects::DefaultResource::get());
  for (OpOperand &operand : getOutputsMutable())
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
}

LogicalResult LaunchOp::verify() {
  if (getKind().empty())
    return emitOpError() << "requires a non-empty kind";
  if (getOutputs().empty())
    return emitOpError() << "requires at least one output buffer";
  for (auto [what, dims, limit] :
       {std::make_tuple("grid", getGrid(), int64_t(2147483647)),
        std::make_tuple("block", getBlock(), int64_t(1024))}) {
    if (dims.size() != 3)
      return emitOpError() << what << " must have 3 entries, got "
                           << dims.size();
    for (int64_t d : dims)
      if (d < 1 || d > limit)
        return emitOpError()
               << what << " entries must be in [1, " << limit << "], got " << d;
  }
  ArrayRef<int64_t> grid = getGrid(), block = getBlock();
  if (grid[1] > 65535 || grid[2] > 65535)
    return emitOpError() << "grid y and z must be at most 65535";
  if (block[0] * block[1] * block[2] > 1024)
    return emitOpError() << "block of " << block[0] * block[1] * block[2]
                         << " threads exceeds 1024";
  if (block[2] > 64)
    return emitOpError() << "block z must be at most 64";
  int64_t smem = getSmemAttr().getInt();
  if (smem < 0 || smem > 227 * 1024)
    return emitOpError() << "smem " << smem << " is outside [0, 232448] bytes";
  // Byte ranges in their root buffers: an output may not overlap an input,
  // directly or through views (disjoint views of one buffer are fine).
  auto range = [](Value v) {
    int64_t offset = 0;
    while (auto alias = v.getDefiningOp<AliasOp>()) {
      offset += alias.getOffsetAttr().getInt();
      v = alias.getSource();
    }
    return std::make_pair(v, offset);
  };
  for (Value out : getOutputs()) {
    auto [outRoot, outBegin] = range(out);
    int64_t outEnd = outBegin + bufferByteSize(out.getType());
    for (Value in : getInputs()) {
      auto [inRoot, inBegin] = range(in);
      int64_t inEnd = inBegin + bufferByteSize(in.getType());
      if (inRoot == outRoot && inBegin < outEnd && outBegin < inEnd)
        return emitOpError() << "writes a buffer it also reads";
    }
  }
  return success();
}

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.cpp.inc"
