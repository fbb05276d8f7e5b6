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

// "  Prometheus remote write: N pushes, N sent" and, when some were dropped or
// failed, a warning saying how many (--prometheus-remote-write, issue 29).
std::string render_remote_write_line(const RemoteWriteSummary& summary);

}  // namespace pacer::report
