#include "report/run_report.h"

namespace pacer::report {

// 1 to 10^10 requests/second at 3 significant digits.
stats::Histogram make_rate_histogram() { return stats::Histogram(1, 10'000'000'000, 3); }

std::string body_hint(const RunReport& r) {
  // -b sends the bytes as given; a JSON API refuses a body whose type it is not told.
  if (!r.body_without_content_type || r.counters.status_counts[415] == 0) return "";
  return "the body went with no Content-Type: use --json or -H to set one";
}

}  // namespace pacer::report
