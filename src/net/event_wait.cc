// See event_wait.h.
#include "net/event_wait.h"

#include <cerrno>
#include <ctime>
#include <limits>

namespace pacer::net {

int EventWait::wait(int epoll_fd, epoll_event* events, int max_events, TimeNs timeout_ns) {
  if (has_pwait2_) {
    const timespec timeout{static_cast<time_t>(timeout_ns / kNsPerS), static_cast<long>(timeout_ns % kNsPerS)};
    const int n = ::epoll_pwait2(epoll_fd, events, max_events, timeout_ns < 0 ? nullptr : &timeout, nullptr);
    if (n >= 0 || errno != ENOSYS) return n;
    has_pwait2_ = false;
  }
  if (timeout_ns < 0) return ::epoll_wait(epoll_fd, events, max_events, -1);
  const TimeNs timeout_ms = (timeout_ns + kNsPerMs - 1) / kNsPerMs;
  const int capped_ms = timeout_ms > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                                       : static_cast<int>(timeout_ms);
  return ::epoll_wait(epoll_fd, events, max_events, capped_ms);
}

}  // namespace pacer::net
