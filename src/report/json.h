// The JSON report (schema: docs/report.schema.json, "pacer-report" version 1).
// A pure function of a RunReport. Times are integer nanoseconds (`_ns`) or
// seconds (`_s`) as named; rates are per second.
#pragma once

#include <string>

#include "report/run_report.h"

namespace pacer::report {

constexpr int kJsonSchemaVersion = 1;

// Pretty-printed (2-space indent), newline-terminated.
std::string render_json(const RunReport& report);

}  // namespace pacer::report
