// --cookie (README.md, docs/scenarios.md "Cookies"): cookies sent with every request, as curl -b and
// ab -C send them. Their own option table, apply and finish functions, scanned
// with the run's (cli/run_options.h). Main thread, at parse time.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::cookies {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// After the URL is known, before the targets are read: every --cookie's pairs
// (a cookies.txt file's cookies that go to the URL: its host, path, scheme,
// unexpired) joined into one Cookie header with -H's own Cookie, if any (its
// pairs first), so that every request builder sends them.
Status finish(Config& config);

}  // namespace pacer::cli::cookies
