// The text report in wrk's layout, plus what wrk leaves out. Pure functions of a
// RunReport (or of the Config-derived header fields), tested with golden files.
#pragma once

#include <string>

#include "report/run_report.h"

namespace pacer::report {

// "Running 10s test @ URL\n  2 threads and 10 connections\n", printed before the run.
std::string render_header(const RunReport& report);

// Everything after the header: Thread Stats, Latency Distribution (with
// --latency), totals, errors, rates, then pacer's additions.
std::string render_text(const RunReport& report);

}  // namespace pacer::report
