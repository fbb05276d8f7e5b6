// Test support: cli::parse on a list of arguments, with the given text as stdin.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace pacer::testing {

using Args = std::vector<std::string>;

inline Result<cli::Invocation> parse_args(const Args& args, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  return cli::parse(args, in);
}

}  // namespace pacer::testing
