// The wire options (issue 15): --unix-socket PATH, --follow-redirects N and
// --compressed. Their own option table and apply function, which cli.cc scans
// after its own, so the run options' table stays as it is. Pure; any thread.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

inline constexpr int kMaxFollowRedirects = 30;  // --follow-redirects N: hops per request

enum WireOption : int {
  kUnixSocket = 1000,  // past the run options' ids
  kFollowRedirects,
  kCompressed,
};

inline constexpr std::array<OptionSpec, 3> kWireOptions{{
    {kUnixSocket, '\0', "unix-socket", true},
    {kFollowRedirects, '\0', "follow-redirects", true},
    {kCompressed, '\0', "compressed", false},
}};

// Applies `option` if it is a wire option; nullopt if it is not one of them.
std::optional<Status> apply_wire_option(const ScannedOption& option, Config& config);

// Once every option is read: the wire options' checks against the rest, and
// --compressed's Accept-Encoding header (unless -H gives one).
Status finish_wire_options(Config& config);

// Two option tables as one (for scan_options).
template <std::size_t A, std::size_t B>
constexpr std::array<OptionSpec, A + B> join_options(const std::array<OptionSpec, A>& a,
                                                     const std::array<OptionSpec, B>& b) {
  std::array<OptionSpec, A + B> out{};
  for (std::size_t i = 0; i < A; ++i) out[i] = a[i];
  for (std::size_t i = 0; i < B; ++i) out[A + i] = b[i];
  return out;
}

}  // namespace pacer::cli
