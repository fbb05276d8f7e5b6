#include "cli/protocol_options.h"

#include <fmt/format.h>

#include "cli/units.h"

namespace pacer::cli {

namespace {

Result<int> parse_bounded(std::string_view text, std::string_view flag, std::string_view what, int max) {
  auto count = parse_count(text, flag);
  if (!count) return count.error();
  if (*count < 1 || *count > static_cast<std::uint64_t>(max)) {
    return bad_argument(fmt::format("{}: {} must be from 1 to {}, got {}", flag, what, max, text));
  }
  return static_cast<int>(*count);
}

}  // namespace

Result<int> parse_streams(std::string_view text, std::string_view flag) {
  return parse_bounded(text, flag, "streams per connection", kMaxStreams);
}

Result<int> parse_pipeline(std::string_view text, std::string_view flag) {
  return parse_bounded(text, flag, "pipeline depth", kMaxPipeline);
}

Status finish_protocol_options(const Config& config, bool streams_given, bool pipeline_given) {
  if (streams_given && !config.http2) {
    return bad_argument("--streams: needs --http2 (for HTTP/1.1 see --pipeline)");
  }
  if (pipeline_given && config.http2) {
    return bad_argument("--pipeline: HTTP/1.1 only; with --http2 use --streams");
  }
  if (config.pipeline > 1 && !config.keep_alive) {
    return bad_argument("--pipeline: needs keep-alive; it cannot be used with --disable-keepalive");
  }
  // Scripts speak wrk's HTTP/1.1 (request() returns raw request bytes) and
  // pipeline by returning several requests from request(), as in wrk.
  if (!config.script_path.empty() && config.http2) {
    return bad_argument("--http2: not supported with a script (-s); scripts speak HTTP/1.1 as in wrk");
  }
  if (!config.script_path.empty() && config.pipeline > 1) {
    return bad_argument("--pipeline: not supported with a script (-s); return several requests from request() instead");
  }
  return Ok{};
}

}  // namespace pacer::cli
