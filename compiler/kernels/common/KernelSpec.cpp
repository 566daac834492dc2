//===- KernelSpec.cpp - Launch descriptions as plain data -----------------===//
#include "compiler/kernels/common/KernelSpec.h"
#include "compiler/kernels/common/Layouts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kiln::codegen {

unsigned dtypeBytes(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::Bool:
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 1;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}
bool isUnsignedInt(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 ||
         t == DType::U64;
}
bool isInteger(DType t) { return !isFloat(t) && t != DType::Bool; }

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::Bool:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "ui8";
  case DType::U16:
    return "ui16";
  case DType::U32:
    return "ui32";
  case DType::U64:
    return "ui64";
  }
  return "?";
}

const char *cudaTypeName(DType t) {
  switch (t) {
  case DType::F16:
    return "kiln::f16";
  case DType::BF16:
    return "kiln::bf16";
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  case DType::Bool:
    return "bool";
  case DType::I8:
    return "kiln::i8";
  case DType::I16:
    return "kiln::i16";
  case DType::I32:
    return "kiln::i32";
  case DType::I64:
    return "kiln::i64";
  case DType::U8:
    return "kiln::u8";
  case DType::U16:
    return "kiln::u16";
  case DType::U32:
    return "kiln::u32";
  case DType::U64:
    return "kiln::u64";
  }
  return "?";
}

ConfigValue ConfigValue::ofInt(int64_t v) {
  ConfigValue c;
  c.kind = Kind::Int;
  c.i = v;
  return c;
}
ConfigValue ConfigValue::ofFloat(double v) {
  ConfigValue c;
  c.kind = Kind::Float;
  c.f = v;
  return c;
}
ConfigValue ConfigValue::ofBool(bool v) {
  ConfigValue c;
  c.kind = Kind::Bool;
  c.b = v;
  return c;
}
ConfigValue ConfigValue::ofString(std::string v) {
  ConfigValue c;
  c.kind = Kind::String;
  c.s = std::move(v);
  return c;
}
ConfigValue ConfigValue::ofInts(std::vector<int64_t> v) {
  ConfigValue c;
  c.kind = Kind::Ints;
  c.ints = std::move(v);
  return c;
}

const ConfigValue *Config::find(const std::string &key) const {
  auto it = entries.find(key);
  return it == entries.end() ? nullptr : &it->second;
}

int64_t Config::getInt(const std::string &key, int64_t dflt) const {
  const ConfigValue *v = find(key);
  if (!v)
    return dflt;
  if (v->kind == ConfigValue::Kind::Bool)
    return v->b;
  return v->kind == ConfigValue::Kind::Int ? v->i : dflt;
}
double Config::getFloat(const std::string &key, double dflt) const {
  const ConfigValue *v = find(key);
  if (!v)
    return dflt;
  if (v->kind == ConfigValue::Kind::Int)
    return static_cast<double>(v->i);
  return v->kind == ConfigValue::Kind::Float ? v->f : dflt;
}
bool Config::getBool(const std::string &key, bool dflt) const {
  const ConfigValue *v = find(key);
  if (!v)
    return dflt;
  if (v->kind == ConfigValue::Kind::Int)
    return v->i != 0;
  return v->kind == ConfigValue::Kind::Bool ? v->b : dflt;
}
std::string Config::getString(const std::string &key,
                              const std::string &dflt) const {
  const ConfigValue *v = find(key);
  return v && v->kind == ConfigValue::Kind::String ? v->s : dflt;
}
std::vector<int64_t> Config::getInts(const std::string &key) const {
  const ConfigValue *v = find(key);
  return v && v->kind == ConfigValue::Kind::Ints ? v->ints
                                                 : std::vector<int64_t>{};
}

int64_t BufferSpec::numElements() const { return product(shape); }

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

