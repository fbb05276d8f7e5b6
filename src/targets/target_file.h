// --targets FILE: the requests of a run, read once before it starts. Two
// formats, told apart by the file's first non-blank character ('{': JSON Lines,
// anything else: vegeta's text format); see docs/targets.md.
//
// Every target's URL is resolved against the command line's URL (a path such as
// "/api/x?id=1" takes its origin) or is absolute; all targets of a run share one
// origin (scheme, host, port). Any malformed target (an unknown method, a header
// line without a colon, an unreadable @body, bad base64, bad JSON, a second
// origin, ...) fails the whole file with kBadInput, "FILE:LINE: reason".
// Main thread, at parse time; no state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::targets {

// Targets files hold at most this many targets (docs/limits.md).
inline constexpr std::size_t kMaxTargets = 100'000;
// The largest weight of one target, and of all weights together (the weighted
// order's cycle holds one entry per unit of weight).
inline constexpr std::uint32_t kMaxWeight = 1'000'000;
inline constexpr std::uint64_t kMaxTotalWeight = 1'000'000;

struct TargetSource {
  std::string name;            // the file as the user named it ("stdin" for -)
  std::string body_dir;        // where a relative @body path starts ("" : the working directory)
  std::optional<Target> base;  // the command line's URL, if one was given
  std::uint64_t max_body_bytes = kDefaultMaxRequestBodyBytes;  // --max-request-body, per body
};

struct TargetList {
  std::vector<RequestTarget> targets;
  Target origin;  // the run's origin: the command line's URL, else the file's first absolute URL
};

// Parses a whole file's text.
Result<TargetList> parse_targets(std::string_view text, const TargetSource& source);

// Reads `path` ("-": all of standard input, stdin_fd) and parses it; the file's
// directory is where relative @body paths start.
Result<TargetList> read_targets(const std::string& path, int stdin_fd, std::optional<Target> base,
                                std::uint64_t max_body_bytes);

// pacer frames every request itself, as for -H (cli/input_checks.h): a target
// whose headers (its own and -H's, with its body or -b's: `request` as
// proto::with_command_line makes it) hold a Transfer-Encoding, a Content-Length
// that is not the body's size, or with --http2 a connection-specific header, is
// refused with kBadInput naming its FILE:LINE.
Status check_target_framing(const RequestTarget& request, bool http2);

// --targets-order: round-robin, random or weighted.
Result<TargetsOrder> parse_targets_order(std::string_view text, std::string_view flag);
const char* targets_order_name(TargetsOrder order);

}  // namespace pacer::targets
