// What one step of a capacity search measured, read once from its report: the
// rate it was asked for and the rate that came back, the latency figures the
// table and the curve show, the failed requests, the server's CPU. The verdicts,
// the table, the JSON and the page all take these (issue 41). Pure.
#pragma once

#include <cstdint>
#include <optional>

#include "report/run_report.h"

namespace pacer::capacity {

struct StepFigures {
  double target_rate_per_s = 0;    // the step's -R (0: the closed-loop probe)
  double achieved_rate_per_s = 0;  // responses per second of the measured window
  std::int64_t p50_ns = 0;
  std::int64_t p90_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t max_ns = 0;
  std::uint64_t requests = 0;      // finished: responses and failures without one
  std::uint64_t errors = 0;        // failed requests, each once (report::failed_requests)
  double error_rate = 0;           // errors / requests (report::error_rate)
  double mean_service_ns = 0;      // open model: the send-to-response time
  std::optional<double> server_cpu;  // CPUs (1.0: one busy CPU); nullopt: not sampled
};

StepFigures step_figures(const report::RunReport& run);

// CPU time per second of the step's intervals: the --server-pid processes' (user
// plus system, summed), else the --server-metrics process_cpu_seconds_total rate
// (summed over the endpoints). Read from the run's time series; nullopt when
// neither was sampled.
std::optional<double> server_cpu(const report::RunReport& run);

}  // namespace pacer::capacity
