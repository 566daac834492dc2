//===- Emit.cpp - Index-map kernels: elementwise, transpose, slice, trilu===//
//
// Elementwise, fused elementwise, transpose, slice and trilu: one strided
// read per input and output element. Each thread handles `vec` consecutive outputs with vector
// loads and stores where IndexSpace says that is legal.
//
//===----------------------------------------------------------------------===//
#include "compiler/kernels/elementwise/Elementwise.h"
#include "compiler/kernels/common/EmitterSupport.h"
#include "compiler/evaluator/HalfBits.h"


#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace kiln::codegen::cuda {

namespace {

std::string T(DType t) { return cudaTypeName(t); }

/// C function names of the compute type of a float dtype.
std::string fn(const char *name, DType t) {
  return t == DType::F64 ? std::string(name) : std::string(name) + "f";
}

/// The value of elementwise op `op` on the operand expressions `x` (storage
/// types of the inputs), as an expression of the output's storage type.
bool elementwiseExpr(const LaunchSpec &s, const std::vector<std::string> &x,
                     std::string &expr, std::string &why) {
  const std::string op = s.config.getString("op");
  const DType out = s.outputs[0].dtype;
  const DType in = s.inputs[0].dtype;
  auto cv = [&](int i) { return "kiln::to_compute(" + x[i] + ")"; };
  auto fc = [&](const std::string &e) {
    return "kiln::from_compute<" + T(out) + ">(" + e + ")";
  };
  const std::string C = computeTypeName(in);

  if (op == "copy") {
    expr = x[0];
    return true;
  }
  if (op == "cast") {
    expr = "kiln::convert<" + T(out) + ">::from(" + x[0] + ")";
    return true;
  }
  if (op == "where") {
    expr = "(" + x[0] + " ? " + x[1] + " : " + x[2] + ")";
    return true;
  }
  static const std::set<std::string> compares = {
      "equal", "less", "less_or_equal", "greater", "greater_or_equal"};
  if (compares.count(op)) {
    std::string sym = op == "equal"           ? "=="
                      : op == "less"          ? "<"
                      : op == "less_or_equal" ? "<="
                      : op == "greater"       ? ">"
                                              : ">=";
    if (isFloat(in))
      expr = "(" + cv(0) + " " + sym + " " + cv(1) + ")";
    else
      expr = "(" + x[0] + " " + sym + " " + x[1] + ")";
    return true;
  }
  if (op == "and" || op == "or" || op == "xor") {
    std::string sym = op == "and" ? "&&" : op == "or" ? "||" : "!=";
    expr = "(" + x[0] + " " + sym + " " + x[1] + ")";
    return true;
  }
  if (op == "not") {
    expr = "(!" + x[0] + ")";
    return true;
  }
  if (op == "is_nan") {
    expr = "(" + cv(0) + " != " + cv(0) + ")";
    return true;
  }
  if (op == "pow") {
    DType e = s.inputs[1].dtype;
    if (isFloat(in)) {
      std::string ex =
          isFloat(e) && (e == in || (in != DType::F64 && e != DType::F64))
              ? cv(1)
              : "static_cast<" + C + ">(kiln::as_double(" + x[1] + "))";
      expr = fc(fn("pow", in) + "(" + cv(0) + ", " + ex + ")");
    } else if (isFloat(e)) {
      expr = "kiln::float_to_int<" + T(out) + ">(pow(kiln::as_double(" + x[0] +
             "), kiln::as_double(" + x[1] + ")))";
    } else {
      expr = "kiln::op::ipow<" + T(in) + ", " + T(e) + ">(" + x[0] + ", " +
             x[1] + ")";
    }
    return true;
  }
  static const std::map<std::string, std::pair<std::string, std::string>>
      arith = {// op: {float form (a, b as compute values), integer helper}
               {"add", {"(A + B)", "iadd"}},
               {"sub", {"(A - B)", "isub"}},
               {"mul", {"(A * B)", "imul"}},
               {"div", {"(A / B)", "idiv"}},
               {"max", {"kiln::op::fmax_nan(A, B)", "imax"}},
               {"min", {"kiln::op::fmin_nan(A, B)", "imin"}}};
  if (auto it = arith.find(op); it != arith.end()) {
    if (isFloat(in)) {
      std::string f = it->second.first;
      f.replace(f.find('A'), 1, cv(0));
      f.replace(f.find('B'), 1, cv(1));
      expr = fc(f);
    } else {
      expr = "kiln::op::" + it->second.second + "<" + T(in) + ">(" + x[0] +
             ", " + x[1] + ")";
    }
    return true;
  }

  // Unary math.
  if (isInteger(in)) {
    if (op == "neg" || op == "abs" || op == "relu") {
      std::string f = op == "neg" ? "ineg" : op == "abs" ? "iabs" : "irelu";
      expr = "kiln::op::" + f + "<" + T(in) + ">(" + x[0] + ")";
      return true;
    }
    if (op == "clip") {
      const double inf = std::numeric_limits<double>::infinity();
      int64_t lo = castFloatToInt(in, s.config.getFloat("min", -inf));
      int64_t hi = castFloatToInt(in, s.config.getFloat("max", inf));
      std::string l = isUnsignedInt(in)
                          ? std::to_string(static_cast<uint64_t>(lo)) + "ULL"
                          : intLiteral(lo);
      std::string h = isUnsignedInt(in)
                          ? std::to_string(static_cast<uint64_t>(hi)) + "ULL"
                          : intLiteral(hi);
      expr = "kiln::op::clip<" + T(in) + ">(" + x[0] + ", static_cast<" +
             T(in) + ">(" + l + "), static_cast<" + T(in) + ">(" + h + "))";
      return true;
    }
    why = "op '" + op + "' needs a float operand";
    return false;
  }
  if (!isFloat(in)) {
    why = "op '" + op + "' is not defined on " + std::string(dtypeName(in));
    return false;
  }
  const std::string v = cv(0);
  static const std::set<std::string> calls = {
      "sqrt", "exp", "log", "erf", "tanh", "sin", "cos", "floor", "ceil"};
  std::string body;
  if (calls.count(op))
    body = fn(op.c_str(), in) + "(" + v + ")";
  else if (op == "reciprocal")
    body = "(" + computeLiteral(1.0, in) + " / " + v + ")";
  else if (op == "neg")
    body = "(-" + v + ")";
  else if (op == "abs")
    body = fn("fabs", in) + "(" + v + ")";
  else if (op == "relu" || op == "sigmoid")
    body = "kiln::op::" + op + "(" + v + ")";
  else if (op == "gelu") {
    std::string approx = s.config.getString("approximate", "none");
    if (approx != "none" && approx != "tanh") {
      why = "unknown gelu approximation '" + approx + "'";
      return false;
    }
    body = std::string("kiln::op::") +
           (approx == "tanh" ? "gelu_tanh" : "gelu") + "(" + v + ")";
  } else if (op == "leaky_relu") {
    std::string a = computeLiteral(s.config.getFloat("alpha", 0.01), in);
    body = "([&] { const " + C + " t = " + v + "; return t >= " + C +
           "(0) ? t : " + a + " * t; }())";
  } else if (op == "clip") {
    const double inf = std::numeric_limits<double>::infinity();
    std::string lo = "kiln::round_const<" + T(in) + ">(" +
                     floatLiteral(s.config.getFloat("min", -inf), false) + ")";
    std::string hi = "kiln::round_const<" + T(in) + ">(" +
                     floatLiteral(s.config.getFloat("max", inf), false) + ")";
    body = "kiln::op::clip<" + C + ">(" + v + ", " + lo + ", " + hi + ")";
  } else {
    why = "unknown elementwise op '" + op + "'";
    return false;
  }
  expr = fc(body);
  return true;
}

/// The loop shared by every index-map kernel: `space` (collapsed, output
/// access last), `vec` outputs per item, and `valueOf(operands, col)` giving
/// the stored value from the per-input operand expressions and the innermost
/// coordinate expression (`coords`: the value also reads the coordinates
/// c0, c1, ... by name).
///
/// Each thread handles `unroll` items per pass of a grid-stride loop, item u
/// at t + u * BLOCK (a warp's accesses stay contiguous), and issues the loads
/// of all of them before it computes and stores any, so several independent
/// vector loads are in flight per thread. `unroll` follows from the geometry
/// (Heuristics.cpp sizes the grid for it): ceil(items / threads), at most
/// kMaxUnroll; any grid is still correct.
/// What an item stores: statements computing the values (`prelude`, may be
/// empty), then one expression per output.
struct Stored {
  std::string prelude;
  std::vector<std::string> values;
};

template <class StoredFn>
void emitIndexMapStored(std::ostringstream &os, const LaunchSpec &s,
                        const IndexSpace &space, int64_t vec,
                        const std::string &entry, StoredFn storedOf,
                        bool coords = false) {
  constexpr int64_t kMaxUnroll = 4;
  IndexType it = indexTypeFor(s);
  const size_t rank = space.shape.size();
  const int64_t items = space.numElements() / vec;
  const int64_t block = s.block[0];
  const int64_t threads = std::max<int64_t>(1, s.grid[0] * block);
  const int64_t unroll =
      std::clamp<int64_t>((items + threads - 1) / threads, 1, kMaxUnroll);
  const std::string U = std::to_string(unroll);
  const std::string tile = std::to_string(block * unroll);
  os << "extern \"C\" __global__ void __launch_bounds__(" << block << ") "
     << entry << "(" << kernelParams(s) << ") {\n";
  os << "  constexpr kiln::i64 kItems = " << intLiteral(items) << ";\n";
  os << "  for (kiln::i64 t = static_cast<kiln::i64>(blockIdx.x) * " << tile
     << " + threadIdx.x; t < kItems;\n"
     << "       t += static_cast<kiln::i64>(gridDim.x) * " << tile << ") {\n";
  // The item's first output `o` and its coordinates.
  auto locate = [&](const std::string &indent) {
    os << indent << "const " << it.name() << " o = static_cast<" << it.name()
       << ">(g)" << (vec > 1 ? " * " + std::to_string(vec) : "") << ";\n";
    emitUnravel(os, indent, it, "o", space.shape, "c");
  };
  auto itemLoop = [&]() {
    os << "#pragma unroll\n";
    os << "    for (int u = 0; u < " << U << "; ++u) {\n";
    os << "      const kiln::i64 g = t + u * " << block << ";\n";
    os << "      if (g < kItems) {\n";
  };
  // Phase 1: every item's loads.
  std::vector<bool> vector(s.inputs.size());
  for (size_t k = 0; k < s.inputs.size(); ++k) {
    vector[k] = vec > 1 && space.accesses[k].strides.back() == 1;
    if (vector[k])
      os << "    kiln::Vec<" << T(s.inputs[k].dtype) << ", " << vec << "> v"
         << k << "[" << U << "];\n";
    else
      os << "    " << T(s.inputs[k].dtype) << " s" << k << "[" << U << "];\n";
  }
  itemLoop();
  locate("        ");
  for (size_t k = 0; k < s.inputs.size(); ++k) {
    std::string off = offsetExpr(it, space.accesses[k], "c");
    if (vector[k])
      os << "        v" << k << "[u] = kiln::load_vec<" << vec << ">(in" << k
         << " + (" << off << "));\n";
    else
      os << "        s" << k << "[u] = in" << k << "[" << off << "];\n";
  }
  os << "      }\n    }\n";
  // Phase 2: values and stores.
  itemLoop();
  if (coords) {
    locate("        ");
  } else {
    os << "        const " << it.name() << " o = static_cast<" << it.name()
       << ">(g)" << (vec > 1 ? " * " + std::to_string(vec) : "") << ";\n";
  }
  const std::string col = "c" + std::to_string(rank - 1);
  std::vector<std::string> x;
  for (size_t k = 0; k < s.inputs.size(); ++k)
    x.push_back(vector[k] ? "v" + std::to_string(k) + "[u][e]"
                          : "s" + std::to_string(k) + "[u]");
  if (vec == 1) {
    Stored st = storedOf(x, col);
    os << st.prelude;
    for (size_t k = 0; k < st.values.size(); ++k)
      os << "        out" << k << "[o] = " << st.values[k] << ";\n";
  } else {
    Stored st = storedOf(x, "(" + col + " + e)");
    for (size_t k = 0; k < st.values.size(); ++k)
      os << "        kiln::Vec<" << T(s.outputs[k].dtype) << ", " << vec
         << "> r" << k << ";\n";
    os << "#pragma unroll\n";
    os << "        for (int e = 0; e < " << vec << "; ++e) {\n" << st.prelude;
    for (size_t k = 0; k < st.values.size(); ++k)
      os << "          r" << k << "[e] = " << st.values[k] << ";\n";
    os << "        }\n";
    for (size_t k = 0; k < st.values.size(); ++k)
      os << "        kiln::store_vec<" << vec << ">(out" << k << " + o, r" << k
         << ");\n";
  }
  os << "      }\n    }\n  }\n}\n";
}

/// One output: `valueOf(x, col)` is the stored expression.
template <class ValueFn>
void emitIndexMap(std::ostringstream &os, const LaunchSpec &s,
                  const IndexSpace &space, int64_t vec,
                  const std::string &entry, ValueFn valueOf,
                  bool coords = false) {
  emitIndexMapStored(
      os, s, space, vec, entry,
      [&](const std::vector<std::string> &x, const std::string &col) {
        return Stored{"", {valueOf(x, col)}};
      },
      coords);
}

} // namespace

