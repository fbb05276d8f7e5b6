// The report's per-name figures (RunReport::endpoints): their order, their text
// table, and their exact merge across shards. Pure functions; main thread.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// The endpoints, most requests sent first (ties: by name).
std::vector<const EndpointReport*> endpoints_by_requests(const RunReport& r);

// Whether the text report shows the Endpoints table: with --targets, or when
// the run had more than one name (a script naming its requests).
bool shows_endpoints(const RunReport& r);

// The "Endpoints" block of the text report: a header, then per name a line with
// the name and a line of figures (requests sent, completed per second, errors,
// non-2xx/3xx responses, p50, p90, p99, max), and the error classes when there
// are errors; with --latency each name's distribution. Every line fits 80 columns
// (a long name is cut with "..."). "" when shows_endpoints() is false.
std::string render_endpoints_text(const RunReport& r);

// Scenarios: the `check` errors (u:fail) on requests of this name; 0 without a scenario.
std::uint64_t endpoint_checks(const RunReport& r, const EndpointReport& e);

// The requests of this name that failed: every error class (status >= 400
// included) and the checks on requests that had not failed already, so a
// request counts once (the run's error rate's rule, per name).
std::uint64_t endpoint_failures(const RunReport& r, const EndpointReport& e);

// After a run, before any output: a scenario's names nobody requested (the base
// URL's, known before the run) are dropped, and an endpoint's censored samples
// (timeouts) are taken from the run's where that is exact: all its samples are
// timeouts, or it is the one name with timeouts and nothing else was censored.
void settle_endpoints(RunReport& r);

// Adds `from`'s endpoints into `into`'s, matched by name (a name only in `from`
// is appended): counts are summed (checked) and histograms merged, so the result
// is exactly what one process would have recorded. `source` names `from` in errors.
Status merge_endpoints(RunReport& into, const RunReport& from, const std::string& source);

}  // namespace pacer::report
