// --config FILE (TOML) and PACER_<OPTION> environment variables (issue 27): two
// layers in front of the run's option scanner. Each layer is turned back into
// command-line arguments (`--name=value`), so every option of the run's table,
// including ones added later, works from a file and from the environment with no
// code of its own, and is checked by the same parser.
//
// Precedence: command line > environment > file, option by option: an option
// given on a higher layer replaces every value of it on the lower ones (a -H on
// the command line replaces the file's headers; the file's headers are kept when
// the command line gives none). Pure but for reading the file; main thread, once.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/option_scan.h"
#include "core/expected.h"

namespace pacer::cli {

// Where a setting came from, for --print-config.
struct SettingOrigin {
  std::string name;    // the long option name ("connections"), or "url"
  std::string value;   // as it will be parsed; "true" for a flag without value
  std::string origin;  // "command line", "environment PACER_X", "file.toml:3"
  bool is_flag = false;  // a flag given without a value ("true" above)
};

struct LayeredArgs {
  std::vector<std::string> args;      // file, then environment, then command line; --config and --print-config removed
  bool print_config = false;          // --print-config was given
  std::vector<SettingOrigin> origins; // every setting in `args`, in that order
};

// args: argv[1..] of a run; env: "NAME=VALUE" entries (environ); specs: the run's
// option table. A misspelled file key names the key and its line; a PACER_
// variable that names no option is ignored (PACER_BIN and friends are not
// options), but one whose value does not fit its option is an error naming it.
// Errors are kBadArgument/kBadInput (exit 2).
// takes_url: false for `pacer demo`, whose target is its own (a url setting is left out).
Result<LayeredArgs> apply_config_layers(std::span<const std::string> args, std::span<const std::string> env,
                                        std::span<const OptionSpec> specs, bool takes_url = true);

// A parse error about an option that came from the file or the environment,
// prefixed with where it came from ("pacer.toml:3 (connections): -c: ..." or
// "environment PACER_CONNECTIONS (connections): ..."); others unchanged.
Error with_origin(Error error, const LayeredArgs& layered);

// The process's PACER_* variables, "NAME=VALUE".
std::vector<std::string> pacer_environment();

// The environment variable of an option: PACER_ and the long name in upper case,
// '-' as '_' ("max-error-rate" -> PACER_MAX_ERROR_RATE).
std::string env_name(std::string_view long_name);

}  // namespace pacer::cli