bool fusedProgramStatements(const std::vector<FusedStep> &steps,
                            const std::vector<std::string> &x,
                            const std::vector<DType> &xt,
                            const std::string &indent, std::string &code,
                            std::string &why) {
  code.clear();
  auto literalOf = [&](const FusedStep::Arg &a) -> const ConfigValue * {
    return a.input || steps[a.index].op != "const"
               ? nullptr
               : steps[a.index].attrs.find("value");
  };
  for (size_t j = 0; j < steps.size(); ++j) {
    const std::string tj =
        indent + "const " + T(steps[j].dtype) + " t" + std::to_string(j) + " = ";
    // A literal (a one-element constant of the model).
    if (steps[j].op == "const") {
      const ConfigValue *v = steps[j].attrs.find("value");
      if (!v || !steps[j].args.empty()) {
        why = "step " + std::to_string(j) + ": const takes a value and no operands";
        return false;
      }
      double d = v->kind == ConfigValue::Kind::Float ? v->f : double(v->i);
      const DType dt = steps[j].dtype;
      std::string e =
          dt == DType::F16 || dt == DType::BF16
              ? T(dt) + "{" +
                    std::to_string(dt == DType::BF16
                                       ? eval::floatToBF16Bits(static_cast<float>(d))
                                       : eval::floatToHalfBits(static_cast<float>(d))) +
                    "}"
          : isFloat(dt) ? "kiln::from_compute<" + T(dt) + ">(" +
                              computeLiteral(d, dt) + ")"
                      : dt == DType::Bool
                          ? std::string(d != 0 ? "true" : "false")
                          : "static_cast<" + T(dt) + ">(" +
                                intLiteral(static_cast<int64_t>(d)) + ")";
      code += tj + e + ";";
      continue;
    }
    // x^2 and x^3 by a literal exponent: products in the compute type
    // instead of the general powf.
    if (steps[j].op == "pow" && steps[j].args.size() == 2 &&
        isFloat(steps[j].dtype)) {
      const FusedStep::Arg &base = steps[j].args[0];
      const DType bt = base.input ? xt[base.index] : steps[base.index].dtype;
      const ConfigValue *e = literalOf(steps[j].args[1]);
      double d = e ? (e->kind == ConfigValue::Kind::Float ? e->f : double(e->i)) : 0;
      if (e && bt == steps[j].dtype && (d == 2.0 || d == 3.0)) {
        // The cube in double: exact for f16/bf16 operands, one rounding
        // from the evaluator's pow for f32.
        std::string xv = std::string(d == 3.0 ? "static_cast<double>(" : "(") +
                         "kiln::to_compute(" +
                         (base.input ? x[base.index]
                                     : "t" + std::to_string(base.index)) +
                         "))";
        std::string prod = xv + " * " + xv + (d == 3.0 ? " * " + xv : "");
        code += tj + "kiln::from_compute<" + T(steps[j].dtype) + ">(" + prod + ");";
        continue;
      }
    }
    // f16 add, sub and mul of two f16 values: one f16 instruction
    // (common.cuh's add_f16: the f32 operation's result rounded to f16).
    if ((steps[j].op == "add" || steps[j].op == "sub" ||
         steps[j].op == "mul") &&
        steps[j].args.size() == 2 && steps[j].dtype == DType::F16 &&
        steps[j].attrs.all().empty()) {
      bool halves = true;
      std::string ab[2];
      for (int k = 0; k < 2; ++k) {
        const FusedStep::Arg &a = steps[j].args[k];
        halves &= (a.input ? xt[a.index] : steps[a.index].dtype) == DType::F16;
        ab[k] = a.input ? x[a.index] : "t" + std::to_string(a.index);
      }
      if (halves) {
        code += tj + "kiln::" + steps[j].op + "_f16(" + ab[0] + ", " + ab[1] +
                ");";
        continue;
      }
    }
    // A one-op LaunchSpec gives elementwiseExpr the op, attrs and dtypes.
    LaunchSpec st;
    st.kind = "elementwise";
    st.config = steps[j].attrs;
    st.config.set("op", ConfigValue::ofString(steps[j].op));
    std::vector<std::string> args;
    for (const FusedStep::Arg &a : steps[j].args) {
      BufferSpec b;
      b.dtype = a.input ? xt[a.index] : steps[a.index].dtype;
      st.inputs.push_back(b);
      args.push_back(a.input ? x[a.index] : "t" + std::to_string(a.index));
    }
    BufferSpec o;
    o.dtype = steps[j].dtype;
    st.outputs.push_back(o);
    std::string e;
    if (!elementwiseExpr(st, args, e, why)) {
      why = "step " + std::to_string(j) + ": " + why;
      return false;
    }
    code += tj + e + ";";
  }
  return true;
}