int64_t product(const std::vector<int64_t> &dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

int64_t castFloatToInt(DType t, double v) {
  if (t == DType::Bool)
    return v != 0;
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  unsigned w = dtypeBytes(t) * 8;
  if (isUnsignedInt(t)) {
    if (v <= 0)
      return 0;
    if (v >= std::ldexp(1.0, w))
      return static_cast<int64_t>(w == 64 ? ~uint64_t(0)
                                          : (uint64_t(1) << w) - 1);
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  double lim = std::ldexp(1.0, w - 1);
  if (v >= lim)
    return static_cast<int64_t>((uint64_t(1) << (w - 1)) - 1);
  if (v <= -lim)
    return static_cast<int64_t>(~((uint64_t(1) << (w - 1)) - 1));
  return static_cast<int64_t>(v);
}

uint64_t estimateFlops(const LaunchSpec &spec) {
  if (spec.outputs.empty())
    return 0;
  auto out = static_cast<uint64_t>(spec.outputs[0].numElements());
  if (spec.kind == "matmul" && spec.inputs.size() >= 2 &&
      spec.inputs[0].rank() >= 2) {
    const auto &a = spec.inputs[0].shape;
    int64_t k = spec.config.getBool("trans_a") ? a[a.size() - 2] : a.back();
    return 2 * out * static_cast<uint64_t>(std::max<int64_t>(k, 0));
  }
  if (spec.kind == "attention") {
    // Q K^T and P V: 2 * Sq * Sk * (D + Dv) per batch.
    cuda::AttentionLayout l;
    std::string why;
    if (!cuda::attentionLayout(spec, l, why))
      return 0;
    // Causal (Sq == Sk): query i reads keys 0..i only.
    const int64_t pairs = spec.config.getBool("causal") && l.sq == l.sk
                              ? l.sq * (l.sq + 1) / 2
                              : l.sq * l.sk;
    return 2 * static_cast<uint64_t>(l.b0 * l.b1 * pairs) *
           static_cast<uint64_t>(l.d + l.dv);
  }
  if (spec.kind == "conv" && spec.inputs.size() >= 2 &&
      spec.inputs[1].rank() >= 2) {
    const auto &w = spec.inputs[1].shape;
    std::vector<int64_t> perOut(w.begin() + 1, w.end());
    return 2 * out * static_cast<uint64_t>(std::max<int64_t>(product(perOut), 0));
  }
  return 0;
}

uint64_t launchWorkspaceBytes(const LaunchSpec &spec) {
  const Config &c = spec.config;
  if (spec.kind != "matmul" || c.get(keys::path) != "wgmma" ||
      !c.get(keys::tma) || !c.get(keys::stream_k))
    return 0;
  return 4096 + static_cast<uint64_t>(spec.grid[0]) *
                    static_cast<uint64_t>(c.get(keys::tile_m)) *
                    static_cast<uint64_t>(c.get(keys::tile_n)) * 4;
}

uint64_t operandBytes(const LaunchSpec &spec) {
  uint64_t total = 0;
  for (const auto *list : {&spec.inputs, &spec.outputs})
    for (const BufferSpec &b : *list)
      total += static_cast<uint64_t>(std::max<int64_t>(b.bytes(), 0));
  return total;
}

bool dtypeFromName(const std::string &name, DType &out) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::Bool,
                  DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
                  DType::U16, DType::U32, DType::U64})
    if (name == dtypeName(t)) {
      out = t;
      return true;
    }
  return false;
}

std::string printFusedProgram(const std::vector<FusedStep> &steps) {
  std::string out;
  for (size_t j = 0; j < steps.size(); ++j) {
    const FusedStep &st = steps[j];
    if (j)
      out += "; ";
    out += "t" + std::to_string(j) + " = " + st.op;
    if (!st.attrs.all().empty()) {
      out += "{";
      bool first = true;
      for (const auto &[k, v] : st.attrs.all()) {
        out += (first ? "" : ",") + k + "=";
        first = false;
        if (v.kind == ConfigValue::Kind::String) {
          out += v.s;
        } else {
          char buf[40];
          std::snprintf(buf, sizeof buf, "%.17g",
                        v.kind == ConfigValue::Kind::Float ? v.f
                                                           : double(v.i));
          out += buf;
        }
      }
      out += "}";
    }
    out += "(";
    for (size_t a = 0; a < st.args.size(); ++a)
      out += (a ? ", " : "") + std::string(st.args[a].input ? "i" : "t") +
             std::to_string(st.args[a].index);
    out += ") : ";
    out += dtypeName(st.dtype);
  }
  return out;
}

