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

// --http3 (issue 19): QUIC needs TLS, so https:// only; one HTTP version per run.
Status finish_http3_options(const Config& config, bool pipeline_given) {
  if (!config.http3) return Ok{};
  if (config.http2) return bad_argument("--http3: cannot be combined with --http2 (one HTTP version per run)");
  if (!config.target.is_tls()) {
    return bad_argument("--http3: needs an https:// URL (QUIC always runs TLS 1.3), got " + config.target.url);
  }
  if (pipeline_given) return bad_argument("--pipeline: HTTP/1.1 only; with --http3 use --streams");
  if (!config.script_path.empty()) {
    return bad_argument("--http3: not supported with a script (-s); scripts speak HTTP/1.1 as in wrk");
  }
  if (!config.keep_alive) return bad_argument("--http3: --disable-keepalive is not supported (a QUIC handshake per request)");
  return Ok{};
}

Status finish_protocol_options(const Config& config, bool streams_given, bool pipeline_given) {
  if (Status h3 = finish_http3_options(config, pipeline_given); !h3) return h3;
  if (streams_given && !config.http2 && !config.http3) {
    return bad_argument("--streams: needs --http2 or --http3 (for HTTP/1.1 see --pipeline)");
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
