// The open model's tasks waiting for a free user: their scheduled times, oldest
// first, in a ring of a fixed room (allocated once; the engine sizes it as its
// request backlog, arrivals.h). A task that finds it full, or waits in it too
// long, is given up by the owner. One worker thread.
#pragma once

#include <algorithm>
#include <cstddef>

#include "core/clock.h"
#include "scenario/fixed_ring.h"

namespace pacer::scenario {

class TaskBacklog {
 public:
  // capacity: tasks that may wait (at least one).
  explicit TaskBacklog(std::size_t capacity) : ring_(std::max<std::size_t>(capacity, 1)) {}

  // A task scheduled at t_sched waits; false when there is no room (not kept).
  bool push(TimeNs t_sched) { return ring_.push_back(t_sched); }
  // The oldest task's scheduled time, taken into t_sched; false when none waits.
  bool take(TimeNs& t_sched) {
    if (ring_.empty()) return false;
    t_sched = ring_.pop_front();
    return true;
  }
  // Like take, for the oldest task only if it has waited limit_ns or longer at now_ns.
  bool take_expired(TimeNs now_ns, TimeNs limit_ns, TimeNs& t_sched) {
    if (ring_.empty() || now_ns - ring_.front() < limit_ns) return false;
    t_sched = ring_.pop_front();
    return true;
  }
  std::size_t size() const { return ring_.size(); }
  bool empty() const { return ring_.empty(); }

 private:
  FixedRing<TimeNs> ring_;
};

}  // namespace pacer::scenario