namespace {
std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
} // namespace

bool parseFusedProgram(const std::string &text, size_t numInputs,
                       std::vector<FusedStep> &steps, std::string &error) {
  steps.clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(';', pos);
    std::string stmt =
        trim(text.substr(pos, end == std::string::npos ? end : end - pos));
    pos = end == std::string::npos ? text.size() + 1 : end + 1;
    auto bad = [&](const std::string &why) {
      error = "fused program step " + std::to_string(steps.size()) + " ('" +
              stmt + "'): " + why;
      return false;
    };
    std::string want = "t" + std::to_string(steps.size()) + " =";
    if (stmt.compare(0, want.size(), want) != 0)
      return bad("expected '" + want + "'");
    std::string rest = trim(stmt.substr(want.size()));
    size_t colon = rest.rfind(':');
    if (colon == std::string::npos)
      return bad("expected ': <dtype>'");
    FusedStep st;
    if (!dtypeFromName(trim(rest.substr(colon + 1)), st.dtype))
      return bad("unknown dtype");
    std::string call = trim(rest.substr(0, colon));
    size_t open = call.find('(');
    if (open == std::string::npos || call.back() != ')')
      return bad("expected 'op(args)'");
    std::string head = call.substr(0, open);
    size_t brace = head.find('{');
    st.op = trim(head.substr(0, brace));
    if (st.op.empty())
      return bad("no op name");
    if (brace != std::string::npos) {
      if (head.back() != '}')
        return bad("unterminated attributes");
      std::string attrs = head.substr(brace + 1, head.size() - brace - 2);
      size_t ap = 0;
      while (ap < attrs.size()) {
        size_t comma = attrs.find(',', ap);
        std::string kv = attrs.substr(ap, comma == std::string::npos ? comma : comma - ap);
        ap = comma == std::string::npos ? attrs.size() : comma + 1;
        size_t eq = kv.find('=');
        if (eq == std::string::npos)
          return bad("attribute without '='");
        std::string k = trim(kv.substr(0, eq)), v = trim(kv.substr(eq + 1));
        char *endp = nullptr;
        double d = std::strtod(v.c_str(), &endp);
        if (!v.empty() && endp && *endp == '\0')
          st.attrs.set(k, ConfigValue::ofFloat(d));
        else
          st.attrs.set(k, ConfigValue::ofString(v));
      }
    }
    std::string args = call.substr(open + 1, call.size() - open - 2);
    size_t ap = 0;
    while (!trim(args).empty() && ap <= args.size()) {
      size_t comma = args.find(',', ap);
      std::string a = trim(args.substr(ap, comma == std::string::npos ? comma : comma - ap));
      ap = comma == std::string::npos ? args.size() + 1 : comma + 1;
      if (a.size() < 2 || (a[0] != 'i' && a[0] != 't'))
        return bad("bad operand '" + a + "'");
      char *endp = nullptr;
      long idx = std::strtol(a.c_str() + 1, &endp, 10);
      if (!endp || *endp != '\0' || idx < 0)
        return bad("bad operand '" + a + "'");
      FusedStep::Arg arg{a[0] == 'i', static_cast<int>(idx)};
      if (arg.input ? static_cast<size_t>(idx) >= numInputs
                    : static_cast<size_t>(idx) >= steps.size())
        return bad("operand '" + a + "' is not defined before");
      st.args.push_back(arg);
    }
    steps.push_back(std::move(st));
  }
  if (steps.empty()) {
    error = "empty fused program";
    return false;
  }
  return true;
}

bool outputCountValid(const LaunchSpec &spec) {
  return spec.outputs.size() == 1 ||
         (spec.kind == "fused_elementwise" && spec.config.has("outputs") &&
          !spec.outputs.empty());
}

} // namespace kiln::codegen
