//===- kiln-eval.cpp - Run a model on Kiln's CPU reference evaluator ------===//
//
// kiln-eval model.onnx --inputs in.npz --outputs out.npz [-O N] [--seed S]
//
// Imports the model (and runs the -O pipeline, so tests can check that
// passes keep results), evaluates `@main` on the CPU and writes the outputs
// under the ONNX output names. Inputs come from an .npz (by ONNX input name)
// or, for inputs it lacks, from a seeded generator (--seed); --save-inputs
// writes what was used.
//
//===----------------------------------------------------------------------===//
#include "compiler/evaluator/Evaluator.h"
#include "compiler/pipeline/Driver.h"
#include "support/npy/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

#include <cstring>
#include <optional>

namespace cl = llvm::cl;
using namespace kiln;

static cl::OptionCategory category("kiln-eval options");
static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.onnx>"), cl::cat(category));
static cl::opt<std::string> inputsPath("inputs", cl::desc("Inputs (.npz, arrays named by ONNX input)"),
                                       cl::cat(category));
static cl::opt<std::string> outputsPath("outputs", cl::desc("Where to write the outputs (.npz)"),
                                        cl::cat(category));
static cl::opt<std::string> saveInputs("save-inputs", cl::desc("Write the inputs used (.npz)"),
                                       cl::cat(category));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed for inputs not given in --inputs"),
                              cl::init(0), cl::cat(category));
static cl::opt<bool> randomFill("random", cl::desc("Generate every missing input from --seed"),
                                cl::cat(category));
static cl::opt<unsigned> optLevel("O", cl::desc("Graph pipeline level before evaluating (default 0)"),
                                  cl::Prefix, cl::init(0), cl::cat(category));
static cl::list<std::string> inputValues(
    "input-value", cl::desc("Freeze a model input to the contents of a .npy file (inputs that feed shapes)"),
    cl::value_desc("name=file.npy"), cl::cat(category));
static cl::list<std::string> inputShapes("input-shape", cl::desc("name=1x128"), cl::cat(category));
static cl::opt<std::string> precision("precision",
                                      cl::desc("Evaluate an f32 model in fp16, bf16 or tf32 (tf32: matmul operands "
                                               "rounded to tf32, sums in f32; as kilnc --precision)"),
                                      cl::init("fp32"), cl::cat(category));

struct DTypeName {
  eval::DType dtype;
  const char *npy;
};
static const DTypeName kDTypes[] = {
    {eval::DType::F16, "f2"}, {eval::DType::F32, "f4"}, {eval::DType::F64, "f8"},
    {eval::DType::I1, "b1"},  {eval::DType::I8, "i1"},  {eval::DType::I16, "i2"},
    {eval::DType::I32, "i4"}, {eval::DType::I64, "i8"}, {eval::DType::U8, "u1"},
    {eval::DType::U16, "u2"}, {eval::DType::U32, "u4"}, {eval::DType::U64, "u8"},
    // bf16 has no numpy dtype: raw 16-bit records, as ml_dtypes saves it.
    {eval::DType::BF16, "V2"},
};

static const char *npyName(eval::DType t) {
  for (const auto &d : kDTypes)
    if (d.dtype == t)
      return d.npy;
  return nullptr;
}

template <typename T> static T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> static void store(uint8_t *p, T v) { std::memcpy(p, &v, sizeof(T)); }

static std::optional<eval::Tensor> arrayToTensor(const npy::Array &a, eval::DType want,
                                                 std::string &error) {
  const char *expected = npyName(want);
  if (!expected || a.dtype != expected) {
    error = "has numpy dtype '" + a.dtype + "' but the model expects " +
            eval::dtypeName(want).str() + " ('" + (expected ? expected : "?") + "')";
    return std::nullopt;
  }
  eval::Tensor t(want, a.shape);
  int64_t n = t.numElements();
  const uint8_t *p = a.data.data();
  for (int64_t i = 0; i < n; ++i) {
    switch (want) {
    case eval::DType::F16: t.setDouble(i, eval::halfBitsToFloat(load<uint16_t>(p + 2 * i))); break;
    case eval::DType::BF16: t.setDouble(i, eval::bf16BitsToFloat(load<uint16_t>(p + 2 * i))); break;
    case eval::DType::F32: t.setDouble(i, load<float>(p + 4 * i)); break;
    case eval::DType::F64: t.setDouble(i, load<double>(p + 8 * i)); break;
    case eval::DType::I1: case eval::DType::U8: t.setInt(i, p[i]); break;
    case eval::DType::I8: t.setInt(i, (int8_t)p[i]); break;
    case eval::DType::I16: t.setInt(i, load<int16_t>(p + 2 * i)); break;
    case eval::DType::U16: t.setInt(i, load<uint16_t>(p + 2 * i)); break;
    case eval::DType::I32: t.setInt(i, load<int32_t>(p + 4 * i)); break;
    case eval::DType::U32: t.setInt(i, load<uint32_t>(p + 4 * i)); break;
    case eval::DType::I64: case eval::DType::U64: t.setInt(i, load<int64_t>(p + 8 * i)); break;
    }
  }
  return t;
}

