// The run's TLS options: -k/--insecure, --cacert, --cert, --key,
// --no-tls-resume, --tls-min/--tls-max, --ciphers, --tls13-ciphers, --sni and
// --no-sni (docs/tls.md). Their own option table and apply function,
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
  kTlsMin,  // issue 33: versions, ciphers, SNI
  kTlsMax,
  kCiphers,
  kTls13Ciphers,
  kSni,
  kNoSni,
};

inline constexpr std::array<OptionSpec, 11> kOptions{{
    {kInsecure, 'k', "insecure", false},
    {kCaCert, '\0', "cacert", true},
    {kCert, '\0', "cert", true},
    {kKey, '\0', "key", true},
    {kNoTlsResume, '\0', "no-tls-resume", false},
    {kTlsMin, '\0', "tls-min", true},
    {kTlsMax, '\0', "tls-max", true},
    {kCiphers, '\0', "ciphers", true},
    {kTls13Ciphers, '\0', "tls13-ciphers", true},
    {kSni, '\0', "sni", true},
    {kNoSni, '\0', "no-sni", false},
}};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

// The checks between them: --tls-min above --tls-max, --sni with --no-sni, and
// what HTTP/3 (QUIC: TLS 1.3 only, GnuTLS) cannot take. (Cipher strings are
// checked by OpenSSL when the TLS client is built: exit 2 naming the value.)
Status finish(const Config& config);

}  // namespace pacer::cli::tls
