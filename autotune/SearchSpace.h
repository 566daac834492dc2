//===- SearchSpace.h - Search levels, pruning and the winner ----*- C++ -*-===//
//
// What autotuning does with a kind's candidate configs (each kind's space is
// in its folder of compiler/kernels): `Default` is a small subset around what
// usually wins, `Max` the full space. Validity is not decided here:
// pruneSpace asks a callback (the compiler's configureLaunch, the one source
// of truth for resource limits) to accept or refuse each candidate.
// chooseWinner makes the final choice from measured medians,
// deterministically.
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
