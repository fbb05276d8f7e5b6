// Splits argv into options and positional arguments, getopt_long style: short
// options take their value attached or as the next argument (`-c100`, `-c 100`),
// flags without a value may be clustered (`-hv`), long options take `--opt=value`
// or `--opt value`, `--` ends the options, and options may follow positionals.
// Long names must match exactly (no prefix abbreviations). Pure; any thread.
#pragma once

#include <utility>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"

namespace pacer::cli {

struct OptionSpec {
  int id = 0;
  char short_name = '\0';        // '\0': long form only
  std::string_view long_name;    // without the leading "--"; never empty
  bool takes_value = false;
  // An optional value (takes_value false): `--opt=value`, or the next argument
  // when this accepts it (`--web 127.0.0.1:9000` but not `--web http://x/`);
  // otherwise the option comes with an empty value. (--web)
  bool (*accepts_next_as_value)(std::string_view next) = nullptr;
};

struct ScannedOption {
  int id = 0;
  std::string flag;   // as the user spelled it ("-c" or "--connections"), for messages
  std::string value;  // empty for options that take none
  std::size_t arg_index = 0;  // the argument holding the value: all of it, or its end (`-c100`, `--c=1`)
};

struct ScanResult {
  std::vector<ScannedOption> options;   // in command-line order
  std::vector<std::string> positionals; // in command-line order
  // The first unknown option, missing value or unexpected `--flag=value`. Scanning
  // goes on past it, so a later -h/--help still wins over the mistake.
  std::optional<Error> first_error;

  bool has(int id) const;
};

// help_hint names the help command in messages, e.g. "pacer --help".
ScanResult scan_options(std::span<const std::string> args, std::span<const OptionSpec> specs,
                        std::string_view help_hint);

// Stores `parsed` into `field` or passes its error on (the options' apply functions).
template <typename T, typename Field>
Status store(Result<T> parsed, Field& field) {
  if (!parsed) return parsed.error();
  field = std::move(*parsed);
  return Ok{};
}

// -t, -c, -u: a count from 1 to INT_MAX; `what` names it in messages.
Result<int> parse_positive_int(const ScannedOption& option, std::string_view what);
// -d, --timeout, --deadline: a duration above 0.
Result<TimeNs> parse_positive_duration(const ScannedOption& option, std::string_view what);

}  // namespace pacer::cli
