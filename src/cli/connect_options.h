// The connect path's options (issue 33, docs/proxy.md): --proxy/-x, --proxy-user,
// --noproxy, --user (basic authentication on every request), --bind/-B. Their
// own table and apply function, scanned with the run's (cli.cc); finish() decides
// the proxy from the flags and the environment once the URL is known.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"
#include "proxy/choose.h"

namespace pacer::cli::connect {

enum Option : int {
  kProxy = 7000,  // past the scenario options' ids
  kProxyUser,
  kNoProxy,
  kUser,
  kBind,
};

inline constexpr std::array<OptionSpec, 5> kOptions{{
    {kProxy, 'x', "proxy", true},
    {kProxyUser, '\0', "proxy-user", true},
    {kNoProxy, '\0', "noproxy", true},
    {kUser, '\0', "user", true},
    {kBind, 'B', "bind", true},
}};

// What was given, for finish().
struct Flags {
  proxy::ProxyFlags proxy;
  std::optional<std::string> user;  // --user USER:PASS
};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config, Flags& flags);

// After the URL and the protocol options: the proxy (flags, then the
// environment), whether it tunnels, its Proxy-Authorization on forwarded
// requests, --user's Authorization, and the checks between them and the rest.
Status finish(Config& config, const Flags& flags, const proxy::EnvLookup& env);

}  // namespace pacer::cli::connect
