//===- SearchSpace.h - Candidate configs per kernel kind --------*- C++ -*-===//
//
// The configurations autotuning may try for a launch, per kind, in a fixed
// order: `Default` a small subset around what usually wins, `Max` the full
// space. Validity is not decided here: pruneSpace asks a callback (the
// compiler's configureLaunch, the one source of truth for resource limits)
// to accept or refuse each candidate. chooseWinner makes the final choice
// from measured medians, deterministically.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOTUNE_SEARCHSPACE_H
#define KILN_AUTOTUNE_SEARCHSPACE_H

#include "autotune/TuningCache.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::autotune {

enum class SearchLevel { Default, Max };

/// "default" or "max".
std::optional<SearchLevel> parseSearchLevel(const std::string &text);

/// The tuning keys of a kind (the keys a cache entry sets and a signature
/// leaves out); empty for kinds with nothing to tune.
const std::set<std::string> &tuningKeys(const std::string &kind);

/// The kinds that have tuning keys, in name order.
std::vector<std::string> tunableKinds();

/// Whether `text` has the type and range of `key`'s values: a name for
/// `path` and `variant`, true or false for the switches (stage_out, tma,
/// pingpong, tma_store, stream_k, swap_ab, epi_regs), a whole number for
/// the rest (from 0 for cuBLASLt's `algo` and `lt_version`, from 1 for
/// tiles, stages, splits and counts, at most 65536; lt_version up to
/// 2^31 - 1). False with `why` naming the key and the value. Whether a
/// value suits a launch is the compiler's configureLaunch to judge; this
/// keeps values it would compute with (tile_m = 0 divides) out of it.
bool checkTuningValue(const std::string &key, const std::string &text,
                      std::string &why);

/// The unpruned candidates of `kind` on `arch` (wgmma ones only where the
/// arch has it), in a fixed order; empty for kinds with nothing to tune.
std::vector<TuningConfig> searchSpace(const std::string &kind,
                                      SearchLevel level,
                                      const std::string &arch);

/// Judges one candidate: true to keep it, with `normalized` set to the full
/// config it denotes (defaults filled in) so that duplicates collapse; false
/// with `why` to drop it.
using CandidateCheck = std::function<bool(
    const TuningConfig &candidate, TuningConfig &normalized, std::string &why)>;

struct PrunedSpace {
  /// Accepted candidates, normalized, first occurrence order.
  std::vector<TuningConfig> kept;
  /// Refused candidates with the reason.
  std::vector<std::pair<TuningConfig, std::string>> dropped;
};

/// `baseline` (the heuristic's config, already valid) first, then every
/// candidate `check` accepts whose normalized config is new.
PrunedSpace pruneSpace(const TuningConfig &baseline,
                       const std::vector<TuningConfig> &candidates,
                       const CandidateCheck &check);

/// Median of `ms` (mean of the middle two for an even count); 0 if empty.
double median(std::vector<double> ms);

/// One candidate's outcome: its index in the pruned space and, when it ran
/// and matched the baseline's output, its median time.
/// The family of a candidate: its path, tile shape and thread layout
/// (path, tile_m, tile_n, warps_m, warps_n, warpgroups, tma, variant,
/// block_m); the other keys (stages, split_k, tile_k, group_m, vec, ...)
/// refine a family. The staged search measures one member per family first.
std::string configFamily(const TuningConfig &config);

struct Measurement {
  size_t candidate = 0;
  std::optional<double> medianMs; ///< empty: failed, crashed or wrong
};

struct Choice {
  std::optional<size_t> winner, runnerUp; ///< candidate indices
  std::optional<double> winnerMs, runnerUpMs;
};

/// The fastest valid candidates: lower median wins, equal medians go to the
/// lower candidate index (the baseline is 0), so the choice is repeatable.
Choice chooseWinner(const std::vector<Measurement> &measurements);

} // namespace kiln::autotune

#endif // KILN_AUTOTUNE_SEARCHSPACE_H
