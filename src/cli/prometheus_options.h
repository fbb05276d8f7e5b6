// The Prometheus options (issue 29, docs/prometheus.md): --prometheus-remote-write
// URL, --prometheus-label k=v (repeatable), --prometheus-basic-auth USER:PASSWORD,
// --prometheus-bearer-token TOKEN (either may be @FILE), --prometheus-timeout T
// and --run-id ID. Their own option table, scanned with the run options. Errors
// are kBadArgument (exit 2) naming the flag. Pure but for reading @FILE; main thread.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> prometheus_option_rows();

// Once every option is read: the push's credentials need its URL, a label or a
// run id needs somewhere to go (--web or the push), one kind of credentials.
Status finish_prometheus_options(const Config& config);

}  // namespace pacer::cli
