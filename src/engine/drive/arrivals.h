// The open model's arrivals for one worker: its share of the run's schedule
// (load/schedule.h: arrival k at a nanosecond time, a pure function of k), the
// worker's share of -n, and the rules for arrivals nothing can send. Used by the
// open model's drivers (requests, and a scenario's tasks), which say what taking
// an arrival means. Arrivals due before the end are taken even if the loop
// reaches them after it; those already older than the backlog's limit, and
// those due while nothing can take them, are counted at once in O(1) instead of
// one by one, so a rate faster than the loop never holds it. One worker thread.
#pragma once

#include <cstdint>
#include <optional>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/record/recorder.h"
#include "engine/run_plan.h"
#include "load/schedule.h"

namespace pacer::engine {

class Arrivals {
 public:
  // quota: the worker's share of -n (arrivals scheduled at most), if any.
  Arrivals(const SharedRun& shared, int worker_index, LoopClock& clock, Recorder& recorder,
           std::optional<std::uint64_t> quota);

  // The loop starts: the first arrival's time.
  void start();
  // The run's rate changed while it goes (engine/control/load_control.h): from
  // now_ns, rate_per_s (the whole test's) for the rest of the run. The arrivals
  // already due keep their times.
  void retarget(double rate_per_s, TimeNs now_ns);
  // Takes the run's rate control's new rate, if it changed since last seen
  // (one atomic load when it did not). Before each dispatch.
  void follow_control();
  // Whether the rate may still change: a run with a rate control that has not
  // ended, where an exhausted schedule (rate 0) does not mean the end.
  bool steerable() const;
  // How long an arrival may wait for a connection: --timeout, or a shorter --deadline.
  TimeNs limit_ns() const { return limit_ns_; }
  // Room for every arrival of 10 s at the worker's share of the peak rate.
  std::size_t backlog_capacity() const;

  // Takes the arrivals due by now, before the end, oldest first (at most
  // kPerWake a call: the loop comes back at once for the rest): each goes to
  // take(t_sched), unless full() says nothing can take it.
  template <typename Take, typename Full>
  void dispatch(Take&& take, Full&& full) {
    const TimeNs stale_before = clock_.now - limit_ns_;
    for (int budget = kPerWake; next_ns_ <= clock_.now && next_ns_ < shared_.end_ns; --budget) {
      if (budget == 0) return;
      if (next_ns_ < stale_before) {
        skip_due(stale_before, true);
        continue;
      }
      if (full()) {
        skip_due(clock_.now + 1, false);
        continue;
      }
      const TimeNs t_sched = next_ns_;
      if (!advance(t_sched)) return;  // -n reached: the schedule ends here
      take(t_sched);
    }
    if (next_ns_ >= shared_.end_ns) next_ns_ = kNeverNs;
  }
  // `count` arrivals, the first due at t_sched, that waited waited_ns (-1: until
  // now) are given up: `unsent` (latency censored), or `deadline` (shed).
  void give_up(TimeNs t_sched, std::uint64_t count = 1, TimeNs waited_ns = -1);

  // Arrivals due before the end that the loop has not taken yet.
  bool due_before_end() const { return next_ns_ < shared_.end_ns; }
  // In the drain: no arrival due before the end is left untaken (kPerWake's).
  bool drained() const { return !due_before_end(); }
  // Before the drain: nothing more will arrive. A schedule that ran out early
  // (a profile ending at rate 0, whose last arrival comes before its end) still
  // ends at -d: the run covers the whole profile, so the measured window and the
  // target are the profile's. Only -n (no -d) or a -n reached ends the run with
  // the schedule; a schedule the web view or a shape can still raise does not.
  bool all_arrived() const {
    return exhausted() && ((shared_.end_ns == kNeverNs && !steerable()) || quota_reached());
  }
  bool exhausted() const { return next_ns_ == kNeverNs; }
  bool quota_reached() const { return quota_ && *quota_ == 0; }
  // Wake a little before the next arrival and poll the last stretch: a timer
  // wake-up from sleep can be tens of microseconds late.
  TimeNs next_due_ns() const;

 private:
  static constexpr int kPerWake = 4096;
  // Moves past the arrival at t_sched, counting it (recorded ones) against -n
  // and as scheduled. False: -n was reached before it.
  bool advance(TimeNs t_sched);
  // Counts in O(1) the arrival at next_ns_ and all others due before until_ns
  // that nothing can send: stale ones (past the limit already) are given up,
  // the others overflow the backlog.
  void skip_due(TimeNs until_ns, bool stale);

  // The schedule's times are offsets from base_ns_: the run's start, or the
  // last retarget's time (whose profile own_profile_ holds).
  TimeNs to_absolute(std::optional<TimeNs> offset) const { return offset ? base_ns_ + *offset : kNeverNs; }

  const SharedRun& shared_;
  const int worker_index_;
  LoopClock& clock_;
  Recorder& recorder_;
  std::optional<load::RateProfile> own_profile_;
  load::ArrivalSchedule schedule_;
  TimeNs base_ns_ = 0;
  std::optional<std::uint64_t> quota_;
  TimeNs limit_ns_;
  TimeNs next_ns_ = kNeverNs;  // absolute; kNeverNs: none (ended)
  std::uint64_t control_seen_ = 0;  // the LoadControl generation taken
};

}  // namespace pacer::engine
