//===- OnnxImporter.cpp - ONNX model to graph dialect ---------------------===//
//
// Walks the ONNX graph in order, maps each node through its op handler to
// graph-dialect ops inside `func.func @main`, and folds ops on constants as
// they are built so that shape-computing subgraphs become constants.
//
//===----------------------------------------------------------------------===//
#include "compiler/frontend/onnx/OnnxImporter.h"

#include "compiler/evaluator/Evaluator.h"
#include "compiler/frontend/onnx/ImporterInternal.h"
#include "compiler/frontend/onnx/OnnxModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <unordered_map>

using namespace mlir;

namespace kiln::onnx_frontend {

void registerImporterDialects(MLIRContext &context) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
}

std::vector<std::string> supportedOnnxOps() {
  std::vector<std::string> names;
  for (const auto &entry : onnxOpHandlers())
    names.push_back(entry.getKey().str());
  std::sort(names.begin(), names.end());
  return names;
}

static std::string nodeLabel(const onnx::NodeProto &node, int index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                             : node.name();
}

static std::string typeString(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

static bool isDefaultDomain(const std::string &d) {
  return d.empty() || d == "ai.onnx";
}

static std::string sanitizeResourceName(llvm::StringRef name);

class Importer {
public:
  Importer(MLIRContext &ctx, const ImportOptions &options,
           llvm::function_ref<void(const std::string &)> emitError)
      : ctx(ctx), options(options), emitErrorFn(emitError), builder(&ctx) {
    modelDir = llvm::sys::path::parent_path(options.modelPath).str();
    if (modelDir.empty())
      modelDir = ".";
  }

  OwningOpRef<ModuleOp> run();

  /// Reports one formatted error line; `node` may be null for model errors.
  void report(const onnx::NodeProto *node, int nodeIndex, const llvm::Twine &msg) {
    std::string line = options.modelPath + ": ";
    if (node)
      line += "node '" + nodeLabel(*node, nodeIndex) + "' (" + node->op_type() + "): ";
    line += "error: " + msg.str();
    emitErrorFn(line);
    ++errorCount;
  }

  Value makeConstant(Location loc, const std::string &name, TensorPayload payload);
  Value constantFromTensor(Location loc, const eval::Tensor &t, RankedTensorType type);
  Value tryFold(Operation *op);

  MLIRContext &ctx;
  const ImportOptions &options;
  llvm::function_ref<void(const std::string &)> emitErrorFn;
  OpBuilder builder;
  std::string modelDir;
  int errorCount = 0;
  const onnx::NodeProto *currentNode = nullptr;
  int currentIndex = 0;
  std::unordered_map<std::string, Value> values;
  llvm::StringSet<> usedNames;
  int resourceCounter = 0;

private:
  LogicalResult checkSupported(const onnx::GraphProto &graph);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &vi);
  LogicalResult importNode(const onnx::NodeProto &node, int index, int64_t opset);
};

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

static std::string sanitizeResourceName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "w_" + out;
  return out;
}

Value Importer::makeConstant(Location loc, const std::string &name,
                             TensorPayload payload) {
  RankedTensorType type = payload.type;
  Type et = type.getElementType();
  ElementsAttr attr;
  if (type.getNumElements() <= options.inlineConstantLimit || et.isInteger(1)) {
    if (et.isInteger(1)) {
      llvm::SmallVector<bool> bits(payload.bytes.begin(), payload.bytes.end());
      attr = DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
    } else {
      attr = DenseElementsAttr::getFromRawBuffer(
          type, llvm::ArrayRef<char>(payload.bytes.data(), payload.bytes.size()));
    }
  } else {
    size_t align = std::max<size_t>(storageBytes(et), 1);
    auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        llvm::ArrayRef<char>(payload.bytes.data(), payload.bytes.size()), align);
    attr = DenseResourceElementsAttr::get(type, sanitizeResourceName(name),
                                          std::move(blob));
  }
  return graph::ConstantOp::create(builder, loc, type, attr);
}

