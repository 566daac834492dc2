//===- TuningCache.h - Chosen kernel configs keyed by signature -*- C++ -*-===//
//
// The tuning cache: a text file of entries, one a line, each keyed by a
// kernel signature (kind, buffers, the launch's non-tuning config keys, GPU
// arch, NVRTC and driver versions) and holding the chosen tuning keys plus,
// when measured, the winner's and runner-up's median times.
//
//   kiln-tuning-cache 1
//   entry kind=matmul arch=sm_90 nvrtc=13.0 driver=none
//     in=f16:128x768:16,f16:768x3072:256 out=f16:128x3072:256
//     a.trans_a=false a.trans_b=false | path=mma split_k=1 stages=3
//     | winner_ms=0.0123 runner_up_ms=0.0150
//
// (one line in the file). Tokens are key=value separated by single spaces;
// values are percent-encoded ('%', ' ', '|', '=' and control characters),
// so any config text round-trips. Lines starting with '#' and blank lines
// are ignored. Writing sorts entries by signature (and keys within), so the
// same cache always gives a byte-identical file.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_TUNINGCACHE_H
#define KILN_AUTOTUNE_TUNINGCACHE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::autotune {

/// Tuning keys and their values as text: integers in decimal, booleans
/// "true"/"false", anything else a string (kilnc --set's convention).
using TuningConfig = std::map<std::string, std::string>;

/// "key=value key=value" in key order (for messages and --explain-tuning).
std::string printConfig(const TuningConfig &config);

/// One buffer of a kernel: dtype name ("f16"), shape, known alignment.
struct TensorSignature {
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t alignment = 0;
};

/// The versions a measurement depends on beyond the kernel itself.
struct Toolchain {
  std::string arch = "sm_90";
  std::string nvrtc = "none";  ///< "13.0"; "none" when NVRTC is unavailable
  std::string driver = "none"; ///< cuDriverGetVersion ("13000") or "none"
};

/// What a tuning choice depends on.
struct KernelSignature {
  std::string kind;
  std::vector<TensorSignature> inputs, outputs;
  /// The launch's config keys that are not tuning keys (layout and op facts
  /// the heuristics read: trans_a, perm, axis, program, ...), as text.
  std::map<std::string, std::string> attrs;
  Toolchain toolchain;

  /// The canonical text of the signature (the cache's key; no driver when
  /// `withDriver` is false).
  std::string key(bool withDriver = true) const;
};

struct TuningEntry {
  KernelSignature signature;
  TuningConfig config;
  std::optional<double> winnerMs, runnerUpMs;
};

class TuningCache {
public:
  /// Reads `path`; on a malformed file `error` is "path:line: what".
  bool read(const std::string &path, std::string &error);
  /// Parses cache text; `name` is the file named in errors.
  bool parse(const std::string &text, const std::string &name,
             std::string &error);
  /// The file's text: header, then entries sorted by signature key.
  std::string serialize() const;
  /// Writes serialize() to `path` (through a temporary file).
  bool write(const std::string &path, std::string &error) const;

  /// The entry for `sig`. An exact match wins; with `anyDriver`, an entry
  /// that differs only in the driver version is taken too (the smallest
  /// such key, so the choice is deterministic).
  const TuningEntry *lookup(const KernelSignature &sig, bool anyDriver) const;
  /// Adds or replaces the entry of `entry.signature`.
  void insert(TuningEntry entry);

  size_t size() const { return entries.size(); }
  const std::map<std::string, TuningEntry> &all() const { return entries; }

private:
  std::map<std::string, TuningEntry> entries; ///< by signature key
};

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_TUNINGCACHE_H
