// `pacer serve [options]`: the options of the built-in test target. Split from
// cli.cc so each command's options live in one file. Main thread, at parse time.
#pragma once

#include <span>
#include <string>

#include "cli/cli.h"
#include "cli/option_table.h"
#include "core/expected.h"

namespace pacer::cli {

// args: what follows "serve". Yields kServe, or kHelp with serve_usage().
Result<Invocation> parse_serve(std::span<const std::string> args);

// Its option table's specs and faults (option_table.h), for the tests.
OptionTableReport serve_options_table();

// "127.0.0.1:8080", "[::1]:8080", or ":8080" (meaning 127.0.0.1). Port 0 allowed.
// Literal addresses only: no name resolution. Errors name `flag`.
Status parse_listen(std::string_view text, std::string_view flag, server::ServeConfig& serve);

}  // namespace pacer::cli
