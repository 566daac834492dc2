//===- LowerToKernel.cpp - Graph dialect to buffers and launches ----------===//
//
// A function-at-a-time conversion rather than a pattern set: every graph op
// maps to exactly one buffer plus at most one launch, in program order, and
// output binding needs the whole function (whether a value is the only view
// of its allocation), so a single walk is both simpler and deterministic.
//
//===----------------------------------------------------------------------===//
#include "compiler/lowering/Passes.h"

#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/codegen/TensorBytes.h"
#include "compiler/evaluator/Tensor.h"
#include "compiler/lowering/SpecBridge.h"
#include "dialects/graph/FusionMaps.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

#define DEBUG_TYPE "kiln-lower-to-kernel"

using namespace mlir;
using namespace kiln;
namespace graph = kiln::graph;
namespace kern = kiln::kernel;
using kiln::codegen::Config;
using kiln::codegen::ConfigValue;

namespace kiln {
#define GEN_PASS_DEF_LOWERTOKERNELPASS
#include "compiler/lowering/Passes.h.inc"
} // namespace kiln

namespace {

/// The ONNX node name in a location, or "".
std::string nodeName(Location loc) {
  std::string name;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l)) {
      name = n.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

MemRefType memrefOf(Type t) {
  auto rt = cast<RankedTensorType>(t);
  return MemRefType::get(rt.getShape(), rt.getElementType());
}

int64_t numElements(Type t) { return cast<ShapedType>(t).getNumElements(); }

/// "graph.add" -> "add".
StringRef mnemonic(Operation *op) { return op->getName().stripDialect(); }

struct Counters {
  int64_t launches = 0, aliases = 0, outputCopies = 0;
};

/// Lowers the ops of one graph function into the entry block of its kernel
/// function.
class FunctionLowering {
public:
  FunctionLowering(OpBuilder &b, Counters &counters,
                   const codegen::TargetOptions &target)
      : b(b), counters(counters), targetOptions(target) {}

  void map(Value from, Value to) { values[from] = to; }
  Value lookup(Value v) const { return values.lookup(v); }

  LogicalResult lowerOp(Operation *op);

  /// A fresh launch symbol: the node name (sanitized) or the kind, unique in
  /// the function.
  std::string uniqueName(Location loc, StringRef kind) {
    std::string base = nodeName(loc);
    for (char &c : base)
      if (!isalnum(static_cast<unsigned char>(c)) && c != '_')
        c = '_';
    if (base.empty() || isdigit(static_cast<unsigned char>(base[0])))
      base = kind.str() + (base.empty() ? "" : "_" + base);
    std::string name = base;
    for (unsigned i = 1; !names.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    return name;
  }

  Value alias(Location loc, Value src, ArrayRef<int64_t> shape,
              int64_t offset = 0) {
    auto srcType = cast<MemRefType>(src.getType());
    auto type = MemRefType::get(shape, srcType.getElementType());
    if (type == srcType && offset == 0)
      return src;
    ++counters.aliases;
    auto op =
        kern::AliasOp::create(b, loc, type, src, b.getI64IntegerAttr(offset));
    return op.getResult();
  }

  /// Creates the launch of `kind` writing `target`; fails with a diagnostic
  /// at `loc` when the heuristics reject it. Nothing is launched when the
  /// target has no elements.
  LogicalResult launch(Location loc, StringRef kind, Config config,
                       ArrayRef<Value> ins, Value target,
                       StringRef nameHint = "") {
    return launch(loc, kind, std::move(config), ins, ArrayRef<Value>{target},
                  nameHint);
  }
  /// The same with several outputs (multi-output fused kernels), all of one
  /// element count.
  LogicalResult launch(Location loc, StringRef kind, Config config,
                       ArrayRef<Value> ins, ArrayRef<Value> targets,
                       StringRef nameHint) {
    if (numElements(targets.front().getType()) == 0)
      return success();
    codegen::LaunchSpec spec;
    spec.name = uniqueName(loc, nameHint.empty() ? kind : nameHint);
    spec.kind = kind.str();
    spec.config = std::move(config);
    // The buffers of `values` into `specs`; `what` names them in errors.
    auto buffers = [&](ArrayRef<Value> values,
                       std::vector<codegen::BufferSpec> &specs,
                       StringRef what) -> LogicalResult {
      for (Value v : values) {
        FailureOr<codegen::BufferSpec> bs = bufferSpecOf(v);
        if (failed(bs))
          return emitError(loc) << "cannot lower " << what << " of type "
                                << v.getType() << " to a kernel buffer";
        specs.push_back(*bs);
      }
      return success();
    };
    if (failed(buffers(ins, spec.inputs, "an operand")) ||
        failed(buffers(targets, spec.outputs, "a result")))
      return failure();
    std::string error;
    if (!codegen::configureLaunch(spec, error, targetOptions))
      return emitError(loc) << "cannot lower to a kernel: " << error;
    kern::LaunchOp::create(
        b, loc, b.getStringAttr(spec.name), ValueRange(ins), ValueRange(targets),
        b.getStringAttr(spec.kind), configToAttr(b.getContext(), spec.config),
        b.getDenseI64ArrayAttr({spec.grid[0], spec.grid[1], spec.grid[2]}),
        b.getDenseI64ArrayAttr({spec.block[0], spec.block[1], spec.block[2]}),
        b.getI64IntegerAttr(spec.smem));
    ++counters.launches;
    return success();
  }

  /// A new alloc for each of `op`'s results (one, or a multi-output
  /// fusion's several), written by one launch of `kind`.
  LogicalResult allocAndLaunch(Operation *op, StringRef kind, Config config,
                               ArrayRef<Value> graphOperands) {
    SmallVector<Value> ins, outs;
    for (Value v : graphOperands)
      ins.push_back(lookup(v));
    for (Value r : op->getResults()) {
      outs.push_back(kern::AllocOp::create(b, op->getLoc(),
                                           memrefOf(r.getType()), IntegerAttr()));
      map(r, outs.back());
    }
    return launch(op->getLoc(), kind, std::move(config), ins, outs,
                  mnemonic(op));
  }

  /// Fills output `index` (argument `outArg`) with `value`'s buffer: binds the
  /// buffer's allocation to the output when it can, else copies.
  LogicalResult bindOutput(Location loc, Value buffer, BlockArgument outArg);

private:
  LogicalResult lowerMatMul(graph::MatMulOp op);
  LogicalResult lowerSlice(graph::SliceOp op);
  LogicalResult lowerFusion(graph::FusionOp op);

  OpBuilder &b;
  Counters &counters;
  /// What the launch heuristics choose for (arch, matmul path).
  const codegen::TargetOptions &targetOptions;
  DenseMap<Value, Value> values;
  llvm::StringSet<> names;
  llvm::DenseSet<Operation *> boundAllocs;
  /// Constants stored transposed for tf32 products (kMajorWeightBuffer).
  DenseMap<Operation *, Value> kMajorWeights;
};

Config
cfg(std::initializer_list<std::pair<const char *, ConfigValue>> entries) {
  Config c;
  for (const auto &[k, v] : entries)
    c.set(k, v);
  return c;
}
ConfigValue str(StringRef s) { return ConfigValue::ofString(s.str()); }
ConfigValue i64(int64_t v) { return ConfigValue::ofInt(v); }
ConfigValue f64(double v) { return ConfigValue::ofFloat(v); }
ConfigValue boolean(bool v) { return ConfigValue::ofBool(v); }
ConfigValue ints(ArrayRef<int64_t> v) {
  return ConfigValue::ofInts(std::vector<int64_t>(v.begin(), v.end()));
}
/// A graph matmul's `tf32` as the launch's key (absent when off, so f32
/// launches keep their configs and tuning signatures).
void setTF32(Config &c, bool tf32) {
  if (tf32)
    c.set("tf32", boolean(true));
}

/// tf32 products read their constant weights K-major. A tf32 product
/// whose B is a 2-D f32 constant [K, N] gets that constant stored
/// transposed, [N, K], and reads it with trans_b: Hopper's tf32 wgmma has
/// no transposes (both operands K-major), and mma.sync reads either layout.
/// Each element is rounded to tf32 as the kernels and the evaluator round
/// the product's operands (cvt.rna), so the stored weight is exactly what
/// is multiplied: wgmma, which truncates the 13 low bits of what it reads,
/// multiplies the same weights as mma.sync.
///
/// `rhs` is the product's B: the matmul's operand, or for a fused matmul the
/// fusion's input behind the region's B.
static graph::ConstantOp kMajorWeight(graph::MatMulOp mm, Value rhs) {
  auto c = rhs.getDefiningOp<graph::ConstantOp>();
  if (!c || !mm.getTf32() || mm.getLhs() == mm.getRhs())
    return {};
  auto t = cast<RankedTensorType>(c.getType());
  if (t.getRank() != 2 || !t.getElementType().isF32())
    return {};
  return c;
}

/// Whether every use of constant `c` is a tf32 product reading it as its
/// K-major weight (kMajorWeight): then only the transposed copy is stored.
static bool onlyKMajorWeight(graph::ConstantOp c) {
  if (c->use_empty())
    return false;
  for (OpOperand &use : c->getUses()) {
    Operation *user = use.getOwner();
    if (auto mm = dyn_cast<graph::MatMulOp>(user)) {
      if (use.getOperandNumber() != 1 || !kMajorWeight(mm, c))
        return false;
      continue;
    }
    auto f = dyn_cast<graph::FusionOp>(user);
    if (!f)
      return false;
    BlockArgument arg = f.getBody().front().getArgument(use.getOperandNumber());
    if (!arg.hasOneUse())
      return false;
    auto mm = dyn_cast<graph::MatMulOp>(arg.getUses().begin()->getOwner());
    if (!mm || mm.getRhs() != arg || mm.getLhs() == arg ||
        !kMajorWeight(mm, c))
      return false;
  }
  return true;
}

/// The kern.weight of constant `c` ([K, N], f32) transposed to [N, K] and
/// rounded to tf32 (kMajorWeight), made once per constant (`made`; the first
/// product to read it comes first in the block, so it dominates the rest).
/// Null, with a diagnostic on `c`, if its values cannot be read.
static Value kMajorWeightBuffer(OpBuilder &b, graph::ConstantOp c,
                                DenseMap<Operation *, Value> &made) {
  if (Value v = made.lookup(c))
    return v;
  auto t = cast<RankedTensorType>(c.getType());
  const int64_t k = t.getDimSize(0), n = t.getDimSize(1);
  // The weight's f32 bytes as the engine would store them (dense, splat or
  // dense_resource), read without decoding each element.
  std::vector<char> bytes;
  std::string why;
  if (!codegen::packElements(c.getValue(), bytes, why)) {
    c.emitError() << "cannot read the values of this tf32 product's weight "
                     "to store it K-major: "
                  << why;
    return Value();
  }
  std::vector<float> src(static_cast<size_t>(k * n)),
      out(static_cast<size_t>(k * n));
  std::memcpy(src.data(), bytes.data(), src.size() * sizeof(float));
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      out[j * k + i] = eval::roundToTF32(src[static_cast<size_t>(i * n + j)]);
  auto type = RankedTensorType::get({n, k}, t.getElementType());
  std::string name = nodeName(c.getLoc());
  if (!name.empty())
    name += ".kmajor";
  // A resource blob like the weights the importer makes (elided when IR is
  // printed).
  ElementsAttr attr = graph::makeWeightAttr(
      DenseElementsAttr::get(type, ArrayRef<float>(out)),
      name.empty() ? "kmajor" : name);
  Value w = kern::WeightOp::create(
                b, c.getLoc(), MemRefType::get({n, k}, t.getElementType()),
                attr, name.empty() ? StringAttr() : b.getStringAttr(name))
                .getResult();
  made[c] = w;
  return w;
}

LogicalResult FunctionLowering::lowerMatMul(graph::MatMulOp op) {
  Location loc = op.getLoc();
  Value a = lookup(op.getLhs());
  // A K-major weight has no buffer of its own layout (onlyKMajorWeight).
  Value bb = kMajorWeight(op, op.getRhs()) ? Value() : lookup(op.getRhs());
  SmallVector<int64_t> as(op.getLhs().getType().getShape()),
      bs(op.getRhs().getType().getShape());
  // ONNX promotes 1-D operands to matrices; the kernel always sees rank >= 2.
  if (as.size() == 1)
    as.insert(as.begin(), 1);
  if (bs.size() == 1)
    bs.push_back(1);
  int64_t m = as[as.size() - 2], n = bs.back();
  SmallVector<int64_t> batch = *graph::broadcastShapes(
      ArrayRef<int64_t>(as).drop_back(2), ArrayRef<int64_t>(bs).drop_back(2));
  // A batched A times one matrix B is one taller matrix product.
  if (bs.size() == 2 && as.size() > 2) {
    int64_t rows = 1;
    for (int64_t d : ArrayRef<int64_t>(as).drop_back(1))
      rows *= d;
    as = {rows, as.back()};
    m = rows;
    batch.clear();
  }
  SmallVector<int64_t> outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Value out =
      kern::AllocOp::create(b, loc, memrefOf(op.getType()), IntegerAttr());
  map(op.getResult(), out);
  Value aView = alias(loc, a, as);
  bool transB = false;
  Value bView;
  if (graph::ConstantOp w = kMajorWeight(op, op.getRhs())) {
    bView = kMajorWeightBuffer(b, w, kMajorWeights);
    if (!bView)
      return failure();
    transB = true;
  } else {
    bView = alias(loc, bb, bs);
  }
  Value target = alias(loc, out, outShape);
  Config c = cfg({{"trans_a", boolean(false)}, {"trans_b", boolean(transB)}});
  setTF32(c, op.getTf32());
  return launch(loc, "matmul", std::move(c), {aView, bView}, target);
}

LogicalResult FunctionLowering::lowerSlice(graph::SliceOp op) {
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> out = op.getType().getShape();
  ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
  int64_t rank = in.size();
  // One contiguous range: unit counts, then one axis walked forward, then
  // whole axes.
  int64_t partial = -1;
  for (int64_t d = 0; d < rank; ++d)
    if (!(out[d] == in[d] && (in[d] == 1 || (starts[d] == 0 && steps[d] == 1))))
      partial = d;
  bool contiguous = partial < 0 || out[partial] == 1 || steps[partial] == 1;
  for (int64_t d = 0; d < partial && contiguous; ++d)
    contiguous = out[d] == 1;
  if (contiguous && numElements(op.getType()) > 0) {
    std::vector<int64_t> strides =
        codegen::rowMajorStrides(std::vector<int64_t>(in.begin(), in.end()));
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d)
      offset += (out[d] == in[d] ? 0 : starts[d]) * strides[d];
    auto inType = cast<MemRefType>(lookup(op.getInput()).getType());
    offset *= kern::elementByteSize(inType.getElementType());
    map(op.getResult(), alias(op.getLoc(), lookup(op.getInput()), out, offset));
    return success();
  }
  return allocAndLaunch(op, "slice",
                        cfg({{"starts", ints(starts)}, {"steps", ints(steps)}}),
                        {op.getInput()});
}

/// The config keys of an elementwise op beyond `op` (KernelSpec.h).
Config elementwiseAttrs(Operation *op) {
  Config c;
  if (auto g = dyn_cast<graph::GeluOp>(op))
    c.set("approximate", str(g.getApproximate()));
  else if (auto l = dyn_cast<graph::LeakyReluOp>(op))
    c.set("alpha", f64(l.getAlphaAttr().getValueAsDouble()));
  else if (auto cl = dyn_cast<graph::ClipOp>(op)) {
    if (auto lo = cl.getMinAttr())
      c.set("min", f64(lo.getValueAsDouble()));
    if (auto hi = cl.getMaxAttr())
      c.set("max", f64(hi.getValueAsDouble()));
  }
  return c;
}

/// The value of a one-element float or integer constant, which a fused
/// program takes as a literal instead of a buffer to load.
static std::optional<double> literalScalar(Value v) {
  auto c = v.getDefiningOp<graph::ConstantOp>();
  if (!c || c.getValue().getNumElements() != 1)
    return std::nullopt;
  FailureOr<eval::Tensor> t = eval::tensorFromAttr(c.getValue());
  if (failed(t) || t->dtype() == eval::DType::I1)
    return std::nullopt;
  double d = t->getDouble(0);
  // Integers only while a double holds them exactly.
  if (!t->isFloat() && std::fabs(d) > 9007199254740992.0)
    return std::nullopt;
  return d;
}

LogicalResult FunctionLowering::lowerFusion(graph::FusionOp f) {
  Block &body = f.getBody().front();
  graph::MatMulOp mm;
  for (Operation &op : body)
    if (auto m = dyn_cast<graph::MatMulOp>(op))
      mm = m;
  // Program operands: the region inputs in order (elementwise), or the
  // product first and then the other inputs in order of first use (matmul).
  DenseMap<Value, codegen::FusedStep::Arg> ref;
  SmallVector<Value> epilogueInputs, elementwiseInputs;
  std::vector<codegen::FusedStep> steps;
  // One-element constants become literal steps (`const{value=...}`).
  auto outerOf = [&](BlockArgument a) { return f.getInputs()[a.getArgNumber()]; };
  // (An elementwise kernel keeps at least one buffer input to index.)
  bool allLiteral = !mm && llvm::all_of(body.getArguments(), [&](BlockArgument a) {
    return literalScalar(outerOf(a)).has_value();
  });
  for (BlockArgument arg : body.getArguments()) {
    if (allLiteral || (mm && (arg == mm.getLhs() || arg == mm.getRhs())))
      continue;
    std::optional<double> lit = literalScalar(outerOf(arg));
    FailureOr<codegen::DType> dt =
        dtypeOf(cast<ShapedType>(arg.getType()).getElementType());
    if (!lit || failed(dt))
      continue;
    codegen::FusedStep st;
    st.op = "const";
    st.attrs.set("value", codegen::ConfigValue::ofFloat(*lit));
    st.dtype = *dt;
    ref[arg] = {false, static_cast<int>(steps.size())};
    steps.push_back(std::move(st));
  }
  if (mm) {
    ref[mm.getResult()] = {true, 0};
    for (Operation &op : body.without_terminator())
      for (Value v : op.getOperands())
        if (&op != mm.getOperation() && isa<BlockArgument>(v) &&
            !ref.count(v)) {
          ref[v] = {true, static_cast<int>(epilogueInputs.size()) + 1};
          epilogueInputs.push_back(v);
        }
  } else {
    for (BlockArgument arg : body.getArguments())
      if (!ref.count(arg)) {
        ref[arg] = {true, static_cast<int>(elementwiseInputs.size())};
        elementwiseInputs.push_back(outerOf(arg));
      }
  }
  auto addStep = [&](codegen::FusedStep st, Value result) -> LogicalResult {
    FailureOr<codegen::DType> dt =
        dtypeOf(cast<ShapedType>(result.getType()).getElementType());
    if (failed(dt))
      return f.emitError() << "cannot lower a fused value of type "
                           << result.getType();
    st.dtype = *dt;
    ref[result] = {false, static_cast<int>(steps.size())};
    steps.push_back(std::move(st));
    return success();
  };
  for (Operation &op : body.without_terminator()) {
    if (&op == mm.getOperation())
      continue;
    // Reshapes and transposes are the inputs' index maps (below): each
    // value is computed at the iteration point, so they compute nothing.
    if (graph::isIndexMapOp(&op)) {
      ref[op.getResult(0)] = ref.lookup(op.getOperand(0));
      continue;
    }
    codegen::FusedStep st;
    st.op = isa<graph::ExpandOp>(op) ? "copy" : mnemonic(&op).str();
    st.attrs = elementwiseAttrs(&op);
    for (Value v : op.getOperands())
      st.args.push_back(ref.lookup(v));
    if (failed(addStep(std::move(st), op.getResult(0))))
      return failure();
  }
  // Each result's stored step: a yielded region input (or, with one result,
  // anything but the last step, which is what a single-output kernel stores)
  // is copied into a step of its own.
  const bool several = !mm && f.getNumResults() > 1;
  std::vector<int64_t> outputs;
  for (Value yielded : f.getYield().getValues()) {
    codegen::FusedStep::Arg y = ref.lookup(yielded);
    if (y.input || steps.empty() ||
        (!several && y.index + 1 != static_cast<int>(steps.size()))) {
      codegen::FusedStep copy;
      copy.op = "copy";
      copy.args.push_back(y);
      if (failed(addStep(std::move(copy), yielded)))
        return failure();
      y = ref.lookup(yielded);
    }
    outputs.push_back(y.index);
  }
  if (!mm) {
    Config c = cfg({{"program", str(codegen::printFusedProgram(steps))}});
    if (several)
      c.set("outputs", codegen::ConfigValue::ofInts(outputs));
    if (llvm::any_of(body.without_terminator(),
                     [](Operation &op) { return graph::isIndexMapOp(&op); })) {
      // Each buffer input read through its strided map from the iteration
      // space (the results are row-major over it).
      SmallVector<Operation *> members;
      for (Operation &op : body.without_terminator())
        members.push_back(&op);
      std::optional<graph::RegionMaps> maps = graph::computeRegionMaps(
          members, SmallVector<Value>(f.getYield().getValues()));
      if (!maps)
        return f.emitError() << "has no index map for every value";
      std::vector<int64_t> strides;
      for (BlockArgument arg : body.getArguments())
        if (ref.lookup(arg).input) // a buffer, not a literal
          llvm::append_range(strides, maps->strides.lookup(arg));
      c.set("space", codegen::ConfigValue::ofInts(
                         std::vector<int64_t>(maps->space.begin(), maps->space.end())));
      c.set("input_strides", codegen::ConfigValue::ofInts(std::move(strides)));
    }
    return allocAndLaunch(f, "fused_elementwise", std::move(c),
                          elementwiseInputs);
  }

  // The product and its epilogue: rows of A (batch axes folded into M)
  // times B, every epilogue operand viewed on the [rows, N] output.
  Location loc = f.getLoc();
  auto outer = [&](Value blockArg) {
    return lookup(f.getInputs()[cast<BlockArgument>(blockArg).getArgNumber()]);
  };
  ArrayRef<int64_t> as = mm.getLhs().getType().getShape();
  int64_t n = mm.getType().getShape().back(), k = as.back(), rows = 1;
  for (int64_t d : as.drop_back(1))
    rows *= d;
  graph::ConstantOp kMajor = kMajorWeight(
      mm, f.getInputs()[cast<BlockArgument>(mm.getRhs()).getArgNumber()]);
  Value rhs = kMajor ? kMajorWeightBuffer(b, kMajor, kMajorWeights)
                     : outer(mm.getRhs());
  if (!rhs)
    return failure();
  SmallVector<Value> ins = {alias(loc, outer(mm.getLhs()), {rows, k}), rhs};
  for (Value v : epilogueInputs) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> view;
    if (t.getNumElements() == 1)
      view = {1};
    else if (t.getShape() == mm.getType().getShape())
      view = {rows, n};
    else if (t.getShape().back() == n && t.getNumElements() == n)
      view = {n};
    else
      return f.emitError() << "epilogue operand of type " << t
                           << " does not index the product's rows";
    ins.push_back(alias(loc, outer(v), view));
  }
  Value out =
      kern::AllocOp::create(b, loc, memrefOf(f.getType(0)), IntegerAttr());
  map(f.getResult(0), out);
  Config c = cfg({{"trans_a", boolean(false)},
                  {"trans_b", boolean(static_cast<bool>(kMajor))},
                  {"epilogue", str(codegen::printFusedProgram(steps))}});
  setTF32(c, mm.getTf32());
  return launch(loc, "matmul", std::move(c), ins, alias(loc, out, {rows, n}),
                "fusion");
}

