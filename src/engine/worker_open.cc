// The open model's side of the worker: arrivals from the schedule, the backlog
// of arrivals waiting for a connection, --deadline shedding, and what is left
// in the backlog when the run ends. See worker.h.
#include <algorithm>

#include "engine/worker.h"

namespace pacer::engine {

void Worker::dispatch_arrivals() {
  // Arrivals due before the end are taken even if this wake-up came after it.
  while (next_arrival_ns_ <= now_ && next_arrival_ns_ < shared_.end_ns) {
    const TimeNs t_sched = next_arrival_ns_;
    const std::optional<TimeNs> next = schedule_->next();
    next_arrival_ns_ = next ? shared_.start_ns + *next : std::numeric_limits<TimeNs>::max();
    if (is_recorded(t_sched)) {
      if (quota_left_) {
        if (*quota_left_ == 0) {
          next_arrival_ns_ = std::numeric_limits<TimeNs>::max();  // -n reached: the schedule ends here
          return;
        }
        --*quota_left_;
      }
      ++result_.counters.scheduled;
    }
    take_arrival(t_sched);
  }
  if (next_arrival_ns_ >= shared_.end_ns) next_arrival_ns_ = std::numeric_limits<TimeNs>::max();
}

void Worker::take_arrival(TimeNs t_sched) {
  while (Connection* c = idle_.front()) {
    if (free_capacity(*c) == 0) {
      // It can take no more requests (a GOAWAY, `Connection: close`): it reopens
      // once its requests in flight complete.
      idle_.remove(*c);
      continue;
    }
    send_request(*c, t_sched);
    // The idle list holds connections with a free slot; a full one leaves it.
    if (free_capacity(*c) == 0) idle_.remove(*c);
    flush(*c);
    return;
  }
  if (!backlog_.push(t_sched)) {
    if (is_recorded(t_sched)) ++result_.counters.errors.backlog;
    return;
  }
  result_.counters.peak_backlog = std::max<std::uint64_t>(result_.counters.peak_backlog, backlog_.size());
}

bool Worker::pop_backlog(TimeNs& t_sched) {
  const TimeNs deadline = shared_.config->deadline_ns;
  while (!backlog_.empty()) {
    const TimeNs t = backlog_.pop();
    if (deadline > 0 && now_ - t > deadline) {
      if (is_recorded(t)) ++result_.counters.errors.deadline;  // shed: not sent, not recorded
      continue;
    }
    t_sched = t;
    return true;
  }
  return false;
}

void Worker::expire_backlog_at_drain_end() {
  if (!draining_ || backlog_.empty() || now_ < shared_.end_ns + shared_.config->timeout_ns) return;
  // Arrivals that never found a connection within the drain: they got no
  // response, so they count as timeouts, censored at the time they are given up.
  while (!backlog_.empty()) {
    const TimeNs t = backlog_.pop();
    if (!is_recorded(t)) continue;
    ++result_.counters.errors.timeout;
    if (shared_.config->record_timeouts) record_latency(now_ - t, true);
  }
}

}  // namespace pacer::engine
