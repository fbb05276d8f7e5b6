// The connect path's options (issue 33, docs/proxy.md): --proxy/-x, --proxy-user,
// --noproxy, --user (basic authentication on every request), --bind/-B. Their
// own table and apply function, scanned with the run's (cli/run_options.h); finish() decides
// the proxy from the flags and the environment once the URL is known.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"
#include "proxy/choose.h"

namespace pacer::cli::connect {

// What was given, for finish().
struct Flags {
  proxy::ProxyFlags proxy;
  std::optional<std::string> user;  // --user USER:PASS
};

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// After the URL and the protocol options: the proxy (flags, then the
// environment), whether it tunnels, its Proxy-Authorization on forwarded
// requests, --user's Authorization, and the checks between them and the rest.
Status finish(Config& config, const Flags& flags, const proxy::EnvLookup& env);

}  // namespace pacer::cli::connect
