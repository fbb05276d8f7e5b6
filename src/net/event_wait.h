// Waiting on an epoll set with a nanosecond timeout. epoll_pwait2 (Linux 5.11+)
// takes a timespec; older kernels, and tools such as valgrind that do not know
// the call, answer ENOSYS, and then the wait falls back to epoll_wait with the
// timeout rounded up to whole milliseconds (late, never early, and never a busy
// loop). One per event loop; touched only by that loop's thread.
#pragma once

#include <sys/epoll.h>

#include "core/clock.h"

namespace pacer::net {

class EventWait {
 public:
  // Waits up to timeout_ns for events on epoll_fd; a negative timeout_ns waits
  // until an event comes. Returns what the underlying call returns (the number of
  // events, or -1 with errno).
  int wait(int epoll_fd, epoll_event* events, int max_events, TimeNs timeout_ns);

 private:
  bool has_pwait2_ = true;
};

}  // namespace pacer::net
