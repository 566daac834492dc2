//===- TuningKeys.cpp - Types and ranges of the tuning keys ---------------===//
#include "compiler/kernels/common/TuningKeys.h"

#include <charconv>
#include <cstring>
#include <iterator>

namespace kiln::codegen {

bool KeyInfo::checkText(const std::string &text, std::string &why) const {
  const std::string key = name;
  switch (type) {
  case KeyType::Name:
    if (!text.empty())
      return true;
    why = key + " needs a name, not an empty value";
    return false;
  case KeyType::Switch:
    if (text == "true" || text == "false")
      return true;
    why = key + "=" + text + ": " + key + " is true or false";
    return false;
  case KeyType::Count:
  case KeyType::Index:
  case KeyType::Version:
    break;
  }
  const int64_t lo = type == KeyType::Count ? 1 : 0;
  const int64_t hi = type == KeyType::Version ? INT32_MAX : 65536;
  int64_t v = 0;
  const char *first = text.data(), *last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last || v < lo || v > hi) {
    why = key + "=" + text + ": " + key + " is a whole number in [" +
          std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  return true;
}

const KeyInfo *findTuningKey(const std::string &name) {
#define KILN_KEY_INFO(n, type, family) &keys::n.info,
  static const KeyInfo *const all[] = {KILN_TUNING_KEYS(KILN_KEY_INFO)};
#undef KILN_KEY_INFO
  for (const KeyInfo *k : all)
    if (name == k->name)
      return k;
  return nullptr;
}

} // namespace kiln::codegen
