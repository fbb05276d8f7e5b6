// Parsing of the options that spread one run over many machines: --shard i/N and
// --start-at TIME, and cutting a Config down to one shard's share.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// "i/N" with 0 <= i < N (i is 0-based, like a Kubernetes Indexed Job's completion index).
Status parse_shard(std::string_view text, std::string_view flag, Config& config);

// How far ahead --start-at may be: 7 days (docs/limits.md). The process holds
// its connections' memory and waits all that while; a later time is a typo.
inline constexpr std::int64_t kMaxStartAheadS = 7 * 24 * 3600;

// RFC 3339 in UTC ("2026-11-30T12:00:00Z", fractions allowed) or Unix seconds
// ("1796040000.5"). Refused, with the reason: a date or time that does not
// exist (30 February, 24:00, minute 60), a time in the past (not after
// now_unix_ns), and one more than kMaxStartAheadS ahead.
Result<std::int64_t> parse_start_at(std::string_view text, std::string_view flag, std::int64_t now_unix_ns);

// This shard's connections and -n (remainders to the first shards, like threads).
Status apply_shard_share(Config& config);

}  // namespace pacer::cli
