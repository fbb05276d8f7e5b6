// The run's TLS options: -k/--insecure, --cacert, --cert, --key,
// --no-tls-resume, --tls-min/--tls-max, --ciphers, --tls13-ciphers, --sni and
// --no-sni (docs/tls.md). Their own option table and apply function,
// scanned with the run's (cli/run_options.h). A file option names a file that can be read
// now (its contents are checked when the TLS context is built, also exit 2).
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::tls {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// The checks between them: --tls-min above --tls-max, --sni with --no-sni, and
// what HTTP/3 (QUIC: TLS 1.3 only, GnuTLS) cannot take. (Cipher strings are
// checked by OpenSSL when the TLS client is built: exit 2 naming the value.)
Status finish(const Config& config);

}  // namespace pacer::cli::tls
