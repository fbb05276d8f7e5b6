// The users' timers (spawns, sleeps, think times, retirements): a min-heap of
// (due time, user), room reserved once. A timer is never cancelled: its owner
// skips a stale one when it pops (the user's own due time has moved on). One
// worker thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/clock.h"

namespace pacer::scenario {

class TimerHeap {
 public:
  struct Timer {
    TimeNs at_ns;
    int user;
  };

  // reserve: room for this many timers without allocating (more still fit).
  explicit TimerHeap(std::size_t reserve) { timers_.reserve(reserve); }

  void add(int user, TimeNs at_ns) {
    timers_.push_back(Timer{at_ns, user});
    std::push_heap(timers_.begin(), timers_.end(), &later);
  }
  bool empty() const { return timers_.empty(); }
  std::size_t size() const { return timers_.size(); }
  // The earliest due time; INT64_MAX when there is no timer.
  TimeNs next_ns() const { return timers_.empty() ? std::numeric_limits<TimeNs>::max() : timers_.front().at_ns; }
  // Takes the earliest timer into `out` if it is due at now_ns; false when none is.
  // Timers due at the same time come out in no set order.
  bool pop_due(TimeNs now_ns, Timer& out) {
    if (timers_.empty() || timers_.front().at_ns > now_ns) return false;
    std::pop_heap(timers_.begin(), timers_.end(), &later);
    out = timers_.back();
    timers_.pop_back();
    return true;
  }

 private:
  static bool later(const Timer& a, const Timer& b) { return a.at_ns > b.at_ns; }
  std::vector<Timer> timers_;
};

}  // namespace pacer::scenario
