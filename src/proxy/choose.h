// Which proxy a run uses, by curl's rules (docs/proxy.md):
//   1. --noproxy LIST, or else no_proxy / NO_PROXY (lower case first): a target
//      host it matches goes direct, even with --proxy; --noproxy '' matches nothing.
//   2. --proxy URL (or -x); --proxy '' means no proxy, whatever the environment says.
//   3. The environment: http_proxy (lower case only: HTTP_PROXY can be set by a
//      request header under CGI, so curl ignores it) for http:// targets,
//      https_proxy then HTTPS_PROXY for https://, then all_proxy, ALL_PROXY.
//      An empty variable is unset.
// A --noproxy entry that can never match (`host:port`, `10.0.0.0/33`) is refused.
// --proxy-user USER:PASS replaces the URL's credentials. Pure (the environment
// comes through `env`); main thread, once.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::proxy {

using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

struct ProxyFlags {
  std::optional<std::string> proxy;       // --proxy / -x as given ("" : off)
  std::optional<std::string> noproxy;     // --noproxy as given
  std::optional<std::string> proxy_user;  // --proxy-user USER[:PASS]
};

// nullopt: connect directly. `tunnel` is left false: the caller decides it.
// Errors: kBadInput naming the flag or the variable and what is wrong with it.
Result<std::optional<ProxyConfig>> choose_proxy(const ProxyFlags& flags, const Target& target, const EnvLookup& env);

// What to say on stderr about the proxy variables (each a sentence, none when all
// is as asked): HTTP_PROXY (upper case, which rule 3 ignores) naming a proxy while
// the run goes direct to an http:// target it is not exempt from; a NO_PROXY entry
// that can never match (a port, a prefix past the address's bits) while a proxy is
// in use. proxied: whether choose_proxy chose one.
std::vector<std::string> proxy_notes(const ProxyFlags& flags, const Target& target, const EnvLookup& env, bool proxied);

}  // namespace pacer::proxy
