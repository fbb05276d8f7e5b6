// The value of -b/--body: a literal string, `@FILE` (the file's bytes, exactly),
// `@-` (all of stdin_stream) or `@@x` (the literal "@x"). Main thread, at parse time.
#pragma once

#include <istream>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer::cli {

// Fails with kBadInput naming `flag`, the file and strerror when it cannot be read.
Result<std::string> read_body_argument(std::string_view value, std::string_view flag,
                                       std::istream& stdin_stream);

}  // namespace pacer::cli
