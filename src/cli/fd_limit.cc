// RLIMIT_NOFILE check and raise; see the header. Main thread only, before workers start.
#include "cli/fd_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace pacer::cli {

std::uint64_t fd_needed(int connections, int threads) {
  constexpr std::uint64_t kPerThread = 4;
  constexpr std::uint64_t kSlack = 32;
  return static_cast<std::uint64_t>(std::max(connections, 0)) +
         static_cast<std::uint64_t>(std::max(threads, 0)) * kPerThread + kSlack;
}

Status ensure_fd_limit(int connections, int threads) {
  const std::uint64_t needed = fd_needed(connections, threads);
  rlimit limit{};
  // If the limit cannot even be read, let the run try; connect errors will say why.
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return Ok{};
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return Ok{};

  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    return bad_argument(fmt::format(
        "-c {} needs about {} open files but the hard limit is {}; raise it "
        "(ulimit -n {} or LimitNOFILE= in systemd, /etc/security/limits.conf) or lower -c",
        connections, needed, limit.rlim_max, needed));
  }
  limit.rlim_cur = static_cast<rlim_t>(needed);
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return bad_argument(fmt::format("-c {} needs about {} open files but raising the limit "
                                    "failed: {}; raise it (ulimit -n {}) or lower -c",
                                    connections, needed, std::strerror(errno), needed));
  }
  return Ok{};
}

}  // namespace pacer::cli
