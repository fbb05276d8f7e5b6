// When a worker's loop ends, decided in one place. The rules, in the order the
// loop asks them:
//
//   at once, before a turn: the stop flag (a signal, the controller's timeout, a
//     stuck-worker stop), a script's wrk.stop / pacer.stop, the give-up rule
//     (no connection of the run open for --give-up): nothing more is waited for;
//   the drain begins, at a wake-up: -d's end (a capacity search's step is a run
//     with its own -d), or the load control's end (a load shape's last step, an
//     error in it): no new request from then on, the ones in flight finish;
//   done, after a turn: nothing in flight, and the load driver has nothing more
//     to send: before the drain, -n reached or a schedule that ran out (the
//     driver's sent_all); during it, nothing it must still send (drained: a
//     backlog, arrivals due before the end, users ending their tasks).
//
// The loop gathers the facts (the parts own them) and asks; what each fact
// means for the run is here. One worker thread.
#pragma once

#include <optional>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/run_plan.h"

namespace pacer::engine {

class RunEnd;

// Why the loop ended.
enum class StopReason : std::uint8_t {
  kRunning,     // not yet
  kStopFlag,    // the run's stop flag
  kScriptStop,  // a script asked to stop
  kGaveUp,      // --give-up: no connection open for that long
  kDone,        // the load is done (-d and its drain, -n, a shape's end, a schedule's end)
};

// What the load driver says of its load (drive/driver.h).
struct LoadProgress {
  bool sent_all = false;  // before the drain: nothing more will be sent (-n reached, a schedule ran out)
  bool drained = false;   // during the drain: nothing more it must still send
};

class StopRules {
 public:
  // run_end: the load control's end (a shape's), or null. -d's end is not held:
  // the run's start sets it after the workers are made, so each question is
  // given it (end_ns: SharedRun::end_ns, kNeverNs: none).
  explicit StopRules(const RunEnd* run_end) : run_end_(run_end) {}

  // Before a turn: a stop that ends the loop at once (kRunning: none).
  static StopReason interrupted(bool stop_flag, bool script_stop, bool gave_up) {
    if (stop_flag) return StopReason::kStopFlag;
    if (script_stop) return StopReason::kScriptStop;
    if (gave_up) return StopReason::kGaveUp;
    return StopReason::kRunning;
  }
  // At a wake-up at now_ns, not yet draining: whether the drain begins, and
  // where the recorded window ends (-d's end, or a shape's end when it came
  // first; never after now_ns). Nullopt: not yet.
  std::optional<TimeNs> drain_begins(TimeNs now_ns, TimeNs end_ns) const;
  // After a turn: whether the load is done.
  static StopReason done(bool draining, bool in_flight, LoadProgress progress) {
    if (in_flight) return StopReason::kRunning;
    const bool done = draining ? progress.drained : progress.sent_all;
    return done ? StopReason::kDone : StopReason::kRunning;
  }
  // When the wait must wake at the latest for the drain's start (kNeverNs once draining).
  static TimeNs next_due_ns(bool draining, TimeNs end_ns) { return draining ? kNeverNs : end_ns; }

 private:
  const RunEnd* run_end_;
};

}  // namespace pacer::engine
