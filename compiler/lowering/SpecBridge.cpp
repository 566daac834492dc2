//===- SpecBridge.cpp - kernel.launch <-> codegen::LaunchSpec -------------===//
#include "compiler/lowering/SpecBridge.h"

#include "compiler/kernels/library/LibraryCalls.h"
#include "compiler/kernels/Tuning.h"
#include "compiler/evaluator/Tensor.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kiln {

// codegen::DType lists the evaluator's dtypes in the same order (Bool is
// eval's I1), so the MLIR mapping lives once, in the evaluator.
static_assert(unsigned(codegen::DType::F16) == unsigned(eval::DType::F16) &&
                  unsigned(codegen::DType::F64) == unsigned(eval::DType::F64) &&
                  unsigned(codegen::DType::Bool) == unsigned(eval::DType::I1) &&
                  unsigned(codegen::DType::I64) == unsigned(eval::DType::I64) &&
                  unsigned(codegen::DType::U8) == unsigned(eval::DType::U8) &&
                  unsigned(codegen::DType::U64) == unsigned(eval::DType::U64),
              "codegen::DType and eval::DType must list the dtypes in one order");

FailureOr<codegen::DType> dtypeOf(Type t) {
  FailureOr<eval::DType> d = eval::dtypeFromMlir(t);
  if (failed(d))
    return failure();
  return static_cast<codegen::DType>(*d);
}

BufferRoot resolveBuffer(Value buffer) {
  BufferRoot r{buffer, 0};
  while (auto alias = r.root.getDefiningOp<kernel::AliasOp>()) {
    r.offset += alias.getOffsetAttr().getInt();
    r.root = alias.getSource();
  }
  return r;
}

int64_t knownAlignment(Value buffer) {
  BufferRoot r = resolveBuffer(buffer);
  int64_t base = isa<BlockArgument>(r.root) ? 16 : 256;
  if (r.offset == 0)
    return base;
  int64_t offAlign = int64_t(1)
                     << llvm::countr_zero(static_cast<uint64_t>(r.offset));
  return std::min(base, offAlign);
}

FailureOr<codegen::BufferSpec> bufferSpecOf(Value buffer) {
  auto m = dyn_cast<MemRefType>(buffer.getType());
  if (!m || !m.hasStaticShape())
    return failure();
  FailureOr<codegen::DType> dt = dtypeOf(m.getElementType());
  if (failed(dt))
    return failure();
  codegen::BufferSpec b;
  b.dtype = *dt;
  b.shape.assign(m.getShape().begin(), m.getShape().end());
  b.alignment = knownAlignment(buffer);
  return b;
}

DictionaryAttr configToAttr(MLIRContext *ctx, const codegen::Config &config) {
  Builder b(ctx);
  SmallVector<NamedAttribute> entries;
  for (const auto &[key, v] : config.all()) {
    Attribute a;
    switch (v.kind) {
    case codegen::ConfigValue::Kind::Int:
      a = b.getI64IntegerAttr(v.i);
      break;
    case codegen::ConfigValue::Kind::Float:
      a = b.getF64FloatAttr(v.f);
      break;
    case codegen::ConfigValue::Kind::Bool:
      a = b.getBoolAttr(v.b);
      break;
    case codegen::ConfigValue::Kind::String:
      a = b.getStringAttr(v.s);
      break;
    case codegen::ConfigValue::Kind::Ints:
      a = b.getDenseI64ArrayAttr(v.ints);
      break;
    }
    entries.push_back(b.getNamedAttr(key, a));
  }
  return b.getDictionaryAttr(entries);
}

FailureOr<codegen::Config> configFromAttr(DictionaryAttr attr) {
  codegen::Config c;
  for (NamedAttribute na : attr) {
    std::string key = na.getName().str();
    Attribute a = na.getValue();
    if (auto bv = dyn_cast<BoolAttr>(a))
      c.set(key, codegen::ConfigValue::ofBool(bv.getValue()));
    else if (auto iv = dyn_cast<IntegerAttr>(a))
      c.set(key, codegen::ConfigValue::ofInt(iv.getInt()));
    else if (auto fv = dyn_cast<FloatAttr>(a))
      c.set(key, codegen::ConfigValue::ofFloat(fv.getValueAsDouble()));
    else if (auto sv = dyn_cast<StringAttr>(a))
      c.set(key, codegen::ConfigValue::ofString(sv.str()));
    else if (auto av = dyn_cast<DenseI64ArrayAttr>(a))
      c.set(key, codegen::ConfigValue::ofInts(std::vector<int64_t>(
                     av.asArrayRef().begin(), av.asArrayRef().end())));
    else
      return failure();
  }
  return c;
}

