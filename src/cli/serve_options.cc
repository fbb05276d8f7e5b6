// `pacer serve` options; see the header. The server itself lives in src/server.
#include "cli/serve_options.h"

#include <arpa/inet.h>

#include <array>
#include <cassert>
#include <cstddef>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "cli/option_scan.h"
#include "cli/option_table.h"
#include "cli/units.h"
#include "core/atomic_file.h"
#include "net/address.h"

namespace pacer::cli {
namespace {

enum ServeOption : int { kListen, kThreads, kFreezeAt, kFreezeFor, kLogArrivals, kHelp, kServeOptionCount };

bool is_address(int family, const std::string& text) {
  std::array<unsigned char, sizeof(in6_addr)> parsed{};
  return inet_pton(family, text.c_str(), parsed.data()) == 1;
}

Result<int> parse_serve_threads(const ScannedOption& option) {
  auto count = parse_count(option.value, option.flag);
  if (!count) return count.error();
  if (*count < 1) {
    return bad_argument(fmt::format("{}: threads must be at least 1, got {}", option.flag,
                                    option.value));
  }
  if (*count > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    return bad_argument(fmt::format("{}: threads must be at most {}, got {}", option.flag,
                                    std::numeric_limits<int>::max(), option.value));
  }
  return static_cast<int>(*count);
}

// `--tls CERT KEY` takes two values, which the option scanner does not do: this
// takes the pair out of args (up to a `--`) into serve and returns the rest.
Result<std::vector<std::string>> take_tls_pair(std::span<const std::string> args, server::ServeConfig& serve) {
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (args[i] != "--tls") {
      rest.push_back(args[i]);
      continue;
    }
    if (i + 2 >= args.size() || args[i + 1].empty() || args[i + 2].empty()) {
      return bad_argument("--tls: needs two files, the certificate and its key: --tls CERT KEY");
    }
    serve.tls_cert_path = args[i + 1];
    serve.tls_key_path = args[i + 2];
    i += 2;
  }
  return rest;
}

struct ServeDraft {
  server::ServeConfig serve;
  std::string freeze_at_flag;   // empty: not given
  std::string freeze_for_flag;  // empty: not given
};

Status apply_freeze_at(const ScannedOption& option, ServeDraft& draft) {
  auto at = parse_duration(option.value, option.flag);
  if (!at) return at.error();
  draft.serve.freeze_at_ns = *at;
  draft.freeze_at_flag = option.flag;
  return Ok{};
}

Status apply_freeze_for(const ScannedOption& option, ServeDraft& draft) {
  auto span = parse_duration(option.value, option.flag);
  if (!span) return span.error();
  if (*span <= 0) {
    return bad_argument(fmt::format("{}: freeze length must be greater than 0, got {}", option.flag, option.value));
  }
  draft.serve.freeze_for_ns = *span;
  draft.freeze_for_flag = option.flag;
  return Ok{};
}

Status apply_log_arrivals(const ScannedOption& option, ServeDraft& draft) {
  if (option.value.empty()) return bad_argument(fmt::format("{}: missing file name", option.flag));
  draft.serve.log_arrivals_path = option.value;
  return check_writable_path(option.value, option.flag);  // before serving, not when it stops
}

// --tls CERT KEY is taken out before the scan (take_tls_pair): it takes two values.
constexpr std::array<OptionRow<ServeDraft>, kServeOptionCount> kServeRows{{
    {{kListen, '\0', "listen", true},
     [](const ScannedOption& o, ServeDraft& d) { return parse_listen(o.value, o.flag, d.serve); }},
    {{kThreads, 't', "threads", true},
     [](const ScannedOption& o, ServeDraft& d) { return store(parse_serve_threads(o), d.serve.threads); }},
    {{kFreezeAt, '\0', "freeze-at", true}, &apply_freeze_at},
    {{kFreezeFor, '\0', "freeze-for", true}, &apply_freeze_for},
    {{kLogArrivals, '\0', "log-arrivals", true}, &apply_log_arrivals},
    {{kHelp, 'h', "help", false}, [](const ScannedOption&, ServeDraft&) -> Status { return Ok{}; }},  // read from the scan
}};

Status check_freeze_pair(const ServeDraft& draft) {
  if (!draft.freeze_at_flag.empty() && draft.freeze_for_flag.empty()) {
    return bad_argument(fmt::format("{}: needs --freeze-for too (how long to freeze)",
                                    draft.freeze_at_flag));
  }
  if (draft.freeze_at_flag.empty() && !draft.freeze_for_flag.empty()) {
    return bad_argument(fmt::format("{}: needs --freeze-at too (when to freeze)",
                                    draft.freeze_for_flag));
  }
  return Ok{};
}

}  // namespace

Status parse_listen(std::string_view text, std::string_view flag, server::ServeConfig& serve) {
  // unix:PATH, for clients' --unix-socket.
  if (text.starts_with("unix:")) {
    const std::string_view path = text.substr(5);
    if (path.empty() || path.size() > net::kMaxUnixPathBytes) {
      return bad_argument(
          fmt::format("{}: '{}': a Unix socket path of 1 to {} bytes", flag, text, net::kMaxUnixPathBytes));
    }
    serve.unix_path = std::string(path);
    return Ok{};
  }
  const auto invalid = [&](std::string_view why) {
    return bad_argument(fmt::format(
        "{}: '{}' {} (expected 127.0.0.1:8080, [::1]:8080, :8080 or unix:PATH)", flag, text, why));
  };
  std::string host;
  std::string_view port_text;
  if (!text.empty() && text[0] == '[') {
    const std::size_t close = text.find("]:");
    if (close == std::string_view::npos) return invalid("is not [IPv6]:PORT");
    host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
    if (!is_address(AF_INET6, host)) return invalid("has an invalid IPv6 address");
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return invalid("has no port");
    host = colon == 0 ? "127.0.0.1" : std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) return invalid("needs brackets around IPv6");
    if (!is_address(AF_INET, host)) return invalid("has an invalid IPv4 address");
  }
  const auto port = parse_port_number(port_text);
  if (!port) return invalid("has an invalid port (0 to 65535)");
  serve.listen_host = std::move(host);
  serve.listen_port = *port;
  return Ok{};
}

OptionTableReport serve_options_table() { return report_of<ServeDraft>(kServeRows, kServeOptionCount); }

Result<Invocation> parse_serve(std::span<const std::string> all_args) {
  assert(table_faults<ServeDraft>(kServeRows, kServeOptionCount).empty());  // tests/cli/run_options_test.cc names them
  ServeDraft draft;
  auto args = take_tls_pair(all_args, draft.serve);
  const ScanResult scan = scan_options(args ? std::span<const std::string>(*args) : all_args, specs_of<ServeDraft>(kServeRows),
                                       "pacer serve --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = serve_usage();
    return out;
  }
  if (!args) return args.error();
  if (scan.first_error) return *scan.first_error;
  if (!scan.positionals.empty()) {
    return bad_argument(fmt::format("serve: unexpected argument '{}' (see pacer serve --help)",
                                    scan.positionals.front()));
  }
  if (Status applied = apply_options<ServeDraft>(scan.options, kServeRows, draft); !applied) return applied.error();
  if (Status paired = check_freeze_pair(draft); !paired) return paired.error();
  out.command = Command::kServe;
  out.serve = std::move(draft.serve);
  return out;
}

}  // namespace pacer::cli
