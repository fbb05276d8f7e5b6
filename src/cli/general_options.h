// The run's own options, those no other module owns: -v, -h, --check-args, -m,
// -b and --json (the body, read once every option is known), --disable-keepalive,
// --no-record-timeouts, the gates (--slo, --max-error-rate), --shard and
// --start-at, the protocol (--http2, --http3, --streams, --pipeline), -s, the
// targets file (--targets, --targets-order) and the live web view (--web,
// --web-token, --web-linger). Their table, scanned with every other module's
// (cli/run_options.h); -v, -h and --check-args are read from the scan by cli.cc.
#pragma once

#include <span>

#include "cli/run_option_ids.h"

namespace pacer::cli::general {

std::span<const RunOptionRow> option_rows();

}  // namespace pacer::cli::general