FailureOr<codegen::LaunchSpec> specFromLaunch(kernel::LaunchOp launch) {
  codegen::LaunchSpec s;
  s.name = launch.getName().str();
  s.kind = launch.getKind().str();
  FailureOr<codegen::Config> config = configFromAttr(launch.getConfig());
  if (failed(config))
    return launch.emitOpError()
           << "has a config value that is not an i64, f64, bool, "
              "string or i64 array";
  s.config = std::move(*config);
  for (auto [list, values] :
       {std::make_pair(&s.inputs, launch.getInputs()),
        std::make_pair(&s.outputs, launch.getOutputs())}) {
    for (Value v : values) {
      FailureOr<codegen::BufferSpec> b = bufferSpecOf(v);
      if (failed(b))
        return launch.emitOpError()
               << "has a buffer of unsupported type " << v.getType();
      list->push_back(std::move(*b));
    }
  }
  ArrayRef<int64_t> grid = launch.getGrid(), block = launch.getBlock();
  for (int i = 0; i < 3; ++i) {
    s.grid[i] = grid[i];
    s.block[i] = block[i];
  }
  s.smem = launch.getSmemAttr().getInt();
  return s;
}

void updateLaunch(kernel::LaunchOp launch, const codegen::LaunchSpec &spec) {
  Builder b(launch.getContext());
  launch.setConfigAttr(configToAttr(launch.getContext(), spec.config));
  launch.setGridAttr(
      b.getDenseI64ArrayAttr({spec.grid[0], spec.grid[1], spec.grid[2]}));
  launch.setBlockAttr(
      b.getDenseI64ArrayAttr({spec.block[0], spec.block[1], spec.block[2]}));
  launch.setSmemAttr(b.getI64IntegerAttr(spec.smem));
}

LogicalResult reconfigureLaunch(kernel::LaunchOp launch,
                                const codegen::TargetOptions &target) {
  FailureOr<codegen::LaunchSpec> spec = specFromLaunch(launch);
  if (failed(spec))
    return failure();
  std::string error;
  if (!codegen::configureLaunch(*spec, error, target))
    return launch.emitOpError() << error;
  updateLaunch(launch, *spec);
  return success();
}

