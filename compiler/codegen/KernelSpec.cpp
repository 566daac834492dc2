//===- KernelSpec.cpp - Launch descriptions as plain data -----------------===//
#include "compiler/codegen/KernelSpec.h"

#include <algorithm>
#include <cmath>

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
  if (spec.kind == "conv" && spec.inputs.size() >= 2 &&
      spec.inputs[1].rank() >= 2) {
    const auto &w = spec.inputs[1].shape;
    std::vector<int64_t> perOut(w.begin() + 1, w.end());
    return 2 * out * static_cast<uint64_t>(std::max<int64_t>(product(perOut), 0));
  }
  return 0;
}

uint64_t operandBytes(const LaunchSpec &spec) {
  uint64_t total = 0;
  for (const auto *list : {&spec.inputs, &spec.outputs})
    for (const BufferSpec &b : *list)
      total += static_cast<uint64_t>(std::max<int64_t>(b.bytes(), 0));
  return total;
}

} // namespace kiln::codegen
