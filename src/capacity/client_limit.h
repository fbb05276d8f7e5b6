// Whether a capacity step's rate was capped by pacer rather than by the server
// (issue 41): a worker busy past the saturation verdict, file descriptors or
// ephemeral ports running out (evidence/verdict.h), or, by Little's law, too
// few connections for the rate (report/capacity.h). A server past its capacity
// also leaves arrivals unsent, because every connection waits on its growing
// queue: that shows as a service time far above the one the search measured at
// a lower rate, and is the server's, not the client's. Pure.
#pragma once

#include <optional>
#include <string>

#include "capacity/step_figures.h"
#include "report/run_report.h"

namespace pacer::capacity {

// The service time grew past this many times the baseline: the server queued.
inline constexpr double kServerQueueGrowth = 2.0;

// What limited the client ("" when nothing did), with what to change.
// baseline_service_ns: the lowest mean service time another step of the search
// measured (nullopt: none yet, and then too few connections is not judged: the
// step cannot tell a short pool from a queueing server on its own).
std::string client_limit(const report::RunReport& run, const StepFigures& figures,
                         std::optional<double> baseline_service_ns);

}  // namespace pacer::capacity