LogicalResult FunctionLowering::lowerOp(Operation *op) {
  if ((op->getNumResults() != 1 && !isa<graph::FusionOp>(op)) ||
      op->getNumResults() == 0 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return op->emitError() << "cannot lower '" << op->getName()
                           << "' to kernels";
  auto ew = [&]() {
    Config c = elementwiseAttrs(op);
    c.set("op", str(mnemonic(op)));
    return allocAndLaunch(op, "elementwise", std::move(c),
                          SmallVector<Value>(op->getOperands()));
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](graph::ConstantOp c) {
        // Read only as tf32 products' K-major weights: stored transposed
        // by each product (kMajorWeightBuffer), never in this layout.
        if (onlyKMajorWeight(c))
          return success();
        std::string name = nodeName(c.getLoc());
        auto w = kern::WeightOp::create(
            b, c.getLoc(), memrefOf(c.getType()), c.getValue(),
            name.empty() ? StringAttr() : b.getStringAttr(name));
        map(c.getResult(), w.getResult());
        return success();
      })
      .Case([&](graph::ReshapeOp r) {
        map(r.getResult(),
            alias(r.getLoc(), lookup(r.getInput()), r.getType().getShape()));
        return success();
      })
      .Case<graph::SqrtOp, graph::ReciprocalOp, graph::ExpOp, graph::LogOp,
            graph::ErfOp, graph::TanhOp, graph::SigmoidOp, graph::SinOp,
            graph::CosOp, graph::FloorOp, graph::CeilOp, graph::NegOp,
            graph::AbsOp, graph::ReluOp, graph::NotOp, graph::IsNaNOp,
            graph::CastOp, graph::AddOp, graph::SubOp, graph::MulOp,
            graph::DivOp, graph::MaxOp, graph::MinOp, graph::PowOp,
            graph::EqualOp, graph::LessOp, graph::LessOrEqualOp,
            graph::GreaterOp, graph::GreaterOrEqualOp, graph::AndOp,
            graph::OrOp, graph::XorOp, graph::WhereOp, graph::GeluOp,
            graph::LeakyReluOp, graph::ClipOp>([&](Operation *) { return ew(); })
      .Case([&](graph::FusionOp f) { return lowerFusion(f); })
      .Case([&](graph::ExpandOp e) {
        return allocAndLaunch(e, "elementwise", cfg({{"op", str("copy")}}),
                              {e.getInput()});
      })
      .Case<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
            graph::ReduceMinOp, graph::ReduceProdOp>([&](Operation *r) {
        StringRef what = mnemonic(r).drop_front(strlen("reduce_"));
        auto axes = r->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
        return allocAndLaunch(r, "reduce",
                              cfg({{"op", str(what)}, {"axes", ints(axes)}}),
                              {r->getOperand(0)});
      })
      .Case<graph::SoftmaxOp, graph::LogSoftmaxOp>([&](Operation *s) {
        int64_t axis = s->getAttrOfType<IntegerAttr>("axis").getInt();
        return allocAndLaunch(
            s, "softmax",
            cfg({{"axis", i64(axis)},
                 {"log", boolean(isa<graph::LogSoftmaxOp>(s))}}),
            {s->getOperand(0)});
      })
      .Case([&](graph::LayerNormOp l) {
        return allocAndLaunch(
            l, "layer_norm",
            l.getRms()
                ? cfg({{"axis", i64(l.getAxis())},
                       {"epsilon", f64(l.getEpsilonAttr().getValueAsDouble())},
                       {"rms", boolean(true)}})
                : cfg({{"axis", i64(l.getAxis())},
                       {"epsilon", f64(l.getEpsilonAttr().getValueAsDouble())}}),
            SmallVector<Value>(l->getOperands()));
      })
      .Case([&](graph::AttentionOp a) {
        // The kernel multiplies the scores by one factor.
        double scale =
            a.getScaleAttr() ? a.getScaleAttr().getValueAsDouble() : 1.0;
        if (a.getScaleDivides())
          scale = 1.0 / scale;
        Config c = cfg({{"scale", f64(scale)},
                                   {"q_perm", ints(a.getQPerm())},
                                   {"k_perm", ints(a.getKPerm())},
                                   {"v_perm", ints(a.getVPerm())},
                                   {"out_perm", ints(a.getOutPerm())},
                                   {"nan_to_zero", boolean(a.getNanToZero())},
                                   {"causal", boolean(a.getCausal())}});
        if (auto h = a.getQHeads())
          c.set("q_heads", ints(*h));
        if (auto h = a.getKHeads())
          c.set("k_heads", ints(*h));
        if (auto h = a.getVHeads())
          c.set("v_heads", ints(*h));
        if (IntegerAttr g = a.getQPerKvAttr())
          c.set("q_per_kv", i64(g.getInt()));
        if (FloatAttr fill = a.getCausalFillAttr())
          c.set("causal_fill", f64(fill.getValueAsDouble()));
        return allocAndLaunch(a, "attention", std::move(c),
                              SmallVector<Value>(a->getOperands()));
      })
      .Case([&](graph::BatchNormOp n) {
        return allocAndLaunch(
            n, "batch_norm",
            cfg({{"epsilon", f64(n.getEpsilonAttr().getValueAsDouble())}}),
            SmallVector<Value>(n->getOperands()));
      })
      .Case([&](graph::MatMulOp m) { return lowerMatMul(m); })
      .Case([&](graph::GemmOp g) {
        Config c = cfg({{"trans_a", boolean(g.getTransA())},
                        {"trans_b", boolean(g.getTransB())},
                        {"alpha", f64(g.getAlphaAttr().getValueAsDouble())},
                        {"beta", f64(g.getBetaAttr().getValueAsDouble())}});
        setTF32(c, g.getTf32());
        return allocAndLaunch(g, "matmul", std::move(c),
                              SmallVector<Value>(g->getOperands()));
      })
      .Case([&](graph::ConvOp c) {
        return allocAndLaunch(c, "conv",
                              cfg({{"strides", ints(c.getStrides())},
                                   {"pads", ints(c.getPads())},
                                   {"dilations", ints(c.getDilations())},
                                   {"group", i64(c.getGroup())}}),
                              SmallVector<Value>(c->getOperands()));
      })
      .Case<graph::MaxPoolOp, graph::AveragePoolOp>([&](Operation *p) {
        auto arr = [&](StringRef n) {
          return p->getAttrOfType<DenseI64ArrayAttr>(n).asArrayRef();
        };
        auto cip = p->getAttrOfType<BoolAttr>("count_include_pad");
        return allocAndLaunch(
            p, "pool",
            cfg({{"op", str(isa<graph::MaxPoolOp>(p) ? "max" : "average")},
                 {"kernel_shape", ints(arr("kernel_shape"))},
                 {"strides", ints(arr("strides"))},
                 {"pads", ints(arr("pads"))},
                 {"dilations", ints(arr("dilations"))},
                 {"count_include_pad", boolean(cip && cip.getValue())}}),
            {p->getOperand(0)});
      })
      .Case<graph::GatherOp, graph::GatherElementsOp>([&](Operation *g) {
        int64_t axis = g->getAttrOfType<IntegerAttr>("axis").getInt();
        return allocAndLaunch(g, mnemonic(g), cfg({{"axis", i64(axis)}}),
                              SmallVector<Value>(g->getOperands()));
      })
      .Case([&](graph::TransposeOp t) {
        return allocAndLaunch(
            t, "transpose", cfg({{"perm", ints(t.getPerm())}}), {t.getInput()});
      })
      .Case([&](graph::ConcatOp c) {
        return allocAndLaunch(c, "concat", cfg({{"axis", i64(c.getAxis())}}),
                              SmallVector<Value>(c.getInputs()));
      })
      .Case([&](graph::SliceOp s) { return lowerSlice(s); })
      .Case([&](graph::TriluOp t) {
        return allocAndLaunch(
            t, "trilu",
            cfg({{"k", i64(t.getK())}, {"upper", boolean(t.getUpper())}}),
            {t.getInput()});
      })
      .Default([&](Operation *) {
        return op->emitError()
               << "no kernel lowering for '" << op->getName() << "'";
      });
}

