// The open model's side of the worker: arrivals from the schedule, the backlog
// of arrivals waiting for a connection, and giving up on those that waited too
// long (`unsent` after --timeout, `deadline` after a shorter --deadline), during
// the run and its drain alike. See worker.h.
#include <algorithm>

#include "engine/worker.h"

namespace pacer::engine {

namespace {
// Arrivals taken one by one per wake-up; the loop comes back at once for the rest.
constexpr int kArrivalsPerWake = 4096;
}  // namespace

void Worker::dispatch_arrivals() {
  // Arrivals due before the end are taken even if this wake-up came after it. A
  // rate faster than the loop must not hold it: at most kArrivalsPerWake per
  // wake-up, and once nothing can take them (no idle connection, a full backlog)
  // the ones due are counted at once (overflow_due_arrivals).
  for (int budget = kArrivalsPerWake; next_arrival_ns_ <= now_ && next_arrival_ns_ < shared_.end_ns; --budget) {
    if (budget == 0) return;
    if (backlog_.full() && idle_.empty()) {
      overflow_due_arrivals();
      continue;
    }
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

void Worker::overflow_due_arrivals() {
  // The arrival at next_arrival_ns_ and every one due up to now (before the end):
  // backlog overflows, as take_arrival would count them one by one.
  const TimeNs until_ns = std::min(now_ + 1, shared_.end_ns) - shared_.start_ns;
  std::uint64_t due = 1 + schedule_->skip_before(until_ns);
  const bool recorded = is_recorded(next_arrival_ns_);
  if (recorded && quota_left_) due = std::min(due, *quota_left_);
  const std::optional<TimeNs> next = schedule_->next();
  next_arrival_ns_ = next ? shared_.start_ns + *next : std::numeric_limits<TimeNs>::max();
  if (!recorded) return;
  if (quota_left_) {
    *quota_left_ -= due;
    if (*quota_left_ == 0) next_arrival_ns_ = std::numeric_limits<TimeNs>::max();  // -n reached
  }
  result_.counters.scheduled += due;
  result_.counters.errors.backlog += due;
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
  const TimeNs limit = backlog_limit_ns();
  while (!backlog_.empty()) {
    const TimeNs t = backlog_.pop();
    // Usually caught by expire_backlog() first; a request put back by a graceful
    // GOAWAY sits behind younger arrivals and is caught here.
    if (now_ - t >= limit) {
      give_up_arrival(t);
      continue;
    }
    t_sched = t;
    return true;
  }
  return false;
}

TimeNs Worker::backlog_limit_ns() const {
  const Config& config = *shared_.config;
  return config.deadline_ns > 0 ? std::min(config.deadline_ns, config.timeout_ns) : config.timeout_ns;
}

void Worker::expire_backlog() {
  const TimeNs limit = backlog_limit_ns();
  while (!backlog_.empty() && now_ - backlog_.front() >= limit) give_up_arrival(backlog_.pop());
}

void Worker::give_up_arrival(TimeNs t_sched) {
  if (!is_recorded(t_sched)) return;
  const Config& config = *shared_.config;
  if (config.deadline_ns > 0 && config.deadline_ns <= config.timeout_ns) {
    ++result_.counters.errors.deadline;  // shed: not sent, not recorded
    return;
  }
  // Never written, so not a server timeout: pacer's connections could not take
  // it within --timeout. Its true latency is at least its age (censored), like a
  // timeout's; leaving it out would make the latency look better the further the
  // run falls behind.
  ++result_.counters.errors.unsent;
  if (config.record_timeouts) record_latency(now_ - t_sched, true);
}

}  // namespace pacer::engine
