// The Mann-Whitney U test (Wilcoxon rank-sum) that `pacer report --compare`
// uses to tell a change from the run-to-run noise (issue 28, docs/output.md):
// does the candidate's sample tend to be larger than the baseline's? Exact for
// small samples (the U distribution counted without ties: every split of the
// ranks), the normal approximation with a tie correction and a continuity
// correction beyond that. Pure; any thread.
#pragma once

#include <cstddef>
#include <vector>

namespace pacer::report {

struct RankTest {
  double u = 0;            // U of the candidate: pairs (b, c) with c > b, ties counting 1/2
  double p_greater = 1;    // one-sided p-value: P(U >= u) under "no difference"
  double p_less = 1;       // one-sided p-value: P(U <= u)
  bool exact = false;      // from the exact distribution (no ties, n1 * n2 small)
  // Every candidate value above every baseline value (or below): the strongest order.
  bool all_greater = false;
  bool all_less = false;
};

// Above this many pairs (n1 x n2) the normal approximation is used.
inline constexpr std::size_t kExactPairs = 400;

// The median of `values` (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> values);

// Nullopt-free: with an empty side the p-values are 1 (nothing to judge).
RankTest mann_whitney(const std::vector<double>& baseline, const std::vector<double>& candidate);

}  // namespace pacer::report
