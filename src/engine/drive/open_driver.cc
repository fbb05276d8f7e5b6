// See open_driver.h.
#include "engine/drive/open_driver.h"

#include <algorithm>
#include <utility>

namespace pacer::engine {

OpenDriver::OpenDriver(const SharedRun& shared, int worker_index, std::size_t connections,
                       std::optional<std::uint64_t> quota, LoopClock& clock, Recorder& recorder, Exchange& exchange,
                       RequestSource source)
    : clock_(clock),
      recorder_(recorder),
      exchange_(exchange),
      source_(std::move(source)),
      arrivals_(shared, worker_index, clock, recorder, quota),
      backlog_(arrivals_.backlog_capacity()),
      idle_(connections) {}

void OpenDriver::start(ConnectionPool& pool) {
  arrivals_.start();
  pool.start(clock_.now, ConnectionPool::Opening::kEach);
}

bool OpenDriver::wants_connection(Connection&) { return !clock_.draining || !backlog_.empty(); }

void OpenDriver::fill(Connection& c) {
  TimeNs t_sched = 0;
  while (exchange_.free_capacity(c) > 0 && pop_backlog(t_sched)) (void)send_from(source_, exchange_, c, t_sched);
  if (exchange_.free_capacity(c) > 0 && !idle_.contains(c)) idle_.push_back(c);
}

void OpenDriver::completed(Connection& c, const RequestSlot&, int status, TimeNs, bool) { source_.responded(c, status); }

bool OpenDriver::put_back(RequestSlot& slot, bool recorded) {
  if (!backlog_.push(slot.t_sched) && recorded) recorder_.count(&stats::ErrorCounts::backlog, clock_.now);
  return true;
}

void OpenDriver::on_turn(TurnPhase phase) {
  if (phase == TurnPhase::kArrivals) {
    arrivals_.follow_control();  // a new rate from the shape or the web view
    arrivals_.dispatch([this](TimeNs t_sched) { take(t_sched); },
                       [this] { return backlog_.full() && idle_.empty(); });
  } else if (phase == TurnPhase::kBacklog) {
    expire_backlog();
  }
}

void OpenDriver::take(TimeNs t_sched) {
  while (Connection* c = idle_.front()) {
    if (exchange_.free_capacity(*c) == 0) {
      // It can take no more requests (a GOAWAY, `Connection: close`): it reopens
      // once its requests in flight complete.
      idle_.remove(*c);
      continue;
    }
    (void)send_from(source_, exchange_, *c, t_sched);  // a failing script stops the run; the worker writes it
    // The idle list holds connections with a free slot; a full one leaves it.
    if (exchange_.free_capacity(*c) == 0) idle_.remove(*c);
    return;
  }
  if (!backlog_.push(t_sched)) {
    if (recorder_.recorded(t_sched)) recorder_.count(&stats::ErrorCounts::backlog, clock_.now);
    return;
  }
  recorder_.backlog_depth(backlog_.size());
}

bool OpenDriver::pop_backlog(TimeNs& t_sched) {
  while (!backlog_.empty()) {
    const TimeNs t = backlog_.pop();
    // Usually caught by expire_backlog() first; a request put back by a graceful
    // GOAWAY sits behind younger arrivals and is caught here.
    if (clock_.now - t >= arrivals_.limit_ns()) {
      arrivals_.give_up(t);
      continue;
    }
    t_sched = t;
    return true;
  }
  return false;
}

void OpenDriver::expire_backlog() {
  while (!backlog_.empty() && clock_.now - backlog_.front() >= arrivals_.limit_ns()) arrivals_.give_up(backlog_.pop());
}

TimeNs OpenDriver::next_due_ns() const {
  TimeNs next = arrivals_.next_due_ns();
  if (!backlog_.empty()) next = std::min(next, backlog_.front() + arrivals_.limit_ns());
  return next;
}

LoadProgress OpenDriver::progress() const {
  // A request in the backlog is still to be sent, in the drain too.
  if (!backlog_.empty()) return LoadProgress{};
  return LoadProgress{arrivals_.all_arrived(), arrivals_.drained()};
}

void OpenDriver::gauges(IntervalGauges& out) const {
  out.backlog = backlog_.size();
  out.schedule_lag_ns = backlog_.empty() ? 0 : std::max<TimeNs>(0, clock_.now - backlog_.front());
}

}  // namespace pacer::engine
