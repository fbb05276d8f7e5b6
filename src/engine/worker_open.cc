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
  // wake-up, and the ones nothing can send are counted at once (skip_due_arrivals):
  // those already past the backlog's limit, and all those due while no connection
  // is idle and the backlog is full.
  const TimeNs stale_before = now_ - backlog_limit_ns();
  for (int budget = kArrivalsPerWake; next_arrival_ns_ <= now_ && next_arrival_ns_ < shared_.end_ns; --budget) {
    if (budget == 0) return;
    if (next_arrival_ns_ < stale_before) {
      skip_due_arrivals(stale_before, true);
      continue;
    }
    if (backlog_.full() && idle_.empty()) {
      skip_due_arrivals(now_ + 1, false);
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

void Worker::skip_due_arrivals(TimeNs until_ns, bool stale) {
  const TimeNs first = next_arrival_ns_;
  std::uint64_t due = 1 + schedule_->skip_before(std::min(until_ns, shared_.end_ns) - shared_.start_ns);
  const bool recorded = is_recorded(first);
  if (recorded && quota_left_) due = std::min(due, *quota_left_);
  const std::optional<TimeNs> next = schedule_->next();
  next_arrival_ns_ = next ? shared_.start_ns + *next : std::numeric_limits<TimeNs>::max();
  if (!recorded) return;
  if (quota_left_) {
    *quota_left_ -= due;
    if (*quota_left_ == 0) next_arrival_ns_ = std::numeric_limits<TimeNs>::max();  // -n reached
  }
  result_.counters.scheduled += due;
  if (stale) {
    give_up_arrival(first, due, backlog_limit_ns());  // each waited at least the limit
  } else {
    result_.counters.errors.backlog += due;  // as take_arrival counts them one by one
  }
}

void Worker::take_arrival(TimeNs t_sched) {
  if (users_) {
    users_->start_task(t_sched);  // scenarios: an arrival is a task, for a free user
    return;
  }
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

void Worker::give_up_arrival(TimeNs t_sched, std::uint64_t count, TimeNs waited_ns) {
  if (!is_recorded(t_sched)) return;
  const Config& config = *shared_.config;
  if (config.deadline_ns > 0 && config.deadline_ns <= config.timeout_ns) {
    result_.counters.errors.deadline += count;  // shed: not sent, not recorded
    return;
  }
  // Never written, so not a server timeout: pacer's connections could not take
  // it within --timeout. Its true latency is at least its age (censored), like a
  // timeout's; leaving it out would make the latency look better the further the
  // run falls behind.
  result_.counters.errors.unsent += count;
  if (config.record_timeouts) {
    record_latency(kUnsent, waited_ns >= 0 ? waited_ns : now_ - t_sched, true, static_cast<std::int64_t>(count));
  }
}

}  // namespace pacer::engine
