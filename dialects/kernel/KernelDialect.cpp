//===- KernelDialect.cpp - Kiln kernel dialect registration and attributes ===//
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace kiln::kernel;

#include "dialects/kernel/KernelDialect.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/kernel/KernelOps.cpp.inc"
      >();
}

int64_t kiln::kernel::elementByteSize(Type elementType) {
  unsigned bits = elementType.getIntOrFloatBitWidth();
  return bits <= 8 ? 1 : (bits + 7) / 8;
}

int64_t kiln::kernel::bufferByteSize(Type memrefType) {
  auto m = cast<MemRefType>(memrefType);
  return m.getNumElements() * elementByteSize(m.getElementType());
}

void kiln::registerKernelDialect(DialectRegistry &registry) {
  registry.insert<KernelDialect>();
}

LogicalResult KernelDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kArenaSizeAttr) {
    auto size = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<func::FuncOp>(op) || !size || size.getInt() < 0)
      return op->emitError()
             << "'" << kArenaSizeAttr
             << "' must be a non-negative integer on a func.func";
    return success();
  }
  return op->emitError() << "unknown kernel dialect attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult KernelDialect::verifyRegionArgAttribute(Operation *op,
                                                      unsigned regionIndex,
                                                      unsigned argIndex,
                                                      NamedAttribute attr) {
  Type argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  StringRef name = attr.getName().getValue();
  if (name == kInputAttr || name == kOutputAttr) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    if (!index || index.getInt() < 0)
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a non-negative integer";
    auto m = dyn_cast<MemRefType>(argType);
    if (!m || !m.hasStaticShape() || !m.getLayout().isIdentity())
      return op->emitError()
             << "argument #" << argIndex << " with '" << name
             << "' must be a statically shaped row-major memref, got "
             << argType;
    return success();
  }
  if (name == kNameAttr) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' of argument #" << argIndex
                             << " must be a string";
    return success();
  }
  return op->emitError() << "unknown kernel dialect argument attribute '"
                         << name << "'";
}
