// The JSON report (schema: docs/report.schema.json, "pacer-report" version 2).
// A pure function of a RunReport. Times are integer nanoseconds (`_ns`) or
// seconds (`_s`) as named; rates are per second.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "report/run_report.h"

namespace pacer::report {

// 2: a shard's config rates are the shard's (the whole test's are under
// config.shard.whole_test); in 1 they were the whole test's. The reader takes both.
constexpr int kJsonSchemaVersion = 2;
constexpr int kOldestReadSchemaVersion = 1;

// Pretty-printed (2-space indent), newline-terminated: json_document's text.
std::string render_json(const RunReport& report);

// The JSON report as a document, its strings made printable: for the writers
// that nest reports in their own JSON (--repeat's runs, --compare's page data).
nlohmann::ordered_json json_document(const RunReport& report);

}  // namespace pacer::report