Value Importer::constantFromTensor(Location loc, const eval::Tensor &t,
                                   RankedTensorType type) {
  auto dense = cast<DenseElementsAttr>(eval::tensorToAttr(t, type));
  std::string name = "folded";
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    name = sanitizeResourceName(nameLoc.getName().getValue());
  return graph::ConstantOp::create(
      builder, loc, type, graph::makeWeightAttr(dense, name, options.inlineConstantLimit));
}

/// Evaluates `op` when all its operands are small constants and replaces it
/// with a constant; returns the value to use for the op's result.
Value Importer::tryFold(Operation *op) {
  if (op->getNumResults() != 1)
    return op->getResult(0);
  int64_t total = 0;
  llvm::SmallVector<eval::Tensor> operands;
  for (Value v : op->getOperands()) {
    auto cst = v.getDefiningOp<graph::ConstantOp>();
    if (!cst)
      return op->getResult(0);
    total += cast<RankedTensorType>(v.getType()).getNumElements();
  }
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (total + resultType.getNumElements() > options.importFoldLimit ||
      isa<graph::ConstantOp>(op))
    return op->getResult(0);
  for (Value v : op->getOperands()) {
    auto t = eval::tensorFromAttr(v.getDefiningOp<graph::ConstantOp>().getValue());
    if (failed(t))
      return op->getResult(0);
    operands.push_back(std::move(*t));
  }
  auto results = eval::evaluateOp(op, operands);
  if (failed(results))
    return nullptr; // the evaluator reported why (e.g. index out of range)
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(op);
  Value folded = constantFromTensor(op->getLoc(), (*results)[0], resultType);
  op->getResult(0).replaceAllUsesWith(folded);
  op->erase();
  return folded;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

NodeContext::NodeContext(Importer &importer, const onnx::NodeProto &node,
                         int64_t opset, OpBuilder &builder, Location loc,
                         llvm::SmallVector<Value> inputs)
    : node(node), opset(opset), b(builder), loc(loc), importer(importer),
      inputs(std::move(inputs)) {}

RankedTensorType NodeContext::inputType(size_t i) const {
  return cast<RankedTensorType>(inputs[i].getType());
}

FailureOr<eval::Tensor> NodeContext::constantInput(size_t i, llvm::StringRef what) {
  if (!hasInput(i))
    return error("missing input '" + what + "'");
  auto cst = inputs[i].getDefiningOp<graph::ConstantOp>();
  if (!cst)
    return error("input '" + what + "' (" + node.input(i) +
                  ") must be a constant: Kiln compiles static shapes; bind "
                  "symbolic dimensions with --input-shape, or freeze the graph "
                  "input that feeds it with --input-value");
  auto t = eval::tensorFromAttr(cst.getValue());
  if (failed(t))
    return error("cannot read constant input '" + what + "'");
  return t;
}

FailureOr<llvm::SmallVector<int64_t>> NodeContext::constantInts(size_t i,
                                                               llvm::StringRef what) {
  auto t = constantInput(i, what);
  if (failed(t))
    return failure();
  if (t->isFloat())
    return error("input '" + what + "' must be an integer tensor");
  return llvm::SmallVector<int64_t>(t->ints().begin(), t->ints().end());
}

bool NodeContext::outputUsed(size_t i) const {
  return i < (size_t)node.output_size() && !node.output(i).empty();
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::attrInt(llvm::StringRef name, int64_t dflt) const {
  auto *a = attr(name);
  return a ? a->i() : dflt;
}
float NodeContext::attrFloat(llvm::StringRef name, float dflt) const {
  auto *a = attr(name);
  return a ? a->f() : dflt;
}
std::string NodeContext::attrString(llvm::StringRef name, llvm::StringRef dflt) const {
  auto *a = attr(name);
  return a ? a->s() : dflt.str();
}
std::optional<llvm::SmallVector<int64_t>> NodeContext::attrInts(llvm::StringRef name) const {
  auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return llvm::SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

FailureOr<eval::Tensor> NodeContext::attrTensor(llvm::StringRef name) {
  auto *a = attr(name);
  if (!a || !a->has_t())
    return error("missing tensor attribute '" + name + "'");
  auto payload = readTensor(a->t(), importer.modelDir, b.getContext());
  if (!payload)
    return error("attribute '" + name + "': " + llvm::toString(payload.takeError()));
  ElementsAttr attr;
  Type et = payload->type.getElementType();
  if (et.isInteger(1)) {
    llvm::SmallVector<bool> bits(payload->bytes.begin(), payload->bytes.end());
    attr = DenseElementsAttr::get(payload->type, llvm::ArrayRef<bool>(bits));
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(
        payload->type, llvm::ArrayRef<char>(payload->bytes.data(), payload->bytes.size()));
  }
  return eval::tensorFromAttr(attr);
}

ErrorResult NodeContext::error(const llvm::Twine &message) {
  if (!errorSeen)
    importer.report(&node, importer.currentIndex, message);
  errorSeen = true;
  return {};
}

FailureOr<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    error("axis " + llvm::Twine(axis) + " is out of range for rank " + llvm::Twine(rank));
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

Value NodeContext::finishOp(Operation *op) {
  for (Type t : op->getResultTypes())
    if (failed(graph::checkedNumElements(cast<RankedTensorType>(t).getShape()))) {
      op->erase();
      return error("result type " + typeString(t) + " has more than 2^48 elements");
    }
  if (failed(mlir::verify(op))) {
    op->erase();
    errorSeen = true; // the diagnostic handler reported the verifier's message
    return nullptr;
  }
  Value v = importer.tryFold(op);
  if (!v)
    errorSeen = true;
  return v;
}

Value NodeContext::constant(const eval::Tensor &value) {
  if (errorSeen)
    return nullptr;
  auto type = RankedTensorType::get(value.shape(), eval::dtypeToMlir(value.dtype(), b.getContext()));
  return importer.constantFromTensor(loc, value, type);
}

LogicalResult NodeContext::setOutputs(llvm::ArrayRef<Value> values) {
  if (errorSeen)
    return failure();
  for (Value v : values)
    if (!v)
      return error("internal: an output was not built");
  results.assign(values.begin(), values.end());
  return success();
}

//===----------------------------------------------------------------------===//
// Graph import
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkSupported(const onnx::GraphProto &graph) {
  const auto &handlers = onnxOpHandlers();
  bool ok = true;
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto &node = graph.node(i);
    if (!isDefaultDomain(node.domain())) {
      report(&node, i, "unsupported op: domain '" + node.domain() + "' is not supported");
      ok = false;
    } else if (!handlers.count(node.op_type())) {
      report(&node, i, "unsupported op '" + node.op_type() + "'");
      ok = false;
    }
  }
  return success(ok);
}

FailureOr<RankedTensorType> Importer::inputType(const onnx::ValueInfoProto &vi) {
  const std::string &name = vi.name();
  if (!vi.has_type() || !vi.type().has_tensor_type())
    return (report(nullptr, 0, "input '" + name + "' is not a tensor"), failure());
  const auto &tt = vi.type().tensor_type();
  auto et = elementTypeFromOnnx(tt.elem_type(), &ctx);
  if (failed(et))
    return (report(nullptr, 0, "input '" + name + "' has unsupported element type " +
                                   onnxTypeName(tt.elem_type())),
            failure());
  llvm::SmallVector<int64_t> shape;
  auto bound = options.inputShapes.find(name);
  if (!tt.has_shape() && bound == options.inputShapes.end())
    return (report(nullptr, 0, "input '" + name + "' has no shape; give one with --input-shape " +
                                   name + "=..."),
            failure());
  if (bound != options.inputShapes.end()) {
    shape = bound->second;
    if (tt.has_shape() && tt.shape().dim_size() != (int)shape.size())
      return (report(nullptr, 0, "--input-shape for '" + name + "' has rank " +
                                     llvm::Twine(shape.size()) + " but the model's input has rank " +
                                     llvm::Twine(tt.shape().dim_size())),
              failure());
    for (int i = 0; tt.has_shape() && i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() != shape[i])
        return (report(nullptr, 0, "--input-shape for '" + name + "' sets dimension " +
                                       llvm::Twine(i) + " to " + llvm::Twine(shape[i]) +
                                       " but the model fixes it to " + llvm::Twine(d.dim_value())),
                failure());
    }
  } else {
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto &d = tt.shape().dim(i);
      if (!d.has_dim_value())
        return (report(nullptr, 0, "input '" + name + "' has symbolic dimension '" +
                                       (d.dim_param().empty() ? "?" : d.dim_param()) +
                                       "'; bind it with --input-shape " + name + "=..."),
                failure());
      shape.push_back(d.dim_value());
    }
  }
  auto count = checkedElementCount(shape, *et);
  if (!count)
    return (report(nullptr, 0, "input '" + name + "': " + llvm::toString(count.takeError())),
            failure());
  return RankedTensorType::get(shape, *et);
}

