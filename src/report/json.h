// The JSON report (schema: docs/report.schema.json, "pacer-report" version 2).
// A pure function of a RunReport. Times are integer nanoseconds (`_ns`) or
// seconds (`_s`) as named; rates are per second.
#pragma once

#include <string>

#include "report/run_report.h"

namespace pacer::report {

// 2: a shard's config rates are the shard's (the whole test's are under
// config.shard.whole_test); in 1 they were the whole test's. The reader takes both.
constexpr int kJsonSchemaVersion = 2;
constexpr int kOldestReadSchemaVersion = 1;

// Pretty-printed (2-space indent), newline-terminated.
std::string render_json(const RunReport& report);

}  // namespace pacer::report
