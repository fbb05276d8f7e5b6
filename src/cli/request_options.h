// The run's request options: -H headers and the caps on what a request or a
// script's capture may hold (--max-request-body, --max-capture-headers,
// --max-capture-header-bytes, --max-capture-body) and on request names
// (--max-names). Their own option table and apply function, scanned with the
// run's (cli.cc). Pure; any thread.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::request {

enum Option : int {
  kHeader = 4000,  // past the TLS options' ids
  kMaxRequestBody,
  kMaxCaptureHeaders,
  kMaxCaptureHeaderBytes,
  kMaxCaptureBody,
  kMaxNames,
};

inline constexpr std::array<OptionSpec, 6> kOptions{{
    {kHeader, 'H', "header", true},
    {kMaxRequestBody, '\0', "max-request-body", true},
    {kMaxCaptureHeaders, '\0', "max-capture-headers", true},
    {kMaxCaptureHeaderBytes, '\0', "max-capture-header-bytes", true},
    {kMaxCaptureBody, '\0', "max-capture-body", true},
    {kMaxNames, '\0', "max-names", true},
}};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

// -m: an HTTP token (RFC 9110 tchar), as given.
Result<std::string> parse_method(const ScannedOption& option);

}  // namespace pacer::cli::request
