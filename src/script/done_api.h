// What done(summary, latency, requests) receives, in wrk's units: the summary
// table (duration in microseconds, requests, bytes, errors by class, and
// pacer's status-code counts) and two statistics objects (latency in
// microseconds; requests per second, sampled per thread every 100 ms). Main
// thread, after the run.
#pragma once

#include <lua.hpp>

#include "report/run_report.h"
#include "stats/histogram.h"

namespace pacer::script {

// Pushes the summary table of report.
void push_summary(lua_State* L, const report::RunReport& report);

// Pushes a statistics object ("wrk.stats") over histogram, whose values are
// divided by divisor (1000 turns nanoseconds into microseconds). Fields min,
// max, mean, stdev; stats:percentile(p); stats(i) gives the i-th distinct
// recorded value (ascending) and its count; stats[i] the value alone; #stats
// the number of distinct values. histogram must outlive every use of the object.
void push_stats(lua_State* L, const stats::Histogram& histogram, double divisor);

}  // namespace pacer::script
