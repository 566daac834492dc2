//===- KernelDialect.h - Kiln kernel dialect --------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KERNEL_KERNELDIALECT_H
#define KILN_DIALECTS_KERNEL_KERNELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/kernel/KernelDialect.h.inc"

namespace mlir {
class DialectRegistry;
}

namespace kiln::kernel {
/// Bytes of one element of a kernel buffer: i1 is stored as one byte.
int64_t elementByteSize(mlir::Type elementType);
/// Bytes of a statically shaped memref (element count times element bytes).
int64_t bufferByteSize(mlir::Type memrefType);
} // namespace kiln::kernel

namespace kiln {
/// Adds the kernel dialect to `registry` (for kiln-opt and the driver).
void registerKernelDialect(mlir::DialectRegistry &registry);
} // namespace kiln

#endif