LogicalResult applyConfigSettings(ModuleOp module,
                                  llvm::ArrayRef<std::string> settings,
                                  std::string &error,
                                  const codegen::TargetOptions &target) {
  // The settings of each kind, in kind order of first appearance; a later
  // setting of a key replaces an earlier one.
  struct KindSettings {
    std::string kind;
    std::vector<std::string> text;
    codegen::Config values;
  };
  std::vector<KindSettings> kinds;
  for (const std::string &setting : settings) {
    llvm::StringRef kind, rest, key, value;
    std::tie(kind, rest) = llvm::StringRef(setting).split('.');
    std::tie(key, value) = rest.split('=');
    if (kind.empty() || key.empty() || !rest.contains('=')) {
      error = "--set '" + setting + "' must look like kind.key=value";
      return failure();
    }
    // tf32 is the model's arithmetic, which the evaluator must share: only
    // --precision=tf32 sets it.
    if (kind == "matmul" && key == "tf32") {
      error = "--set '" + setting +
              "': matmul.tf32 is not a tuning key; use --precision=tf32";
      return failure();
    }
    // Only tuning keys: the others (the epilogue program, the operands'
    // layout) are what the launch computes, not how.
    const std::set<std::string> &tuning = codegen::tuningKeyNames(kind.str());
    if (tuning.empty()) {
      error = "--set '" + setting + "': '" + kind.str() +
              "' is not a kind of launch with tuning keys (" +
              llvm::join(codegen::tunableKinds(), ", ") + ")";
      return failure();
    }
    codegen::ConfigValue parsed;
    std::string why;
    if (!codegen::tuningValueFromText(kind.str(), key.str(), value.str(),
                                      parsed, why)) {
      error = "--set '" + setting + "': " + why;
      if (!tuning.count(key.str()))
        error += " (" + llvm::join(tuning, ", ") + ")";
      return failure();
    }
    auto it = llvm::find_if(
        kinds, [&](const KindSettings &k) { return k.kind == kind; });
    if (it == kinds.end()) {
      kinds.push_back({kind.str(), {}, {}});
      it = std::prev(kinds.end());
    }
    it->text.push_back(setting);
    it->values.set(key.str(), std::move(parsed));
  }
  // All settings of a kind go into each launch of that kind together, on
  // top of its chosen config (heuristic, tuning cache or measurement), and
  // its heuristics run once. Keys the heuristics derived from the old
  // choice can contradict the new one (6 stages of 64 x 128 tiles do not
  // fit as 128 x 128); where the combination is not valid, the settings
  // are completed by the heuristics instead: the launch's other tuning keys
  // are dropped, as for an autotuner candidate.
  for (const KindSettings &k : kinds) {
    const std::set<std::string> &tuning = codegen::tuningKeyNames(k.kind);
    WalkResult r = module->walk([&](kernel::LaunchOp launch) {
      if (launch.getKind() != k.kind)
        return WalkResult::advance();
      FailureOr<codegen::LaunchSpec> spec = specFromLaunch(launch);
      if (failed(spec))
        return WalkResult::interrupt();
      // The settings on top of `base`, configured; `why` says why not.
      std::string why;
      auto tryOn = [&](codegen::Config base) {
        codegen::LaunchSpec s = *spec;
        s.config = std::move(base);
        for (const auto &[key, value] : k.values.all())
          s.config.set(key, value);
        why.clear();
        if (!codegen::configureLaunch(s, why, target))
          return false;
        updateLaunch(launch, s);
        return true;
      };
      // A setting that turns the product around (swap_ab) makes the old
      // tiles meaningless (128 x 96 tiles of the transpose are chosen for
      // it): such settings start from the heuristics directly.
      const codegen::ConfigValue *swap = k.values.find(codegen::keys::swap_ab.name());
      const bool reframed =
          swap && swap->kind == codegen::ConfigValue::Kind::Bool &&
          swap->b != spec->config.get(codegen::keys::swap_ab);
      if (!reframed && tryOn(spec->config))
        return WalkResult::advance();
      codegen::Config untuned;
      for (const auto &[key, value] : spec->config.all())
        if (!tuning.count(key))
          untuned.set(key, value);
      if (tryOn(std::move(untuned)))
        return WalkResult::advance();
      launch.emitOpError() << why;
      return WalkResult::interrupt();
    });
    if (r.wasInterrupted()) {
      error = "--set '" + llvm::join(k.text, "' '") +
              "': the launch's config is not valid";
      return failure();
    }
  }
  return success();
}

LogicalResult applyTuningCache(ModuleOp module,
                               const autotune::TuningCache *cache,
                               const std::string &cacheName,
                               const autotune::Toolchain &toolchain,
                               bool anyDriver,
                               const codegen::TargetOptions &target,
                               std::vector<LaunchTuning> &report,
                               const std::set<std::string> *only) {
  size_t index = 0;
  WalkResult r = module->walk([&](kernel::LaunchOp launch) {
    FailureOr<codegen::LaunchSpec> spec = specFromLaunch(launch);
    if (failed(spec))
      return WalkResult::interrupt();
    const autotune::KernelSignature sig =
        codegen::kernelSignature(*spec, toolchain);
    const size_t at = index++;
    if (only && (at >= report.size() || !only->count(sig.key())))
      return WalkResult::advance();
    LaunchTuning t;
    t.name = spec->name;
    t.kind = spec->kind;
    t.signature = sig.key();
    t.source = "heuristic";
    t.tunable = !codegen::tuningKeyNames(spec->kind).empty();
    const autotune::TuningEntry *entry =
        cache && t.tunable ? cache->lookup(sig, anyDriver) : nullptr;
    // A compile that measures (anyDriver false) measures a cuBLASLt choice
    // of another library version again instead of replaying it.
    if (entry && !anyDriver &&
        codegen::cublasLtEntryStale(entry->config, target.cublasLtVersion,
                                    t.note))
      entry = nullptr;
    if (entry) {
      std::string error;
      if (!codegen::applyTuningConfig(*spec, entry->config, target, error)) {
        launch.emitOpError() << "the tuning cache " << cacheName
                             << " has an entry for this launch that is not "
                                "valid: "
                             << error;
        return WalkResult::interrupt();
      }
      updateLaunch(launch, *spec);
      t.source = "cache";
      t.winnerMs = entry->winnerMs;
      t.runnerUpMs = entry->runnerUpMs;
    }
    t.config = codegen::tuningConfigOf(*spec);
    if (only)
      report[at] = std::move(t);
    else
      report.push_back(std::move(t));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

} // namespace kiln
