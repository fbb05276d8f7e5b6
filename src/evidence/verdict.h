// The verdicts on the client's own health (issue 28), beside the connections'
// Little's-law one (report/capacity.h): a worker busy for most of the run (or an
// interval), the open model's send lag growing while the workers are busy, file
// descriptors or ephemeral ports near their limits. Pure functions, shared by the
// text and JSON reports, the NDJSON lines, the progress lines and the live view,
// so they say the same thing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evidence/samples.h"
#include "evidence/worker_load.h"

namespace pacer::evidence {

// A worker is the bottleneck when its busy share (worker_load.h) reaches this
// (--client-busy-threshold): it waited for the network less than a tenth of the time.
inline constexpr double kDefaultBusyThreshold = 0.9;
// File descriptors or ephemeral ports at or past this share of their limit are near it.
inline constexpr double kNearLimitShare = 0.8;
// The open model's lag counts as growing "while busy" from this busy share on.
inline constexpr double kLagBusyShare = 0.75;
// A worker's busy share is judged only over this much of its time at least (a
// run of ten requests is mostly its start-up), and not at all with --spin (a
// spinning worker never waits, by design).
inline constexpr TimeNs kMinJudgedRunNs = 500 * kNsPerMs;
inline constexpr TimeNs kMinJudgedIntervalNs = 100 * kNsPerMs;
// A worker queued for a CPU (runnable, not running) this share of its run or
// more, whose thread CPU and queued time together cover kCpuDemandShare of it
// (it wanted a CPU most of the run: it would have been busy had it had one;
// the suite's own rule for a verdict the worker's clock backs), measured its
// own machine, whatever its busy share (issue 43). A worker that waited on the
// server for more of its run than that (a closed loop against a local nginx on
// a 2-core machine: CPU 40 %, queued 30 %) is not named.
inline constexpr double kCpuQueuedShare = 0.25;
inline constexpr double kCpuDemandShare = 0.80;

// The workers at or past the threshold ("worker 1 busy 98 %"), busiest first;
// empty when none. Numbered from 1, as people count.
std::string busy_workers_phrase(const std::vector<WorkerLoad>& workers, double threshold);

// One interval's short verdicts for the progress lines and the live view:
// "the client: worker 1 busy 98 %", "fds 950/1024", "ports 27000/28232 to 127.0.0.1:8080".
// lag_grew: the open model's schedule lag grew over the last interval.
// spin: --spin (no busy verdict).
std::vector<std::string> interval_verdicts(const std::vector<WorkerLoad>& workers,
                                           const std::optional<ProcessSample>& process, double threshold,
                                           bool lag_grew, bool spin = false);

// Whether the run's verdicts name a saturated server (evidence/saturation.h):
// read from the verdicts, as a report read back has them.
bool server_saturated(const RunEvidence& run);

// The run's verdicts into run.verdicts (full sentences, without the
// "Bottleneck: " label), and run.client_bound.
void judge_run(RunEvidence& run);

}  // namespace pacer::evidence
