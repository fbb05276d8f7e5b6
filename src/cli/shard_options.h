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

// RFC 3339 in UTC ("2026-11-30T12:00:00Z", fractions allowed) or Unix seconds
// ("1796040000.5"). A time in the past (before now_unix_ns) is an error.
Result<std::int64_t> parse_start_at(std::string_view text, std::string_view flag, std::int64_t now_unix_ns);

// This shard's connections and -n (remainders to the first shards, like threads).
Status apply_shard_share(Config& config);

}  // namespace pacer::cli
