//===- Tuning.cpp - LaunchSpecs as the autotuner sees them ----------------===//
#include "compiler/kernels/Tuning.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace kiln::codegen {

std::string configValueText(const ConfigValue &v) {
  switch (v.kind) {
  case ConfigValue::Kind::Int:
    return std::to_string(v.i);
  case ConfigValue::Kind::Float: {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v.f);
    return buf;
  }
  case ConfigValue::Kind::Bool:
    return v.b ? "true" : "false";
  case ConfigValue::Kind::String:
    return v.s;
  case ConfigValue::Kind::Ints: {
    std::string out = "[";
    for (size_t i = 0; i < v.ints.size(); ++i)
      out += (i ? "," : "") + std::to_string(v.ints[i]);
    return out + "]";
  }
  }
  return "";
}

ConfigValue configValueFromText(const std::string &text) {
  if (!text.empty()) {
    errno = 0;
    char *end = nullptr;
    long long i = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0 && *end == '\0')
      return ConfigValue::ofInt(i);
  }
  if (text == "true" || text == "false")
    return ConfigValue::ofBool(text == "true");
  return ConfigValue::ofString(text);
}

bool tuningValueFromText(const std::string &kind, const std::string &key,
                         const std::string &text, ConfigValue &value,
                         std::string &why) {
  if (!tuningKeyNames(kind).count(key)) {
    why = "'" + key + "' is not a tuning key of " + kind;
    return false;
  }
  if (!findTuningKey(key)->checkText(text, why))
    return false;
  value = configValueFromText(text);
  return true;
}

autotune::KernelSignature kernelSignature(const LaunchSpec &spec,
                                          const autotune::Toolchain &toolchain) {
  autotune::KernelSignature sig;
  sig.kind = spec.kind;
  sig.toolchain = toolchain;
  auto buffers = [](const std::vector<BufferSpec> &bs) {
    std::vector<autotune::TensorSignature> out;
    for (const BufferSpec &b : bs)
      out.push_back({dtypeName(b.dtype), b.shape, b.alignment});
    return out;
  };
  sig.inputs = buffers(spec.inputs);
  sig.outputs = buffers(spec.outputs);
  const std::set<std::string> &keys = tuningKeyNames(spec.kind);
  // `in_place` (kiln-plan-memory's aliasing, which only drops __restrict__)
  // does not change what is measured: launches with and without it share
  // one cache entry and one measurement.
  for (const auto &[key, value] : spec.config.all())
    if (!keys.count(key) && key != "in_place")
      sig.attrs.emplace(key, configValueText(value));
  return sig;
}

autotune::TuningConfig tuningConfigOf(const LaunchSpec &spec) {
  autotune::TuningConfig out;
  for (const std::string &key : tuningKeyNames(spec.kind))
    if (const ConfigValue *v = spec.config.find(key))
      out.emplace(key, configValueText(*v));
  return out;
}

bool applyTuningConfig(LaunchSpec &spec, const autotune::TuningConfig &config,
                       const TargetOptions &target, std::string &error) {
  const std::set<std::string> &keys = tuningKeyNames(spec.kind);
  Config next;
  for (const auto &[key, value] : spec.config.all())
    if (!keys.count(key))
      next.set(key, value);
  for (const auto &[key, text] : config) {
    ConfigValue value;
    std::string why;
    if (!tuningValueFromText(spec.kind, key, text, value, why)) {
      error = "launch @" + spec.name + " (" + spec.kind + "): " + why;
      return false;
    }
    next.set(key, std::move(value));
  }
  LaunchSpec trial = spec;
  trial.config = std::move(next);
  if (!configureLaunch(trial, error, target))
    return false;
  spec = std::move(trial);
  return true;
}

autotune::PrunedSpace tuningCandidates(const LaunchSpec &configured,
                                       autotune::SearchLevel level,
                                       const TargetOptions &target) {
  std::vector<autotune::TuningConfig> space =
      searchSpace(configured.kind, level, target.arch);
  // cuBLASLt where the autotuner found it: its heuristic's first four
  // answers (all eight at max), each a candidate like any kernel.
  if (configured.kind == "matmul" && !target.cublasLtVersion.empty())
    for (int a = 0; a < (level == autotune::SearchLevel::Max ? 8 : 4); ++a)
      space.push_back({{keys::path.name(), "cublaslt"}, {keys::algo.name(), std::to_string(a)}});
  return autotune::pruneSpace(
      tuningConfigOf(configured), space,
      [&](const autotune::TuningConfig &candidate,
          autotune::TuningConfig &normalized, std::string &why) {
        LaunchSpec trial = configured;
        if (!applyTuningConfig(trial, candidate, target, why))
          return false;
        normalized = tuningConfigOf(trial);
        return true;
      });
}

} // namespace kiln::codegen
