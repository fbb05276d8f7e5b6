// The value of -b/--body: a literal string, `@FILE` (the file's bytes, exactly),
// `@-` (all of standard input, stdin_fd) or `@@x` (the literal "@x"). Main thread, at parse time.
//
// A file or stdin is read to at most max_bytes (--max-request-body, 64 MiB by
// default): a regular file larger than that is refused before it is read, and
// anything that goes on past it (/dev/zero, `yes |`) is refused once it has.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// Fails with kBadInput naming `flag`, the file and strerror when it cannot be
// read, or the file (or stdin) and the cap when it holds more than max_bytes.
Result<std::string> read_body_argument(std::string_view value, std::string_view flag,
                                       int stdin_fd,
                                       std::uint64_t max_bytes = kDefaultMaxRequestBodyBytes);

}  // namespace pacer::cli
