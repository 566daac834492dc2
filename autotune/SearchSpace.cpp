//===- SearchSpace.cpp - Candidate configs per kernel kind ----------------===//
#include "autotune/SearchSpace.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>

namespace kiln::autotune {


std::optional<SearchLevel> parseSearchLevel(const std::string &text) {
  if (text == "default")
    return SearchLevel::Default;
  if (text == "max")
    return SearchLevel::Max;
  return std::nullopt;
}


PrunedSpace pruneSpace(const TuningConfig &baseline,
                       const std::vector<TuningConfig> &candidates,
                       const CandidateCheck &check) {
  PrunedSpace p;
  p.kept.push_back(baseline);
  for (const TuningConfig &c : candidates) {
    TuningConfig normalized;
    std::string why;
    if (!check(c, normalized, why)) {
      p.dropped.emplace_back(c, why);
      continue;
    }
    if (std::find(p.kept.begin(), p.kept.end(), normalized) == p.kept.end())
      p.kept.push_back(std::move(normalized));
  }
  return p;
}

double median(std::vector<double> ms) {
  if (ms.empty())
    return 0;
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

Choice chooseWinner(const std::vector<Measurement> &measurements) {
  std::vector<const Measurement *> valid;
  for (const Measurement &m : measurements)
    if (m.medianMs)
      valid.push_back(&m);
  std::sort(valid.begin(), valid.end(),
            [](const Measurement *a, const Measurement *b) {
              if (*a->medianMs != *b->medianMs)
                return *a->medianMs < *b->medianMs;
              return a->candidate < b->candidate;
            });
  Choice c;
  if (!valid.empty()) {
    c.winner = valid[0]->candidate;
    c.winnerMs = valid[0]->medianMs;
  }
  if (valid.size() > 1) {
    c.runnerUp = valid[1]->candidate;
    c.runnerUpMs = valid[1]->medianMs;
  }
  return c;
}

} // namespace kiln::autotune