static npy::Array tensorToArray(const eval::Tensor &t) {
  npy::Array a;
  a.dtype = npyName(t.dtype());
  a.shape.assign(t.shape().begin(), t.shape().end());
  a.data.resize(t.numElements() * npy::dtypeSize(a.dtype));
  uint8_t *p = a.data.data();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    switch (t.dtype()) {
    case eval::DType::F16: store<uint16_t>(p + 2 * i, eval::floatToHalfBits((float)t.getDouble(i))); break;
    case eval::DType::BF16: store<uint16_t>(p + 2 * i, eval::floatToBF16Bits((float)t.getDouble(i))); break;
    case eval::DType::F32: store<float>(p + 4 * i, (float)t.getDouble(i)); break;
    case eval::DType::F64: store<double>(p + 8 * i, t.getDouble(i)); break;
    case eval::DType::I1: case eval::DType::U8: case eval::DType::I8: p[i] = (uint8_t)t.getInt(i); break;
    case eval::DType::I16: case eval::DType::U16: store<uint16_t>(p + 2 * i, (uint16_t)t.getInt(i)); break;
    case eval::DType::I32: case eval::DType::U32: store<uint32_t>(p + 4 * i, (uint32_t)t.getInt(i)); break;
    case eval::DType::I64: case eval::DType::U64: store<int64_t>(p + 8 * i, t.getInt(i)); break;
    }
  }
  return a;
}

static int fail(const std::string &msg) {
  llvm::errs() << "kiln-eval: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category});
  cl::ParseCommandLineOptions(argc, argv, "Kiln CPU reference evaluator\n");
  if (modelPath.empty())
    return fail("no input model");
  if (outputsPath.empty())
    return fail("--outputs FILE.npz is required");

  FrontendOptions options;
  options.modelPath = modelPath;
  options.optLevel = optLevel;
  options.inputValues.assign(inputValues.begin(), inputValues.end());
  options.precision = precision;
  std::string error;
  if (failed(checkPrecision(options.precision, error)))
    return fail(error);
  if (failed(parseInputShapes(inputShapes, options.inputShapes, error)))
    return fail(error);
  mlir::MLIRContext context;
  auto module = importAndOptimize(context, options, llvm::errs());
  if (!module)
    return 1;
  auto fn = module->lookupSymbol<mlir::func::FuncOp>("main");

  npy::NamedArrays given;
  if (!inputsPath.empty() && !npy::readNpz(inputsPath, given, error))
    return fail(error);

  std::vector<eval::Tensor> inputs;
  npy::NamedArrays used;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto name = fn.getArgAttrOfType<mlir::StringAttr>(i, "graph.name").getValue().str();
    auto type = llvm::cast<mlir::RankedTensorType>(fn.getArgument(i).getType());
    auto dtype = eval::dtypeFromMlir(type.getElementType());
    if (failed(dtype))
      return fail("input '" + name + "' has an element type the evaluator lacks");
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto &p) { return p.first == name; });
    if (it != given.end()) {
      if (llvm::ArrayRef<int64_t>(it->second.shape) != type.getShape())
        return fail(inputsPath + ": input '" + name + "' has shape " +
                    eval::describe(*dtype, it->second.shape) + " but the model expects " +
                    eval::describe(*dtype, type.getShape()));
      auto t = arrayToTensor(it->second, *dtype, error);
      if (!t)
        return fail(inputsPath + ": input '" + name + "' " + error);
      inputs.push_back(std::move(*t));
    } else if (randomFill || inputsPath.empty()) {
      inputs.push_back(eval::randomTensor(*dtype, type.getShape(), seed + i));
    } else {
      return fail(inputsPath + ": has no array for input '" + name + "' (use --random to generate it)");
    }
    used.emplace_back(name, tensorToArray(inputs.back()));
  }
  if (!saveInputs.empty() && !npy::writeNpz(saveInputs, used, error))
    return fail(error);

  // Evaluator errors are diagnostics at the failing op.
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    llvm::errs() << modelPath << ": error: evaluation failed: " << diag.str() << "\n";
    return mlir::success();
  });
  auto results = eval::evaluateFunction(fn, inputs);
  if (failed(results))
    return 1;
  npy::NamedArrays outs;
  for (unsigned i = 0; i < results->size(); ++i) {
    auto name = fn.getResultAttrOfType<mlir::StringAttr>(i, "graph.name");
    outs.emplace_back(name ? name.getValue().str() : "output_" + std::to_string(i),
                      tensorToArray((*results)[i]));
  }
  if (!npy::writeNpz(outputsPath, outs, error))
    return fail(error);
  return 0;
}
