//===- TuningCache.cpp - Reading and writing the tuning cache -------------===//
#include "autotune/TuningCache.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::autotune {

namespace {
constexpr const char *kHeader = "kiln-tuning-cache 1";

bool needsEscape(unsigned char c) {
  return c == '%' || c == ' ' || c == '|' || c == '=' ||
         c < 0x20 || c == 0x7f;
}

std::string escape(const std::string &s) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (needsEscape(c)) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

bool unescape(const std::string &s, std::string &out) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size())
      return false;
    const int hi = hexDigit(s[i + 1]), lo = hexDigit(s[i + 2]);
    if (hi < 0 || lo < 0)
      return false;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return true;
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

std::string printTensor(const TensorSignature &t) {
  std::string shape;
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += (i ? "x" : "") + std::to_string(t.shape[i]);
  return escape(t.dtype) + ":" + (shape.empty() ? "-" : shape) + ":" +
         std::to_string(t.alignment);
}

std::string printTensors(const std::vector<TensorSignature> &ts) {
  std::string out;
  for (size_t i = 0; i < ts.size(); ++i)
    out += (i ? "," : "") + printTensor(ts[i]);
  return out;
}

bool parseInt(const std::string &s, int64_t &v) {
  if (s.empty())
    return false;
  errno = 0;
  char *end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0')
    return false;
  v = x;
  return true;
}

bool parseTensors(const std::string &text, std::vector<TensorSignature> &out,
                  std::string &why) {
  out.clear();
  if (text.empty())
    return true;
  for (const std::string &part : split(text, ',')) {
    std::vector<std::string> f = split(part, ':');
    TensorSignature t;
    if (f.size() != 3 || !unescape(f[0], t.dtype) || t.dtype.empty() ||
        !parseInt(f[2], t.alignment) || t.alignment < 0) {
      why = "buffer '" + part + "' is not dtype:DxD...:alignment";
      return false;
    }
    if (f[1] != "-") {
      for (const std::string &d : split(f[1], 'x')) {
        int64_t v;
        if (!parseInt(d, v) || v < 0) {
          why = "buffer '" + part + "' has a bad shape";
          return false;
        }
        t.shape.push_back(v);
      }
    }
    out.push_back(std::move(t));
  }
  return true;
}

std::string printMs(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", ms);
  return buf;
}

bool parseMs(const std::string &s, double &v) {
  if (s.empty())
    return false;
  char *end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && v >= 0 && v == v;
}

/// Splits "key=value" at the first '='; both parts must be non-empty keys.
bool splitToken(const std::string &tok, std::string &key, std::string &value) {
  size_t eq = tok.find('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  key = tok.substr(0, eq);
  return unescape(tok.substr(eq + 1), value);
}

std::string entryLine(const TuningEntry &e) {
  std::string line = "entry " + e.signature.key() + " |";
  for (const auto &[k, v] : e.config)
    line += " " + escape(k) + "=" + escape(v);
  if (e.winnerMs || e.runnerUpMs) {
    line += " |";
    if (e.winnerMs)
      line += " winner_ms=" + printMs(*e.winnerMs);
    if (e.runnerUpMs)
      line += " runner_up_ms=" + printMs(*e.runnerUpMs);
  }
  return line;
}
} // namespace

