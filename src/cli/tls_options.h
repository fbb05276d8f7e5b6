// The run's TLS options: -k/--insecure, --cacert, --cert, --key and
// --no-tls-resume (docs/tls.md). Their own option table and apply function,
// scanned with the run's (cli.cc). A file option names a file that can be read
// now (its contents are checked when the TLS context is built, also exit 2).
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::tls {

enum Option : int {
  kInsecure = 3000,  // past the output options' ids
  kCaCert,
  kCert,
  kKey,
  kNoTlsResume,
};

inline constexpr std::array<OptionSpec, 5> kOptions{{
    {kInsecure, 'k', "insecure", false},
    {kCaCert, '\0', "cacert", true},
    {kCert, '\0', "cert", true},
    {kKey, '\0', "key", true},
    {kNoTlsResume, '\0', "no-tls-resume", false},
}};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

}  // namespace pacer::cli::tls
