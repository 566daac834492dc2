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

#include "autotune/TuningCache.h"
#include "compiler/kernels/common/KernelSpec.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"

#include <set>

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
mlir::LogicalResult
reconfigureLaunch(kernel::LaunchOp launch,
                  const codegen::TargetOptions &target = {});

/// Applies `kind.key=value` settings (kilnc and kiln-cgc --set) to the config
/// of every launch of that kind in `module` (integers, true/false, else
/// strings; a later setting of a key wins), all of a kind's settings at
/// once; then re-runs each changed launch's heuristics. Where the settings
/// contradict keys derived from the launch's old config, the heuristics
/// complete the settings alone (the other tuning keys dropped), as they do
/// at once for a setting that turns swap_ab on or off. Fails with
/// `error` naming a malformed setting, or the kind's settings where no
/// valid config holds them (the reason is emitted at the launch).
/// Heuristics run for `target` (its arch bounds the wgmma path). A setting
/// reaches every launch of its kind: one that only some launches accept
/// (e.g. stages=2, below the wgmma path's minimum) fails on the others.
mlir::LogicalResult applyConfigSettings(
    mlir::ModuleOp module, llvm::ArrayRef<std::string> settings,
    std::string &error,
    const codegen::TargetOptions &target = codegen::TargetOptions());

/// Where one launch's tuning keys came from (kilnc --explain-tuning).
struct LaunchTuning {
  std::string name, kind;
  std::string signature; ///< autotune::KernelSignature::key()
  /// "cache" (an entry of the tuning cache), "heuristic" or "measured".
  std::string source;
  autotune::TuningConfig config; ///< the launch's tuning keys afterwards
  std::optional<double> winnerMs, runnerUpMs;
  /// False for kinds with no tuning keys (nothing to look up or measure).
  bool tunable = false;
  /// Why a cache entry for the launch was not used (a cuBLASLt choice of
  /// another library version, when measuring); empty otherwise.
  std::string note;
};

/// Looks up every launch of `module` in `cache` (null: no cache) by its
/// signature under `toolchain` (`anyDriver` as TuningCache::lookup); a
/// launch with an entry gets the entry's tuning keys in place of the
/// heuristics' and is reconfigured for `target`, the rest keep theirs. One
/// record per launch goes to `report`, in module order. An entry that does
/// not give a valid launch is an error at the launch naming `cacheName`.
/// With `only` (signatures), `report` already holds one record per launch
/// and only the launches of those signatures are looked up, their records
/// replaced: what a measurement added is applied without applying the
/// rest of the cache again.
mlir::LogicalResult applyTuningCache(
    mlir::ModuleOp module, const autotune::TuningCache *cache,
    const std::string &cacheName, const autotune::Toolchain &toolchain,
    bool anyDriver, const codegen::TargetOptions &target,
    std::vector<LaunchTuning> &report,
    const std::set<std::string> *only = nullptr);

} // namespace kiln

#endif // KILN_COMPILER_LOWERING_SPECBRIDGE_H
