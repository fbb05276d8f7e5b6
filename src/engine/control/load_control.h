// Changing the load while a run goes (issue 27): a scenario's load shape (its
// `shape`, asked every second) and the web view's POST /users ask for a new user
// count and spawn rate (the closed model), or POST /rate and the shape for a new
// request rate (the open model: a rate control), or for the end of the run;
// POST /stats/reset for the statistics to start again. This class checks each
// request and applies it, one at a time under its lock (the main thread's
// controller ticks the shape, the web thread posts), to the parts each reader
// is handed:
//   - PublishedTarget (load_target.h): the users or rate the workers run, one
//     atomic load per turn;
//   - RunEnd (run_end.h): the shape's end of the run, which the workers drain at;
//   - ResetSchedule (reset_schedule.h): when the statistics start again;
//   - LoadChangeLog (load_change_log.h): the changes in order, for the report
//     and the web view, and the rates over time, for the rate asked;
//   - ShapeDriver (shape_driver.h): the shape itself and when it is next asked.
#pragma once

#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "engine/control/load_change_log.h"
#include "engine/control/load_target.h"
#include "engine/control/reset_schedule.h"
#include "engine/control/run_end.h"
#include "engine/control/shape_driver.h"
#include "scenario/type_mix.h"

namespace pacer::engine {

// An open-model run's control: its first rate (requests, or a scenario's tasks,
// per second, the whole test's) and the highest it may be asked for.
struct RateControl {
  double rate_per_s = 0;
  double max_rate_per_s = 0;
};
// A closed loop's control: its load (-c connections) does not change; its
// statistics may still be reset.
struct FixedLoad {};

class LoadControl {
 public:
  using Target = LoadTarget;  // what the workers take (PublishedTarget::target())
  // users: the run's first user count; ceiling: the most it may have (the users
  // allocated: --max-users, else -u); spawn_rate: --spawn-rate (0: at once).
  LoadControl(int users, int ceiling, double spawn_rate_per_s);
  explicit LoadControl(RateControl rate);
  explicit LoadControl(FixedLoad);

  // Main thread, before the run: the scenario's user types, against which a
  // count per type (by name) is resolved (scenario/type_mix.h), and its shape.
  void set_user_types(std::vector<scenario::UserType> types) { types_ = std::move(types); }
  void set_shape(ShapeFn shape) { shape_.set(std::move(shape)); }
  // The shape's step at 0 s, asked before the run starts (the load the run
  // starts with). An error or an immediate end is returned. No shape: Ok.
  Status first_step();
  // Main thread, as the clock starts: the run starts at start_ns (monotonic):
  // changes are timed from it. Its statistics start at record_from_ns (after the
  // warm-up), its intervals are interval_ns long from there (0: none), its drain
  // begins at end_ns.
  void started(TimeNs start_ns, TimeNs record_from_ns = 0, TimeNs end_ns = std::numeric_limits<TimeNs>::max(),
               TimeNs interval_ns = 0);
  // Main thread, often: asks the shape when a second has passed, and takes its step.
  void tick(TimeNs now_ns);

  // Any thread but a worker's. A count above the ceiling is refused with the
  // reason (kBadArgument); the shape's is clamped and the change says so.
  Status set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s, std::string_view by,
                   TimeNs now_ns);
  // Any thread but a worker's: the whole test's new rate, from now on, for the
  // rest of the run (it replaces what is left of -R's ramp or stages). Refused
  // (kBadArgument) for a users control, above the highest rate, or when ending.
  Status set_rate(double rate_per_s, std::string_view by, TimeNs now_ns);
  // Any thread but a worker's: the statistics start again (ResetSchedule says
  // when). Returns when (monotonic). Refused before the start, when that time is
  // past -d's end, or while the run ends.
  Result<TimeNs> reset_stats(std::string_view by, TimeNs now_ns);

  // The parts, for their readers (each header says which thread reads what).
  const PublishedTarget& published() const { return target_; }
  const RunEnd& run_end() const { return end_; }
  const ResetSchedule& resets() const { return resets_; }
  const LoadChangeLog& log() const { return log_; }
  const ShapeDriver& shape() const { return shape_; }

 private:
  // A change to users (under mutex_): recorded and published unless nothing changes.
  void change_users(int users, scenario::TypeCounts per_type, double spawn_rate_per_s, std::string_view by,
                    std::string note, TimeNs now_ns);
  void change_rate(double rate_per_s, std::string_view by, std::string note, TimeNs now_ns);
  // A request made counts: empty (every type, by the rules) or per type, by
  // name (an unknown name is an error).
  Result<scenario::TypeCounts> counts_for(const scenario::MixRequest& mix) const;
  // A shape's: the same, held to the ceiling (a count before the rules; counts
  // per type trimmed from the last type).
  Result<scenario::TypeCounts> counts_within_ceiling(scenario::MixRequest mix) const;
  // The shape's step as this control takes it (under mutex_): a user count, or a rate.
  void take_step(const ShapeStep& step, TimeNs now_ns);
  void end(std::string_view by, std::string note, TimeNs now_ns);  // under mutex_
  // A change as it stands now: at now_ns, from the current target to it.
  report::LoadChangeReport change_from_now(std::string_view by, std::string note, TimeNs now_ns) const;

  const double default_spawn_rate_;
  std::vector<scenario::UserType> types_;
  std::mutex mutex_;  // one change at a time: each part has its own lock for its readers
  PublishedTarget target_;
  RunEnd end_;
  ResetSchedule resets_;
  LoadChangeLog log_;
  ShapeDriver shape_;
};

// A worker's share of a run's `users`: user ids interleave over the run's
// workers (id = index * workers + worker), so worker w runs those of its
// indexes whose id is below users.
int users_share(int users, int worker, int workers);

}  // namespace pacer::engine
