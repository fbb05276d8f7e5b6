// Parsing of the units users type: durations (1us, 250ms, 2s, 1.5m, 1h; a bare
// number is seconds), counts with SI suffixes (10k = 10000, 1M, 1G), byte sizes
// (64k = 65536, 16M), and URLs.
// Errors name the flag given in `flag` (e.g. "-d").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// "1.5s" -> 1'500'000'000. Units us, ms, s, m, h (any case, as wrk); decimals
// allowed, truncated to whole nanoseconds. Returns >= 0; callers reject 0 if needed.
Result<TimeNs> parse_duration(std::string_view text, std::string_view flag);

// "10k" -> 10000. Suffixes k/K, M, G (lowercase m is refused: milli or mega?);
// decimals allowed when the result is whole ("1.5k", not "1.5"). Returns >= 0.
Result<std::uint64_t> parse_count(std::string_view text, std::string_view flag);

// "64k" -> 65536. Byte sizes: a bare number is bytes; k, M, G (any case, also
// written KB/KiB, MB/MiB, GB/GiB) are binary (1024), as the report prints sizes.
// Returns >= 0; callers reject 0 if needed.
Result<std::uint64_t> parse_byte_size(std::string_view text, std::string_view flag);

// http:// or https:// only; IPv6 literals in brackets; port 1..65535 or the
// scheme's default; path plus query defaults to "/"; the fragment is dropped.
// Refuses user info, and spaces or control characters anywhere.
Result<Target> parse_url(std::string_view text);

// A decimal port number, digits only, 0..65535; nullopt otherwise. Callers decide
// whether 0 is allowed.
std::optional<std::uint16_t> parse_port_number(std::string_view text);

}  // namespace pacer::cli