static bool emitTiledTranspose(const LaunchSpec &s, const IndexSpace &space,
                               KernelSource &out, std::string &error);

bool emitElementwiseFamily(const LaunchSpec &s, KernelSource &out,
                           std::string &error) {
  int64_t vec = s.config.get(keys::vec, 1);
  IndexSpace space;
  std::string entry = "kiln_" + s.kind;
  if (s.kind == "elementwise") {
    space = collapse(broadcastSpace(s));
    entry = "kiln_" + s.config.getString("op");
  } else if (s.kind == "fused_elementwise") {
    space = collapse(broadcastSpace(s));
    entry = "kiln_fused";
  } else if (s.kind == "transpose") {
    space = collapse(transposeSpace(s));
    if (s.config.get(keys::variant, "index") == "tiled")
      return emitTiledTranspose(s, space, out, error);
  } else if (s.kind == "slice") {
    space = collapse(sliceSpace(s));
  } else {
    space = collapse(broadcastSpace(s), 2);
  }
  if (!vectorWidthLegal(space, vec))
    return emitError(s, error, "vec " + std::to_string(vec) + " is not legal");
  std::ostringstream os;
  os << kernelPrologue(s, {});
  if (s.kind == "elementwise") {
    std::string why;
    // Check the op once with placeholder operands.
    std::vector<std::string> probe(s.inputs.size(), "x");
    std::string expr;
    if (!elementwiseExpr(s, probe, expr, why))
      return emitError(s, error, why);
    emitIndexMap(os, s, space, vec, entry,
                 [&](const std::vector<std::string> &x, const std::string &) {
                   std::string e, w;
                   elementwiseExpr(s, x, e, w);
                   return e;
                 });
  } else if (s.kind == "fused_elementwise") {
    std::vector<FusedStep> steps;
    std::string why;
    if (!parseFusedProgram(s.config.getString("program"), s.inputs.size(),
                           steps, why))
      return emitError(s, error, why);
    std::vector<DType> xt;
    for (const BufferSpec &b : s.inputs)
      xt.push_back(b.dtype);
    std::string code;
    if (!fusedProgramStatements(steps, std::vector<std::string>(xt.size(), "x"),
                                xt, "", code, why))
      return emitError(s, error, why);
    if (s.config.has("outputs")) {
      // Several outputs: the program's statements once per element, then
      // each output's step (configureLaunch checked indices and dtypes).
      std::vector<int64_t> outs = s.config.getInts("outputs");
      emitIndexMapStored(
          os, s, space, vec, entry,
          [&](const std::vector<std::string> &x, const std::string &) {
            Stored st;
            std::string w;
            fusedProgramStatements(steps, x, xt, "          ", st.prelude, w);
            st.prelude += "\n";
            for (int64_t k : outs)
              st.values.push_back("t" + std::to_string(k));
            return st;
          });
      out.entry = entry;
      out.source = os.str();
      return true;
    }
    if (steps.back().dtype != s.outputs[0].dtype)
      return emitError(s, error, "the program's last step is not of the "
                                 "output's dtype");
    emitIndexMap(os, s, space, vec, entry,
                 [&](const std::vector<std::string> &x, const std::string &) {
                   std::string body, w;
                   fusedProgramStatements(steps, x, xt, " ", body, w);
                   return "([&]() {" + body + " return t" +
                          std::to_string(steps.size() - 1) + "; }())";
                 });
  } else if (s.kind == "trilu") {
    const size_t rank = space.shape.size();
    const std::string row = "c" + std::to_string(rank - 2);
    const std::string k = intLiteral(s.config.getInt("k"));
    const bool upper = s.config.getBool("upper");
    const std::string outT = T(s.outputs[0].dtype);
    emitIndexMap(
        os, s, space, vec, entry,
        [&](const std::vector<std::string> &x, const std::string &col) {
          std::string d = "(static_cast<kiln::i64>(" + col + ") - " + row + ")";
          return "(" + d + (upper ? " >= " : " <= ") + k + " ? " + x[0] +
                 " : " + outT + "{})";
        },
        /*coords=*/true);
  } else {
    emitIndexMap(os, s, space, vec, entry,
                 [](const std::vector<std::string> &x, const std::string &) {
                   return x[0];
                 });
  }
  out.entry = entry;
  out.source = os.str();
  return true;
}

