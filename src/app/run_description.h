// What a run is about to do, in words: the report header's fields from a Config,
// `pacer --check-args`'s description, and the start-up note for shards that
// nothing starts together.
#pragma once

#include <ctime>
#include <string>

#include "core/config.h"
#include "report/run_report.h"

namespace pacer::app {

// The fields the report header (render_header) shows, before the run.
report::RunReport header_fields(const Config& config);

// `pacer --check-args`: the header plus the load, the start and the outputs.
std::string describe_run(const Config& config, std::int64_t now_unix_ns);

// A warning for shards that --shard auto found under an engine that does not
// start them together (Kubernetes, Nomad, Slurm arrays) when there is no
// --start-at; empty when there is nothing to say.
std::string unsynchronised_start_note(const Config& config);

}  // namespace pacer::app
