// --cookie (README.md, docs/scenarios.md "Cookies"): cookies sent with every request, as curl -b and
// ab -C send them. Their own option table, apply and finish functions, scanned
// with the run's (cli.cc). Main thread, at parse time.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::cookies {

enum Option : int {
  kCookie = 7700,  // past the scenario options' ids
};

inline constexpr std::array<OptionSpec, 1> kOptions{{
    {kCookie, '\0', "cookie", true},
}};

// Keeps `option` if it is --cookie (checked when the URL is known); nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

// After the URL is known, before the targets are read: every --cookie's pairs
// (a cookies.txt file's cookies that go to the URL: its host, path, scheme,
// unexpired) joined into one Cookie header with -H's own Cookie, if any (its
// pairs first), so that every request builder sends them.
Status finish(Config& config);

}  // namespace pacer::cli::cookies
