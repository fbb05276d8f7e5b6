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

}  // namespace

Result<std::optional<ProxyConfig>> choose_proxy(const ProxyFlags& flags, const Target& target, const EnvLookup& env) {
  std::optional<Found> chosen;
  if (flags.proxy) {
    if (flags.proxy->empty()) return std::optional<ProxyConfig>{};
    chosen = Found{*flags.proxy, "--proxy"};
  } else {
    chosen = from_environment(target, env);
  }
  if (!chosen) return std::optional<ProxyConfig>{};
  const std::optional<Found> no_proxy =
      flags.noproxy ? std::optional<Found>(Found{*flags.noproxy, "--noproxy"}) : first_set(env, {"no_proxy", "NO_PROXY"});
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
