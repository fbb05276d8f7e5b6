// The end a run's load control gives it (issue 27): a shape that returns nil, or
// fails, ends the run; the workers then drain as at -d's end. The control writes
// (the main thread's shape, one writer at a time); workers read ended() once per
// turn and, once it is set, ended_at_ns() (stored before it, so always the time).
#pragma once

#include <atomic>

#include "core/clock.h"

namespace pacer::engine {

class RunEnd {
 public:
  bool ended() const { return ended_.load(std::memory_order_relaxed); }
  // When it ended (monotonic; 0 before): the second the shape was asked at, or the error's time.
  TimeNs ended_at_ns() const { return ended_at_ns_.load(std::memory_order_acquire); }
  // Ends the run at at_ns; false (and nothing changes) when it had ended already.
  bool end(TimeNs at_ns) {
    if (ended()) return false;
    ended_at_ns_.store(at_ns, std::memory_order_release);
    ended_.store(true, std::memory_order_release);
    return true;
  }

 private:
  std::atomic<bool> ended_{false};
  std::atomic<TimeNs> ended_at_ns_{0};  // stored before ended_
};

}  // namespace pacer::engine