LogicalResult Importer::importNode(const onnx::NodeProto &node, int index,
                                   int64_t opset) {
  currentNode = &node;
  currentIndex = index;
  auto loc = NameLoc::get(builder.getStringAttr(nodeLabel(node, index)),
                          FileLineColLoc::get(&ctx, options.modelPath, 0, 0));
  llvm::SmallVector<Value> inputs;
  for (const std::string &name : node.input()) {
    if (name.empty()) {
      inputs.push_back(nullptr);
      continue;
    }
    auto it = values.find(name);
    if (it == values.end()) {
      report(&node, index, "input '" + name +
                               "' is not produced by an earlier node, a graph input or an initializer");
      return failure();
    }
    inputs.push_back(it->second);
  }
  NodeContext nc(*this, node, opset, builder, loc, std::move(inputs));
  LogicalResult result = onnxOpHandlers().lookup(node.op_type())(nc);
  if (failed(result) || nc.hasFailed()) {
    if (!nc.hasFailed())
      nc.error("import failed");
    return failure();
  }
  auto outs = nc.outputs();
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    if ((size_t)i >= outs.size()) {
      report(&node, index, "output " + llvm::Twine(i) + " ('" + node.output(i) +
                               "') is not supported");
      return failure();
    }
    if (!values.emplace(node.output(i), outs[i]).second) {
      report(&node, index, "output '" + node.output(i) +
                               "' is already defined (by a graph input, an initializer or "
                               "an earlier node); ONNX graphs are in SSA form");
      return failure();
    }
  }
  currentNode = nullptr;
  return success();
}

