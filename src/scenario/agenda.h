// When each user runs next: the ready queue (users whose coroutine resumes at
// the next turn, in the order they were queued) and the timers (sleeps, think
// times, spawns, retirements). Queuing a user sets its state and what it is
// resumed with; Users::run_due takes the due timers, then the queued users.
// Allocated once for the worker's users. One worker thread.
#pragma once

#include <cstddef>

#include "core/clock.h"
#include "scenario/ready_queue.h"
#include "scenario/timer_heap.h"
#include "scenario/user.h"

namespace pacer::scenario {

class Agenda {
 public:
  explicit Agenda(std::size_t users) : ready_(users), timers_(users * 2 + 1) {}

  // u resumes at the next turn with `kind` (kQueued). A user already queued
  // keeps its place and is resumed with the new kind.
  void queue(User& u, Resume kind) {
    u.state = User::State::kQueued;
    u.resume_kind = kind;
    ready_.push(u.index);
  }
  // u begins a task scheduled at t_sched: its first step is due then (docs/scenarios.md, "Timing").
  void give_task(User& u, TimeNs t_sched) {
    u.task = -1;  // the user loop picks it (Users::tally().task_is)
    u.task_start_ns = t_sched;
    u.mark_ns = t_sched;
    u.in_task = true;
    u.task_errors = 0;
    queue(u, Resume::kTask);
  }
  // u's sleep or think time is over (wake_ns): a sleeping user goes on, a thinking one begins its next task.
  void wake(User& u) {
    if (u.state == User::State::kSleeping) {
      queue(u, Resume::kNothing);
    } else if (u.state == User::State::kThinking) {
      give_task(u, u.wake_ns);
    }
  }
  void add_timer(int user, TimeNs at_ns) { timers_.add(user, at_ns); }
  // The next due time: now_ns when users are queued, INT64_MAX when nothing waits.
  TimeNs next_due_ns(TimeNs now_ns) const { return ready_.empty() ? timers_.next_ns() : now_ns; }
  // A timer due at now_ns, taken; the caller skips it if the user's due time moved on.
  bool pop_timer(TimeNs now_ns, TimerHeap::Timer& out) { return timers_.pop_due(now_ns, out); }
  bool has_ready() const { return !ready_.empty(); }
  // The user queued first, taken off the queue (its state says whether it still waits to resume).
  int pop_ready() { return ready_.pop(); }

 private:
  ReadyQueue ready_;
  TimerHeap timers_;
};

}  // namespace pacer::scenario
