//===- SpecBridge.h - kernel.launch <-> codegen::LaunchSpec -----*- C++ -*-===//
//
// Converts between the kernel dialect's MLIR form of a launch (memref
// operands, a config DictionaryAttr) and the plain LaunchSpec that the
// heuristics and the CUDA emitters read, and resolves buffer views to their
// root buffer (an input/output argument, an alloc or a weight).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_LOWERING_SPECBRIDGE_H
#define KILN_COMPILER_LOWERING_SPECBRIDGE_H

#include "compiler/codegen/KernelSpec.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"

namespace kiln {

/// The codegen dtype of an element type (signless integers are signed,
/// i1 is Bool); failure for types kernels do not handle.
mlir::FailureOr<codegen::DType> dtypeOf(mlir::Type elementType);

/// The buffer a view (chain of kernel.alias) refers to, and the byte offset
/// of the view in it.
struct BufferRoot {
  mlir::Value root;
  int64_t offset = 0;
};
BufferRoot resolveBuffer(mlir::Value buffer);

/// Alignment in bytes that the address of `buffer` is known to have: 256 for
/// allocs (arena offsets) and weights, 16 for function arguments (bound
/// buffers must be 16-byte aligned), reduced by alias offsets.
int64_t knownAlignment(mlir::Value buffer);

/// The BufferSpec of a memref value (dtype, shape, known alignment).
mlir::FailureOr<codegen::BufferSpec> bufferSpecOf(mlir::Value buffer);

/// Config <-> DictionaryAttr: i64 IntegerAttr, f64 FloatAttr, BoolAttr,
/// StringAttr, DenseI64ArrayAttr.
mlir::DictionaryAttr configToAttr(mlir::MLIRContext *ctx,
                                  const codegen::Config &config);
mlir::FailureOr<codegen::Config> configFromAttr(mlir::DictionaryAttr attr);

/// The spec of an existing launch (config, buffers, geometry). Emits an error
/// at the launch on unsupported buffers or config values.
mlir::FailureOr<codegen::LaunchSpec> specFromLaunch(kernel::LaunchOp launch);

/// Writes `spec`'s config and geometry back into `launch`.
void updateLaunch(kernel::LaunchOp launch, const codegen::LaunchSpec &spec);

/// Re-runs the launch heuristics on `launch` (after a tuning key of its
/// config changed): missing tuning keys get defaults, present ones are
/// checked, and grid, block and smem are recomputed. Emits an error at the
/// launch when the config is not valid.
mlir::LogicalResult reconfigureLaunch(kernel::LaunchOp launch);

/// Applies `kind.key=value` settings (kilnc and kiln-cgc --set) to the config
/// of every launch of that kind in `module`, in order: integers, true/false,
/// else strings; then re-runs each changed launch's heuristics. Fails with
/// `error` naming a malformed setting; an invalid config is emitted at the
/// launch.
mlir::LogicalResult applyConfigSettings(mlir::ModuleOp module,
                                        llvm::ArrayRef<std::string> settings,
                                        std::string &error);

} // namespace kiln

#endif // KILN_COMPILER_LOWERING_SPECBRIDGE_H
