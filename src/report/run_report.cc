#include "report/run_report.h"

namespace pacer::report {

// 1 to 10^10 requests/second at 3 significant digits.
stats::Histogram make_rate_histogram() { return stats::Histogram(1, 10'000'000'000, 3); }

}  // namespace pacer::report
