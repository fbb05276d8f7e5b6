// See choose.h.
#include "proxy/choose.h"

#include <fmt/format.h>

#include "proxy/no_proxy.h"
#include "proxy/proxy_url.h"

namespace pacer::proxy {

namespace {

struct Found {
  std::string value;
  std::string name;
};

std::optional<Found> first_set(const EnvLookup& env, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (std::optional<std::string> value = env(name); value && !value->empty()) return Found{*value, std::string(name)};
  }
  return std::nullopt;
}

// The proxy named in the environment for target's scheme.
std::optional<Found> from_environment(const Target& target, const EnvLookup& env) {
  std::optional<Found> specific = target.is_tls() ? first_set(env, {"https_proxy", "HTTPS_PROXY"})
                                                  : first_set(env, {"http_proxy"});
  if (specific) return specific;
  return first_set(env, {"all_proxy", "ALL_PROXY"});
}

std::optional<Found> no_proxy_of(const ProxyFlags& flags, const EnvLookup& env) {
  return flags.noproxy ? std::optional<Found>(Found{*flags.noproxy, "--noproxy"}) : first_set(env, {"no_proxy", "NO_PROXY"});
}

}  // namespace

std::vector<std::string> proxy_notes(const ProxyFlags& flags, const Target& target, const EnvLookup& env, bool proxied) {
  std::vector<std::string> out;
  const std::optional<Found> no_proxy = no_proxy_of(flags, env);
  const bool exempt = no_proxy && no_proxy_matches(no_proxy->value, target.host);
  if (!proxied && !flags.proxy && !target.is_tls() && !from_environment(target, env) && !exempt &&
      first_set(env, {"HTTP_PROXY"})) {
    out.emplace_back("HTTP_PROXY is set but not used: as curl, pacer reads only the lower-case http_proxy for "
                     "http:// targets (a CGI request's Proxy: header sets HTTP_PROXY); connecting directly. Set "
                     "http_proxy or give --proxy URL to go through it");
  }
  if (proxied && no_proxy && !flags.noproxy) {
    if (const auto flaw = no_proxy_flaw(no_proxy->value)) {
      out.push_back(fmt::format("{}: {}; the entry never matches", no_proxy->name, *flaw));
    }
  }
  return out;
}

Result<std::optional<ProxyConfig>> choose_proxy(const ProxyFlags& flags, const Target& target, const EnvLookup& env) {
  std::optional<Found> chosen;
  if (flags.proxy) {
    if (flags.proxy->empty()) return std::optional<ProxyConfig>{};
    chosen = Found{*flags.proxy, "--proxy"};
  } else {
    chosen = from_environment(target, env);
  }
  if (flags.noproxy) {
    if (const auto flaw = no_proxy_flaw(*flags.noproxy)) return bad_input(fmt::format("--noproxy {}", *flaw));
  }
  if (!chosen) return std::optional<ProxyConfig>{};
  const std::optional<Found> no_proxy = no_proxy_of(flags, env);
  if (no_proxy && no_proxy_matches(no_proxy->value, target.host)) return std::optional<ProxyConfig>{};

  auto url = parse_proxy_url(chosen->value);
  if (!url) return bad_input(fmt::format("{} '{}': {}", chosen->name, chosen->value, url.error().message));
  if (flags.proxy_user) {
    const std::size_t colon = flags.proxy_user->find(':');
    if (flags.proxy_user->empty() || colon == 0) {
      return bad_input("--proxy-user: expected USER:PASSWORD (got an empty user)");
    }
    url->has_credentials = true;
    url->user = flags.proxy_user->substr(0, colon);
    url->password = colon == std::string::npos ? "" : flags.proxy_user->substr(colon + 1);
  }
  ProxyConfig out;
  out.host = url->host;
  out.port = url->port;
  out.shown = url->shown();
  out.source = chosen->name;
  if (url->has_credentials) out.authorization = basic_authorization(url->user, url->password);
  return std::optional<ProxyConfig>(std::move(out));
}

}  // namespace pacer::proxy
