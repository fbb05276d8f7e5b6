// Parsing of the protocol options: --http2, --streams N, --pipeline N, and
// their checks against each other and the rest of the Config.
#pragma once

#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

inline constexpr int kMaxStreams = 1000;   // HTTP/2 requests in flight per connection
inline constexpr int kMaxPipeline = 64;    // HTTP/1.1 requests written ahead per connection

// --streams N: 1..kMaxStreams.
Result<int> parse_streams(std::string_view text, std::string_view flag);
// --pipeline N: 1..kMaxPipeline.
Result<int> parse_pipeline(std::string_view text, std::string_view flag);

// Once every option is read: --streams needs --http2; --pipeline is HTTP/1.1
// only and needs keep-alive.
Status finish_protocol_options(const Config& config, bool streams_given, bool pipeline_given);

}  // namespace pacer::cli
