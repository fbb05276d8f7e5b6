// The run's request options: -H headers and the caps on what a request or a
// script's capture may hold (--max-request-body, --max-capture-headers,
// --max-capture-header-bytes, --max-capture-body) and on request names
// (--max-names). Their own option table and apply function, scanned with the
// run's (cli/run_options.h). Pure; any thread.
#pragma once

#include <span>
#include <string>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::request {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// -m: an HTTP token (RFC 9110 tchar), as given.
Result<std::string> parse_method(const ScannedOption& option);

}  // namespace pacer::cli::request
