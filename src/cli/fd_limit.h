// The open-file limit a run needs: one descriptor per connection, a few per worker
// thread (event loop, wake-up pipe, timers), and some slack for the resolver,
// TLS files and output files. Called once from the main thread while parsing.
#pragma once

#include <cstdint>

#include "core/expected.h"

namespace pacer::cli {

// Descriptors a run with these counts needs: connections + 4 per thread + 32.
std::uint64_t fd_needed(int connections, int threads);

// Raises the RLIMIT_NOFILE soft limit (never above the hard limit) when it is below
// fd_needed(). Fails with kBadArgument naming -c and how to raise the hard limit
// when even the hard limit is too low. Changes process state (setrlimit).
Status ensure_fd_limit(int connections, int threads);

}  // namespace pacer::cli
