// What a stored or shown copy of the command line may say (issue 44): the JSON
// report's config.command_line (and so --html, `pacer report`, the web view) and
// --print-config. Passwords, tokens, credentials in headers and cookie values are
// replaced by "***"; a proxy URL is shown as the Proxy: line shows it
// (proxy::ProxyUrl::shown, without its user and password). Pure; any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_scan.h"

namespace pacer::cli {

inline constexpr std::string_view kHiddenSecret = "***";

// The value of the option named long_name ("user", "header", ...) with its
// secret part hidden; any other option's value unchanged.
std::string shown_value(std::string_view long_name, std::string_view value);

// args (a run's argv[1..]) with every option's value as shown_value gives it,
// in whichever form it was given (`--user=a:b`, `--user a:b`, `-xURL`, `-x URL`).
std::vector<std::string> without_secrets(std::span<const std::string> args, std::span<const OptionSpec> specs);

}  // namespace pacer::cli
