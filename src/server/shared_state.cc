// The freeze wait of SharedState. See shared_state.h.
#include "server/shared_state.h"

#include <poll.h>

namespace pacer::server {

TimeNs SharedState::wait_out_freeze(TimeNs now_ns, int wake_fd) const {
  if (config.freeze_at_ns < 0 || config.freeze_for_ns <= 0) return now_ns;
  const TimeNs first_ns = first_request_ns_.load(std::memory_order_acquire);
  if (first_ns < 0) return now_ns;
  const TimeNs start_ns = first_ns + config.freeze_at_ns;
  const TimeNs end_ns = start_ns + config.freeze_for_ns;
  while (now_ns >= start_ns && now_ns < end_ns && !stop_requested.load(std::memory_order_acquire)) {
    // Waiting on the eventfd (not reading it) makes stop() prompt even mid-freeze.
    pollfd wake{wake_fd, POLLIN, 0};
    const TimeNs left_ns = end_ns - now_ns;
    ::poll(&wake, 1, static_cast<int>((left_ns + kNsPerMs - 1) / kNsPerMs));
    now_ns = monotonic_now_ns();
  }
  return now_ns;
}

}  // namespace pacer::server