OwningOpRef<ModuleOp> Importer::run() {
  auto modelOr = loadModelProto(options.modelPath);
  if (!modelOr) {
    report(nullptr, 0, llvm::toString(modelOr.takeError()));
    return nullptr;
  }
  const onnx::ModelProto &model = **modelOr;
  const onnx::GraphProto &graph = model.graph();

  int64_t opset = -1;
  for (const auto &imp : model.opset_import())
    if (isDefaultDomain(imp.domain()))
      opset = imp.version();
  if (opset < 0) {
    report(nullptr, 0, "the model imports no opset of the default ONNX domain");
    return nullptr;
  }
  if (opset < 1 || opset > 25) {
    report(nullptr, 0, "opset " + llvm::Twine(opset) + " is not supported (1 to 25 are)");
    return nullptr;
  }
  if (failed(checkSupported(graph)))
    return nullptr;

  // Diagnostics from verifiers and the evaluator become one-line errors
  // attributed to the node being imported.
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    std::string msg = diag.str();
    report(currentNode, currentIndex, msg);
    return success();
  });

  auto loc = FileLineColLoc::get(&ctx, options.modelPath, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  if (!graph.name().empty())
    module->getOperation()->setAttr("graph.model_name", builder.getStringAttr(graph.name()));
  module->getOperation()->setAttr("graph.opset", builder.getI64IntegerAttr(opset));

  llvm::StringSet<> initializerNames, inputNames;
  for (const auto &init : graph.initializer())
    if (!initializerNames.insert(init.name()).second) {
      report(nullptr, 0, "initializer '" + init.name() + "' is defined twice");
      return nullptr;
    }
  for (const auto &vi : graph.input())
    if (!inputNames.insert(vi.name()).second) {
      report(nullptr, 0, "graph input '" + vi.name() + "' is declared twice");
      return nullptr;
    }

  // Graph inputs (initializers listed as inputs are constants, not inputs).
  llvm::SmallVector<Type> argTypes;
  llvm::SmallVector<std::string> argNames;
  bool ok = true;
  llvm::SmallVector<const onnx::ValueInfoProto *> frozen;
  for (const auto &vi : graph.input()) {
    if (initializerNames.contains(vi.name()))
      continue;
    if (options.inputValues.count(vi.name())) {
      frozen.push_back(&vi);
      continue;
    }
    auto t = inputType(vi);
    if (failed(t)) {
      ok = false;
      continue;
    }
    argTypes.push_back(*t);
    argNames.push_back(vi.name());
  }
  for (const auto &entry : options.inputValues)
    if (ok && llvm::none_of(frozen, [&](auto *vi) { return vi->name() == entry.first; })) {
      report(nullptr, 0, "--input-value names '" + entry.first +
                             "', which is not an input of the model");
      ok = false;
    }
  for (const auto &entry : options.inputShapes)
    if (!llvm::is_contained(argNames, entry.first) && ok) {
      report(nullptr, 0, "--input-shape names '" + entry.first +
                             "', which is not an input of the model");
      ok = false;
    }
  if (!ok)
    return nullptr;

  auto fnType = builder.getFunctionType(argTypes, {});
  auto fn = func::FuncOp::create(builder, loc, "main", fnType);
  module->push_back(fn);
  Block *entry = fn.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  for (size_t i = 0; i < argNames.size(); ++i) {
    values[argNames[i]] = entry->getArgument(i);
    fn.setArgAttr(i, "graph.name", builder.getStringAttr(argNames[i]));
  }

  for (const onnx::ValueInfoProto *vi : frozen) {
    const auto &value = options.inputValues.at(vi->name());
    const auto &tt = vi->type().tensor_type();
    auto et = elementTypeFromOnnx(tt.elem_type(), &ctx);
    bool match = succeeded(et) && *et == value.type.getElementType();
    if (match && tt.has_shape()) {
      match = tt.shape().dim_size() == value.type.getRank();
      for (int i = 0; match && i < tt.shape().dim_size(); ++i)
        if (tt.shape().dim(i).has_dim_value())
          match = tt.shape().dim(i).dim_value() == value.type.getDimSize(i);
    }
    if (!match) {
      report(nullptr, 0, "--input-value for '" + vi->name() + "' has type " +
                             typeString(value.type) + ", which the input's declared type does not allow");
      return nullptr;
    }
    auto iloc = NameLoc::get(builder.getStringAttr(vi->name()), loc);
    values[vi->name()] = makeConstant(iloc, vi->name(), {value.type, value.bytes});
  }

  for (const auto &init : graph.initializer()) {
    auto payload = readTensor(init, modelDir, &ctx);
    if (!payload) {
      report(nullptr, 0, "initializer '" + init.name() + "': " +
                             llvm::toString(payload.takeError()));
      ok = false;
      continue;
    }
    auto iloc = NameLoc::get(builder.getStringAttr(init.name()), loc);
    values[init.name()] = makeConstant(iloc, init.name(), std::move(*payload));
  }
  if (!ok)
    return nullptr;

  for (int i = 0; i < graph.node_size(); ++i)
    if (failed(importNode(graph.node(i), i, opset)))
      return nullptr;

  llvm::SmallVector<Value> results;
  for (const auto &out : graph.output()) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      report(nullptr, 0, "graph output '" + out.name() + "' is not produced by any node");
      return nullptr;
    }
    results.push_back(it->second);
  }
  func::ReturnOp::create(builder, loc, results);
  fn.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (int i = 0; i < graph.output_size(); ++i)
    fn.setResultAttr(i, "graph.name", builder.getStringAttr(graph.output(i).name()));

  // Values imported as constants but no longer used (folded shape math).
  llvm::SmallVector<Operation *> dead;
  for (Operation &op : llvm::reverse(entry->getOperations()))
    if (isa<graph::ConstantOp>(op) && op.use_empty())
      dead.push_back(&op);
  for (Operation *op : dead)
    op->erase();

  if (failed(mlir::verify(*module)) || errorCount)
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
importOnnxModel(MLIRContext &context, const ImportOptions &options,
                llvm::function_ref<void(const std::string &)> emitError) {
  registerImporterDialects(context);
  Importer importer(context, options, emitError);
  return importer.run();
}

} // namespace kiln::onnx_frontend
