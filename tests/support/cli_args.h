// Test support: cli::parse on a list of arguments, with the given text as stdin,
// and the message of one it refuses.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli.h"
#include "text_fd.h"

namespace pacer::testing {

using Args = std::vector<std::string>;

inline Result<cli::Invocation> parse_args(const Args& args, const std::string& stdin_text = "") {
  const TextFd in(stdin_text);
  return cli::parse(args, in.get());
}

// The message of a command line that must be refused with an error of `kind`;
// "" (and a failed expectation) when it is accepted.
inline std::string error_of(const Args& args, ErrorKind kind = ErrorKind::kBadArgument) {
  auto parsed = parse_args(args);
  EXPECT_FALSE(parsed.ok()) << "accepted";
  if (parsed.ok()) return {};
  EXPECT_EQ(parsed.error().kind, kind) << parsed.error().message;
  return parsed.error().message;
}

}  // namespace pacer::testing
