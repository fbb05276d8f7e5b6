// The text formats a scraper reads at the web view's /metrics: Prometheus's
// text exposition format 0.0.4 and OpenMetrics 1.0 (chosen by the Accept
// header). Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prom/metrics.h"

namespace pacer::prom {

inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kOpenMetricsContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

// Whether an Accept header asks for OpenMetrics (application/openmetrics-text
// with a q above 0), as Prometheus's scraper does.
bool wants_openmetrics(std::string_view accept);

// Format 0.0.4: # HELP / # TYPE lines, then the samples; a counter's TYPE
// line names it with "_total".
std::string render_text(const std::vector<Family>& families);
// OpenMetrics 1.0: # TYPE / # UNIT / # HELP by family name, then "# EOF".
std::string render_openmetrics(const std::vector<Family>& families);

// A label value as both formats quote it: \ -> \\, " -> \", newline -> \n.
std::string escape_label_value(std::string_view value);
// HELP text: \ -> \\, newline -> \n.
std::string escape_help(std::string_view help);
// A sample value: integers exactly ("12"), others in the shortest form that reads
// back to the same double, "+Inf", "-Inf", "NaN".
std::string format_value(double value);

// Names: [a-zA-Z_:][a-zA-Z0-9_:]* for metrics, [a-zA-Z_][a-zA-Z0-9_]* for
// labels (a label's may not start with "__": Prometheus keeps those).
bool is_metric_name(std::string_view name);
bool is_label_name(std::string_view name);

}  // namespace pacer::prom
