// See rank_test.h.
#include "report/rank_test.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace pacer::report {

namespace {

// d[u] = how many of the C(m + n, m) orders of m candidate and n baseline values
// give U = u, by the recurrence N(u; m, n) = N(u - n; m - 1, n) + N(u; m, n - 1):
// the largest value is a candidate's (it beats all n baseline values) or a
// baseline's. Counts as doubles (exact to 2^53: C(40, 20) fits).
std::vector<double> u_distribution(std::size_t m, std::size_t n) {
  // table[i][j] is the distribution for i candidate and j baseline values.
  std::vector<std::vector<std::vector<double>>> table(m + 1, std::vector<std::vector<double>>(n + 1));
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      std::vector<double>& d = table[i][j];
      d.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        d[0] = 1;
        continue;
      }
      // The largest of the i + j values is a candidate's (it beats all j
      // baseline values: U grows by j) or a baseline's (U unchanged).
      const std::vector<double>& with_cand = table[i - 1][j];
      for (std::size_t u = 0; u < with_cand.size(); ++u) d[u + j] += with_cand[u];
      const std::vector<double>& with_base = table[i][j - 1];
      for (std::size_t u = 0; u < with_base.size(); ++u) d[u] += with_base[u];
    }
  }
  return table[m][n];
}

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

RankTest mann_whitney(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  RankTest out;
  const std::size_t n = baseline.size();
  const std::size_t m = candidate.size();
  if (n == 0 || m == 0) return out;
  bool ties = false;
  std::size_t above = 0, below = 0;
  for (double c : candidate) {
    for (double b : baseline) {
      if (c > b) {
        out.u += 1;
        ++above;
      } else if (c == b) {
        out.u += 0.5;
        ties = true;
      } else {
        ++below;
      }
    }
  }
  out.all_greater = above == n * m;
  out.all_less = below == n * m;
  if (!ties && n * m <= kExactPairs) {
    const std::vector<double> d = u_distribution(m, n);
    const double total = std::accumulate(d.begin(), d.end(), 0.0);
    const auto u = static_cast<std::size_t>(out.u);
    double ge = 0, le = 0;
    for (std::size_t k = 0; k < d.size(); ++k) {
      if (k >= u) ge += d[k];
      if (k <= u) le += d[k];
    }
    out.p_greater = ge / total;
    out.p_less = le / total;
    out.exact = true;
    return out;
  }
  // Normal approximation; the variance shrinks by the ties (ranks averaged).
  std::vector<double> all(baseline);
  all.insert(all.end(), candidate.begin(), candidate.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const double nn = static_cast<double>(n), mm = static_cast<double>(m), total = nn + mm;
  const double mean = nn * mm / 2;
  const double variance = nn * mm / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (variance <= 0) {
    out.p_greater = out.p_less = 1;  // every value equal: no evidence either way
    return out;
  }
  const double sd = std::sqrt(variance);
  out.p_greater = normal_upper_tail((out.u - mean - 0.5) / sd);
  out.p_less = normal_upper_tail((mean - out.u - 0.5) / sd);
  return out;
}

}  // namespace pacer::report
