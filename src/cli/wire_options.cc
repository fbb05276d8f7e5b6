// The wire options. See wire_options.h.
#include "cli/wire_options.h"

#include <strings.h>

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "cli/run_draft.h"
#include "cli/units.h"
#include "net/address.h"

namespace pacer::cli {

namespace {

Result<std::string> parse_unix_socket(const ScannedOption& option) {
  if (option.value.empty()) return bad_argument(fmt::format("{}: the socket path is empty", option.flag));
  if (option.value.size() > net::kMaxUnixPathBytes) {
    return bad_argument(fmt::format("{}: socket path is {} bytes, longer than the {} a Unix socket address holds",
                                    option.flag, option.value.size(), net::kMaxUnixPathBytes));
  }
  if (option.value.find('\0') != std::string::npos) {
    return bad_argument(fmt::format("{}: socket path contains NUL", option.flag));
  }
  return option.value;
}

Result<int> parse_follow_redirects(const ScannedOption& option) {
  auto count = parse_count(option.value, option.flag);
  if (!count) return count.error();
  if (*count > static_cast<std::uint64_t>(kMaxFollowRedirects)) {
    return bad_argument(fmt::format("{}: redirects to follow must be from 0 to {}, got {}", option.flag,
                                    kMaxFollowRedirects, option.value));
  }
  return static_cast<int>(*count);
}

constexpr std::array<RunOptionRow, 3> kWireRows{{
    {{opt::kUnixSocket, '\0', "unix-socket", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_unix_socket(o), d.config.unix_socket_path); }},
    {{opt::kFollowRedirects, '\0', "follow-redirects", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_follow_redirects(o), d.config.follow_redirects); }},
    {{opt::kCompressed, '\0', "compressed", false},
     [](const ScannedOption&, RunDraft& d) -> Status {
       d.config.compressed = true;
       return Ok{};
     }},
}};

}  // namespace

std::span<const RunOptionRow> wire_option_rows() { return kWireRows; }

Status finish_wire_options(Config& config) {
  // HTTP/3 has none of them (its session neither follows nor decodes; QUIC is UDP).
  if (config.http3) {
    const char* flag = config.follow_redirects > 0 ? "--follow-redirects"
                       : config.compressed         ? "--compressed"
                       : !config.unix_socket_path.empty() ? "--unix-socket"
                                                          : nullptr;
    if (flag != nullptr) return bad_argument(fmt::format("{}: not with --http3 (HTTP/1.1 and HTTP/2 only)", flag));
  }
  if (config.follow_redirects > 0 && config.pipeline > 1) {
    return bad_argument("--follow-redirects: not with --pipeline (a follow-up request cannot be put back in line)");
  }
  if (config.follow_redirects > 0 && !config.keep_alive) {
    return bad_argument("--follow-redirects: needs keep-alive (a follow-up goes on the same connection); "
                        "not with --disable-keepalive");
  }
  // What pacer can decode, unless -H already asks for something.
  const bool asked = std::any_of(config.headers.begin(), config.headers.end(),
                                 [](const Header& h) { return strcasecmp(h.name.c_str(), "Accept-Encoding") == 0; });
  if (config.compressed && !asked) config.headers.push_back({"Accept-Encoding", "gzip, deflate, br, zstd"});
  return Ok{};
}

}  // namespace pacer::cli
