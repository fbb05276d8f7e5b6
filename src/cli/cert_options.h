// `pacer cert [options]`: writes a throwaway self-signed certificate and key for
// `pacer serve --tls` and HTTPS tests (net/self_signed.h makes them). Split from
// cli.cc so each command's options live in one file. Main thread, at parse time.
#pragma once

#include <span>
#include <string>

#include "cli/cli.h"
#include "cli/option_table.h"
#include "core/expected.h"

namespace pacer::cli {

// args: what follows "cert". Yields kCert, or kHelp with cert_usage().
// --out must name an existing directory.
Result<Invocation> parse_cert(std::span<const std::string> args);

// Its option table's specs and faults (option_table.h), for the tests.
OptionTableReport cert_options_table();

}  // namespace pacer::cli
