// The evidence as JSON (docs/output.md, "client" and "server"): an interval's,
// for its NDJSON line, and the run's, for the JSON report. Pure; any thread.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "evidence/samples.h"
#include "evidence/worker_load.h"

namespace pacer::evidence {

// {"workers": [{busy, cpu_s, involuntary_switches}], then with a sample:
// cpu_s, cpu_share, cpus_allowed, rss_bytes, open_fds, fd_limit, port_range,
// ports [{local, remote, in_use}], verdicts [...]}.
nlohmann::ordered_json interval_client_json(const std::vector<WorkerLoad>& workers, const IntervalEvidence* sample);
// {"pids": [...], "metrics": [...]}; null when neither was asked for.
nlohmann::ordered_json interval_server_json(const IntervalEvidence& sample);

// The JSON report's "client" object.
nlohmann::ordered_json run_client_json(const RunEvidence& run);
// The JSON report's "server" object; null when nothing was sampled.
nlohmann::ordered_json run_server_json(const RunEvidence& run);

}  // namespace pacer::evidence