/// A transpose through 32x32 shared-memory tiles (TransposeTiles): a block
/// of 32 x 8 threads per tile reads rows along the input's contiguous axis,
/// then writes rows along the output's.
static bool emitTiledTranspose(const LaunchSpec &s, const IndexSpace &space,
                               KernelSource &out, std::string &error) {
  TransposeTiles t;
  if (!transposeTiles(space, t))
    return emitError(s, error,
                     "the tiled variant needs an innermost output axis strided "
                     "in the input");
  if (s.block[0] != 32 || s.block[1] != 8 || s.block[2] != 1)
    return emitError(s, error, "the tiled transpose needs a 32x8 block");
  IndexType it = indexTypeFor(s);
  const std::string I = it.name(), Ty = T(s.outputs[0].dtype);
  const int64_t ta = (t.da + 31) / 32, tc = (t.dc + 31) / 32;
  std::ostringstream os;
  os << kernelPrologue(s, {});
  out.entry = "kiln_transpose";
  os << "extern \"C\" __global__ void __launch_bounds__(256) " << out.entry
     << "(" << kernelParams(s) << ") {\n";
  os << "  __shared__ " << Ty
     << " tile[32][33]; // +1: conflict-free column reads\n";
  os << "  for (kiln::i64 t = blockIdx.x; t < " << intLiteral(t.tiles)
     << "; t += gridDim.x) {\n";
  os << "    const " << I << " tc = static_cast<" << I << ">(t % "
     << intLiteral(tc) << ");\n";
  os << "    const " << I << " rest = static_cast<" << I << ">(t / "
     << intLiteral(tc) << ");\n";
  os << "    const " << I << " ta = rest % " << it.lit(ta) << ", b = rest / "
     << it.lit(ta) << ";\n";
  if (t.batchShape.empty()) {
    os << "    const " << I << " inBase = 0, outBase = 0;\n    (void)b;\n";
  } else {
    emitUnravel(os, "    ", it, "b", t.batchShape, "c");
    StridedAccess ia, oa;
    ia.strides = t.inBatchStrides;
    oa.strides = t.outBatchStrides;
    os << "    const " << I << " inBase = " << offsetExpr(it, ia, "c") << ";\n";
    os << "    const " << I << " outBase = " << offsetExpr(it, oa, "c")
       << ";\n";
  }
  os << "    const " << I << " a0 = ta * 32, k0 = tc * 32;\n";
  os << "    for (int j = threadIdx.y; j < 32; j += 8) {\n";
  os << "      const " << I << " a = a0 + threadIdx.x, k = k0 + j;\n";
  os << "      if (a < " << it.lit(t.da) << " && k < " << it.lit(t.dc)
     << ") tile[j][threadIdx.x] = in0[inBase + a + k * " << it.lit(t.inStrideC)
     << "];\n";
  os << "    }\n    __syncthreads();\n";
  os << "    for (int j = threadIdx.y; j < 32; j += 8) {\n";
  os << "      const " << I << " k = k0 + threadIdx.x, a = a0 + j;\n";
  os << "      if (a < " << it.lit(t.da) << " && k < " << it.lit(t.dc)
     << ") out0[outBase + a * " << it.lit(t.outStrideA)
     << " + k] = tile[threadIdx.x][j];\n";
  os << "    }\n    __syncthreads();\n  }\n}\n";
  out.source = os.str();
  return true;
}

} // namespace kiln::codegen::cuda
