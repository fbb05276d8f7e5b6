// Parsing of --io auto|uring|epoll, and the check of PACER_IO (same values),
// which decides what auto means (io/select.h): the test suite runs once per
// engine with it.
#pragma once

#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// "auto", "uring" (or "io_uring"), "epoll"; anything else is a bad argument naming `flag`.
Result<IoChoice> parse_io(std::string_view text, std::string_view flag);
// PACER_IO, when set and not empty, must be one of those values (exit 2 otherwise).
Status check_io_env();

}  // namespace pacer::cli