LogicalResult FunctionLowering::bindOutput(Location loc, Value buffer,
                                           BlockArgument outArg) {
  if (numElements(outArg.getType()) == 0)
    return success();
  BufferRoot r = resolveBuffer(buffer);
  auto alloc = r.root.getDefiningOp<kern::AllocOp>();
  if (alloc && r.offset == 0 && !boundAllocs.count(alloc) &&
      alloc.getByteSize() == kern::bufferByteSize(outArg.getType())) {
    // Every launch that writes the allocation writes the output instead.
    boundAllocs.insert(alloc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(alloc);
    Value replacement = outArg;
    if (alloc.getType() != outArg.getType()) {
      ++counters.aliases;
      replacement = kern::AliasOp::create(b, alloc.getLoc(), alloc.getType(),
                                          outArg, b.getI64IntegerAttr(0));
    }
    Value old = alloc.getResult();
    old.replaceAllUsesWith(replacement);
    for (auto &entry : values) // Later outputs may name the same value.
      if (entry.second == old)
        entry.second = replacement;
    alloc.erase();
    return success();
  }
  // An input, a weight, a value returned twice or a partial view: copy.
  ++counters.outputCopies;
  std::string what = "output";
  auto fn = cast<func::FuncOp>(outArg.getOwner()->getParentOp());
  if (auto name = fn.getArgAttrOfType<StringAttr>(
          outArg.getArgNumber(), kern::KernelDialect::kNameAttr))
    what = name.str();
  Location copyLoc = NameLoc::get(b.getStringAttr("copy_to_" + what), loc);
  return launch(copyLoc, "elementwise", cfg({{"op", str("copy")}}), {buffer},
                outArg);
}

/// True if `fn` is over tensors (a graph function still to lower).
bool isGraphFunction(func::FuncOp fn) {
  if (fn.isExternal())
    return false;
  for (Type t :
       llvm::concat<const Type>(fn.getArgumentTypes(), fn.getResultTypes()))
    if (isa<TensorType>(t))
      return true;
  return llvm::any_of(fn.getBody().front(), [](Operation &op) {
    return isa_and_nonnull<graph::GraphDialect>(op.getDialect());
  });
}

LogicalResult lowerFunction(func::FuncOp fn, Counters &counters,
                            const codegen::TargetOptions &target) {
  if (!llvm::hasSingleElement(fn.getBody()))
    return fn.emitError() << "can only lower a function with one block";
  MLIRContext *ctx = fn.getContext();
  FunctionType ft = fn.getFunctionType();
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(ft.getInputs(), ft.getResults())) {
    auto rt = dyn_cast<RankedTensorType>(t);
    if (!rt || !rt.hasStaticShape())
      return fn.emitError()
             << "can only lower functions of statically shaped tensors, got "
             << t;
    argTypes.push_back(memrefOf(rt));
  }
  OpBuilder b(fn);
  std::string symName = fn.getSymName().str();
  auto kfn = func::FuncOp::create(b, fn.getLoc(), symName + ".kernel",
                                  FunctionType::get(ctx, argTypes, {}));
  kfn.setVisibility(fn.getVisibility());
  unsigned numIn = ft.getNumInputs();
  for (unsigned i = 0; i < argTypes.size(); ++i) {
    bool isInput = i < numIn;
    kfn.setArgAttr(i,
                   isInput ? kern::KernelDialect::kInputAttr
                           : kern::KernelDialect::kOutputAttr,
                   b.getI64IntegerAttr(isInput ? i : i - numIn));
    StringAttr name =
        isInput ? fn.getArgAttrOfType<StringAttr>(i, "graph.name")
                : fn.getResultAttrOfType<StringAttr>(i - numIn, "graph.name");
    if (name)
      kfn.setArgAttr(i, kern::KernelDialect::kNameAttr, name);
  }
  Block *entry = kfn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  FunctionLowering lowering(b, counters, target);
  for (unsigned i = 0; i < numIn; ++i)
    lowering.map(fn.getArgument(i), entry->getArgument(i));

  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(ret.getOperands()))
        if (failed(lowering.bindOutput(ret.getLoc(), lowering.lookup(v),
                                       entry->getArgument(numIn + i))))
          return failure();
      func::ReturnOp::create(b, ret.getLoc());
      break;
    }
    if (failed(lowering.lowerOp(&op)))
      return failure();
  }
  // Views and buffers nothing reads (a reshape bound to an output, an empty
  // tensor's alloc) go away, last first so chains of views fold.
  SmallVector<Operation *> ops;
  for (Operation &op : *entry)
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isa<kern::AliasOp, kern::AllocOp, kern::WeightOp>(op) &&
        op->use_empty())
      op->erase();
  fn.erase();
  kfn.setSymName(symName);
  return success();
}

struct LowerToKernelPass
    : kiln::impl::LowerToKernelPassBase<LowerToKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    Counters counters;
    codegen::TargetOptions target;
    target.arch = arch;
    target.matmulPath = matmulPath;
    for (func::FuncOp fn :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>())) {
      if (!isGraphFunction(fn))
        continue;
      if (failed(lowerFunction(fn, counters, target)))
        return signalPassFailure();
    }
    numLaunches += counters.launches;
    numAliases += counters.aliases;
    numOutputCopies += counters.outputCopies;
  }
};

} // namespace
