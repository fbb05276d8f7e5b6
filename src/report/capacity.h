// What capped an open-model run's rate, by Little's law: `slots` requests in
// flight at once (connections x requests per connection: --streams or
// --pipeline) that each take a mean service time S carry at most slots / S
// requests per second. When that is below the target rate, the connections are
// the bottleneck, and the sentence says by how much and what -c would carry the
// target at the same service time. Also the report's words on the arrivals
// given up as `unsent`. Pure functions, shared by the text report,
// the live view and the progress lines (so they print the same arithmetic).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "report/interval_report.h"
#include "report/run_report.h"

namespace pacer::report {

struct Capacity {
  int connections = 0;
  int per_connection = 1;           // --streams (HTTP/2) or --pipeline (HTTP/1.1)
  bool http2 = false;
  double mean_service_ns = 0;
  double target_rate_per_s = 0;
  double rate_per_s = 0;            // connections x per_connection / mean service time
  std::uint64_t connections_needed = 0;  // -c that carries the target at this service time
  bool is_bottleneck() const { return rate_per_s < target_rate_per_s; }
};

// Nullopt without a service time to go by (no response) or a target.
std::optional<Capacity> capacity_for(int connections, int per_connection, bool http2, double mean_service_ns,
                                     double target_rate_per_s);

// The run fell behind its schedule (arrivals given up, the backlog full, or less
// than 95% of the target sent) and has responses to measure service time by.
std::optional<Capacity> run_shortfall(const RunReport& r);

// One interval, while the run goes: arrivals were waiting or given up, and the
// connections could not carry the interval's target (nullopt otherwise).
std::optional<Capacity> interval_bottleneck(const IntervalReport& interval, int connections, int per_connection,
                                            bool http2);

// The report's paragraph on `unsent` arrivals ("Unsent:       N requests waited
// ..."), wrapped within 80 columns, ending in "\n".
std::string unsent_paragraph(const RunReport& r);

// The report's paragraph ("Bottleneck:   the connections: ..."), wrapped within
// 80 columns, ending in "\n".
std::string capacity_paragraph(const Capacity& c);

// One short phrase for the live view and the progress lines:
// "10 conns / 50.20ms ≈ 199/s < target 1.00k/s: raise -c to ~51" (ASCII "~"
// for "≈" unless `unicode`).
std::string capacity_phrase(const Capacity& c, bool unicode);

}  // namespace pacer::report
