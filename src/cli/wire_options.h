// The wire options (issue 15): --unix-socket PATH, --follow-redirects N and
// --compressed. Their own option table (each option's spec and apply function),
// scanned with the run's (cli/run_options.h). Pure; any thread.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

inline constexpr int kMaxFollowRedirects = 30;  // --follow-redirects N: hops per request

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> wire_option_rows();

// Once every option is read: the wire options' checks against the rest, and
// --compressed's Accept-Encoding header (unless -H gives one).
Status finish_wire_options(Config& config);

}  // namespace pacer::cli
