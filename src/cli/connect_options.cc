// See connect_options.h.
#include "cli/connect_options.h"

#include <array>
#include <strings.h>

#include <algorithm>

#include <fmt/format.h>

#include "net/bind_list.h"
#include "cli/run_draft.h"
#include "proxy/choose.h"
#include "proxy/proxy_url.h"

namespace pacer::cli::connect {

namespace {

bool has_header(const Config& config, const char* name) {
  return std::any_of(config.headers.begin(), config.headers.end(),
                     [name](const Header& h) { return strcasecmp(h.name.c_str(), name) == 0; });
}

Status parse_bind(const ScannedOption& option, Config& config) {
  auto list = net::parse_bind_list(option.value);
  if (!list) return bad_input(fmt::format("{} '{}': {}", option.flag, option.value, list.error().message));
  config.bind_addresses.clear();
  for (const net::Address& a : *list) config.bind_addresses.push_back(net::address_literal(a));
  return Ok{};
}

// Where the proxy came from, for messages: the flag, or the variable and how to turn it off.
std::string origin_of(const ProxyConfig& proxy) {
  if (proxy.source == "--proxy") return "--proxy";
  return fmt::format("the proxy from {} (turn it off with --noproxy '*' or --proxy '')", proxy.source);
}

Status finish_proxy(Config& config, const Flags& flags, const proxy::EnvLookup& env) {
  if (!config.unix_socket_path.empty()) {
    if (flags.proxy.proxy && !flags.proxy.proxy->empty()) {
      return bad_argument("--proxy and --unix-socket both say where connections go; give one");
    }
    return Ok{};  // as curl: a Unix socket is never proxied
  }
  auto chosen = proxy::choose_proxy(flags.proxy, config.target, env);
  if (!chosen) return chosen.error();
  config.proxy = std::move(*chosen);
  config.proxy_notes = proxy::proxy_notes(flags.proxy, config.target, env, config.proxy.has_value());
  if (!config.proxy) {
    if (flags.proxy.proxy_user) return bad_argument("--proxy-user: no proxy is in use (give --proxy URL)");
    return Ok{};
  }
  ProxyConfig& p = *config.proxy;
  if (config.http3) {
    return bad_input(fmt::format("--http3 cannot go through {}: QUIC runs over UDP and an HTTP proxy carries TCP "
                                 "(CONNECT); run HTTP/2 over https:// through it, or go direct",
                                 origin_of(p)));
  }
  // http:// with HTTP/1.1 requests pacer builds is forwarded (absolute-form
  // targets the proxy can log and cache); what pacer does not build itself
  // (a script's bytes, redirect follow-ups) and h2c go through a tunnel.
  p.tunnel = config.target.is_tls() || config.http2 || !config.script_path.empty() || config.follow_redirects > 0;
  if (!p.tunnel && !p.authorization.empty() && !has_header(config, "Proxy-Authorization")) {
    config.headers.push_back({"Proxy-Authorization", p.authorization});
  }
  return Ok{};
}

Status apply_user(const ScannedOption& option, RunDraft& draft) {
  if (option.value.empty() || option.value.front() == ':') {
    return bad_input(fmt::format("{}: expected USER:PASSWORD (got an empty user)", option.flag));
  }
  draft.connect.user = option.value;
  return Ok{};
}

constexpr std::array<RunOptionRow, 5> kRows{{
    {{opt::kProxy, 'x', "proxy", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       d.connect.proxy.proxy = o.value;
       return Ok{};
     }},
    {{opt::kProxyUser, '\0', "proxy-user", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       d.connect.proxy.proxy_user = o.value;
       return Ok{};
     }},
    {{opt::kNoProxy, '\0', "noproxy", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       d.connect.proxy.noproxy = o.value;
       return Ok{};
     }},
    {{opt::kUser, '\0', "user", true}, &apply_user},
    {{opt::kBind, 'B', "bind", true}, [](const ScannedOption& o, RunDraft& d) { return parse_bind(o, d.config); }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(Config& config, const Flags& flags, const proxy::EnvLookup& env) {
  if (!config.bind_addresses.empty() && !config.unix_socket_path.empty()) {
    return bad_argument("--bind: not with --unix-socket (a Unix socket has no source address)");
  }
  if (flags.user && !has_header(config, "Authorization")) {
    // As curl -u: the password may be empty; a -H Authorization (or a target's, a
    // scenario request's own) wins over it.
    const std::size_t colon = flags.user->find(':');
    config.headers.push_back({"Authorization", proxy::basic_authorization(
                                                   flags.user->substr(0, colon),
                                                   colon == std::string::npos ? "" : flags.user->substr(colon + 1))});
  }
  return finish_proxy(config, flags, env);
}

}  // namespace pacer::cli::connect