std::string printConfig(const TuningConfig &config) {
  std::string out;
  for (const auto &[k, v] : config)
    out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string KernelSignature::key(bool withDriver) const {
  std::string k = "kind=" + escape(kind) + " arch=" + escape(toolchain.arch) +
                  " nvrtc=" + escape(toolchain.nvrtc);
  if (withDriver)
    k += " driver=" + escape(toolchain.driver);
  k += " in=" + printTensors(inputs) + " out=" + printTensors(outputs);
  for (const auto &[name, value] : attrs)
    k += " a." + escape(name) + "=" + escape(value);
  return k;
}

bool TuningCache::read(const std::string &path, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot open the tuning cache for reading";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, error);
}

bool TuningCache::parse(const std::string &text, const std::string &name,
                        std::string &error) {
  entries.clear();
  std::map<std::string, size_t> lineOf;
  bool sawHeader = false;
  size_t lineNo = 0;
  std::istringstream lines(text);
  std::string line;
  auto fail = [&](const std::string &what) {
    error = name + ":" + std::to_string(lineNo) + ": " + what;
    entries.clear();
    return false;
  };
  while (std::getline(lines, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    if (!sawHeader) {
      if (line != kHeader)
        return fail("not a Kiln tuning cache (the first line must be '" +
                    std::string(kHeader) + "')");
      sawHeader = true;
      continue;
    }
    if (line.rfind("entry ", 0) != 0)
      return fail("expected 'entry ...'");
    std::vector<std::string> parts = split(line.substr(6), '|');
    if (parts.size() < 2 || parts.size() > 3)
      return fail("an entry is 'signature | config [| times]'");
    TuningEntry e;
    KernelSignature &sig = e.signature;
    bool seen[6] = {};
    const char *required[6] = {"kind", "arch", "nvrtc", "driver", "in", "out"};
    for (const std::string &tok : split(parts[0], ' ')) {
      if (tok.empty())
        continue;
      std::string key, value, why;
      if (!splitToken(tok, key, value))
        return fail("bad signature token '" + tok + "' (key=value)");
      int slot = -1;
      for (int i = 0; i < 6; ++i)
        if (key == required[i])
          slot = i;
      if (slot >= 0) {
        if (seen[slot])
          return fail("signature repeats '" + key + "'");
        seen[slot] = true;
      }
      if (key == "kind")
        sig.kind = value;
      else if (key == "arch")
        sig.toolchain.arch = value;
      else if (key == "nvrtc")
        sig.toolchain.nvrtc = value;
      else if (key == "driver")
        sig.toolchain.driver = value;
      else if (key == "in" || key == "out") {
        // Buffer lists are not escaped as a whole: take the raw text.
        std::string raw = tok.substr(tok.find('=') + 1);
        if (!parseTensors(raw, key == "in" ? sig.inputs : sig.outputs, why))
          return fail(why);
      } else if (key.rfind("a.", 0) == 0 && key.size() > 2) {
        std::string attr;
        if (!unescape(key.substr(2), attr) ||
            !sig.attrs.emplace(attr, value).second)
          return fail("bad or repeated attribute '" + key + "'");
      } else {
        return fail("unknown signature key '" + key + "'");
      }
    }
    for (int i = 0; i < 6; ++i)
      if (!seen[i])
        return fail("the signature has no '" + std::string(required[i]) +
                    "'");
    if (sig.kind.empty())
      return fail("the signature's kind is empty");
    for (const std::string &tok : split(parts[1], ' ')) {
      if (tok.empty())
        continue;
      std::string key, value, k;
      if (!splitToken(tok, k, value) || !unescape(k, key) ||
          !e.config.emplace(key, value).second)
        return fail("bad or repeated config token '" + tok + "'");
    }
    if (e.config.empty())
      return fail("the entry has no tuning keys");
    if (parts.size() == 3) {
      for (const std::string &tok : split(parts[2], ' ')) {
        if (tok.empty())
          continue;
        std::string key, value;
        double ms;
        if (!splitToken(tok, key, value) || !parseMs(value, ms) ||
            (key != "winner_ms" && key != "runner_up_ms"))
          return fail("bad time '" + tok +
                      "' (winner_ms=MS or runner_up_ms=MS)");
        (key == "winner_ms" ? e.winnerMs : e.runnerUpMs) = ms;
      }
    }
    std::string k = sig.key();
    auto [it, fresh] = lineOf.emplace(k, lineNo);
    if (!fresh)
      return fail("a second entry for the signature of line " +
                  std::to_string(it->second));
    entries.emplace(k, std::move(e));
  }
  if (!sawHeader) {
    lineNo = lineNo ? lineNo : 1;
    return fail("not a Kiln tuning cache (no '" + std::string(kHeader) +
                "' line)");
  }
  return true;
}

std::string TuningCache::serialize() const {
  std::string out = std::string(kHeader) + "\n";
  for (const auto &[key, e] : entries)
    out += entryLine(e) + "\n";
  return out;
}

bool TuningCache::write(const std::string &path, std::string &error) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      error = tmp + ": cannot open for writing";
      return false;
    }
    out << serialize();
    out.flush();
    if (!out) {
      error = tmp + ": write failed";
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    error = path + ": cannot replace the tuning cache";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

const TuningEntry *TuningCache::lookup(const KernelSignature &sig,
                                       bool anyDriver) const {
  auto it = entries.find(sig.key());
  if (it != entries.end())
    return &it->second;
  if (!anyDriver)
    return nullptr;
  const std::string want = sig.key(/*withDriver=*/false);
  for (const auto &[key, e] : entries) // key order: the smallest match
    if (e.signature.key(false) == want)
      return &e;
  return nullptr;
}

void TuningCache::insert(TuningEntry entry) {
  std::string k = entry.signature.key();
  entries[k] = std::move(entry);
}

} // namespace kiln::autotune
