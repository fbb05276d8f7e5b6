// CI gates (--slo, --max-error-rate): pure evaluation of a RunReport. A breach
// makes the run exit 3 (DESIGN.md section 2), unless not one request succeeded
// (exit 1 whatever the gates say).
#pragma once

#include <string>
#include <vector>

#include "report/run_report.h"

namespace pacer::report {

// The share of finished requests that failed: every error class (status >= 400
// included) over responses plus failures without a response. 0 when nothing finished.
double error_rate(const RunReport& report);

// Requests that failed, each once: every error class (status >= 400 included) and
// a scenario's checks on requests that had not failed otherwise (error_rate's numerator).
std::uint64_t failed_requests(const RunReport& report);

// A latency gate's statistic as the run measured it, and whether it is only a
// lower bound (it falls on timed-out requests). Also the capacity search's
// latency terms (capacity/objective.h).
stats::Percentile measure_gate(const RunReport& report, const LatencyGate& gate);

// Whether value_ns is within the gate's limit (< or <=).
bool gate_holds(const LatencyGate& gate, std::int64_t value_ns);

// One line per failed gate, naming the gate and the measured value, e.g.
// "gate failed: p99<250ms (measured 312.40ms)". A percentile that is only a lower
// bound (it falls on timed-out requests) fails a gate it does not prove, and says so.
// A report read from a file: the failures it gave (RunReport::gate_failures_read).
std::vector<std::string> failed_gates(const RunReport& report);

}  // namespace pacer::report
