// Changing the load while a run goes (issue 27): a scenario's load shape (its
// `shape`, asked every second) and the web view's POST /users ask for a new user
// count and spawn rate (the closed model), or POST /rate and the shape for a new
// request rate (the open model: a rate control), or for the end of the run. The asking side (the main
// thread's controller, the web thread) writes here under a lock; each worker
// reads one atomic per turn and takes the new target only when it changed
// (generation), so the hot path pays one relaxed load. The changes are kept in
// order for the report (report::LoadChangeReport: "at 12.0 s: users 50 -> 200,
// by the shape").
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "load/schedule.h"
#include "report/run_report.h"
#include "scenario/test_hooks.h"
#include "scenario/type_mix.h"

namespace pacer::engine {

// A shape: the step for `run_s` seconds since the run started, nullopt to end
// the run, or an error (a Lua error in the shape: the run ends, the error is
// reported). Main thread.
using ShapeStep = scenario::ShapeStep;
using ShapeFn = std::function<Result<std::optional<ShapeStep>>(double run_s)>;

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
  // users: the run's first user count; ceiling: the most it may have (the users
  // allocated: --max-users, else -u); spawn_rate: --spawn-rate (0: at once).
  LoadControl(int users, int ceiling, double spawn_rate_per_s);
  explicit LoadControl(RateControl rate);
  explicit LoadControl(FixedLoad);
  // What this run's load is: users (set_users), a rate (set_rate), or fixed.
  enum class Kind { kUsers, kRate, kFixed };
  Kind kind() const { return kind_; }
  bool is_rate() const { return kind_ == Kind::kRate; }

  // Any thread but a worker's. A count above the ceiling is refused with the
  // reason (kBadArgument); the shape's is clamped and the change says so.
  Status set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s, std::string_view by,
                   TimeNs now_ns);
  // Main thread, before the run: the scenario's user types, against which a
  // count per type (by name) is resolved (scenario/type_mix.h).
  void set_user_types(std::vector<scenario::UserType> types) { types_ = std::move(types); }
  // Any thread but a worker's: the whole test's new rate, from now on, for the
  // rest of the run (it replaces what is left of -R's ramp or stages). Refused
  // (kBadArgument) for a users control, above the highest rate, or when ending.
  Status set_rate(double rate_per_s, std::string_view by, TimeNs now_ns);
  // Any thread but a worker's: the statistics start again at the first interval
  // boundary at least kResetLeadNs from now (without intervals, kResetLeadNs
  // from now), as the warm-up's end starts them: what was scheduled before it is
  // not recorded, and every worker's figures restart there. Returns when
  // (monotonic). Refused before the start, when that time is past -d's end, or
  // while the run ends.
  Result<TimeNs> reset_stats(std::string_view by, TimeNs now_ns);
  static constexpr TimeNs kResetLeadNs = 100 * kNsPerMs;  // every worker looks at least this often
  // Workers: the latest reset's time (monotonic; 0: none) and its generation.
  std::uint64_t reset_generation() const { return reset_generation_.load(std::memory_order_acquire); }
  TimeNs reset_at_ns() const { return reset_at_ns_.load(std::memory_order_acquire); }
  // The run starts at start_ns (monotonic): changes are timed from it. Its
  // statistics start at record_from_ns (after the warm-up), its intervals are
  // interval_ns long from there (0: none), its drain begins at end_ns.
  void started(TimeNs start_ns, TimeNs record_from_ns = 0, TimeNs end_ns = std::numeric_limits<TimeNs>::max(),
               TimeNs interval_ns = 0);

  // The shape, asked every second by tick() (main thread) from the run's start.
  void set_shape(ShapeFn shape) { shape_ = std::move(shape); }
  bool has_shape() const { return static_cast<bool>(shape_); }
  // The step at 0 s, asked before the run starts (the users the run starts
  // with). An error or an immediate end is returned.
  Status first_step();
  // Main thread, often: asks the shape when a second has passed.
  void tick(TimeNs now_ns);
  // A shape's error, for the report (empty: none).
  std::string shape_error() const;

  // Workers, once per turn: whether anything changed since `seen`.
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  struct Target {
    int users = 0;
    scenario::TypeCounts per_type;  // users per type when a change gave them (empty: by the types' rules)
    double spawn_rate_per_s = 0;
    double rate_per_s = 0;  // a rate control's
    std::uint64_t generation = 0;
  };
  Target target() const;
  // The shape ended the run (or failed): the workers drain as at -d's end.
  bool ended() const { return ended_.load(std::memory_order_relaxed); }
  // When it ended (monotonic; 0 before): the second the shape was asked at, or the error's time.
  TimeNs ended_at_ns() const { return ended_at_ns_.load(std::memory_order_acquire); }

  int ceiling() const { return ceiling_; }
  TimeNs start_ns() const;  // 0 before the start
  double max_rate_per_s() const { return max_rate_; }
  int users() const;
  // The rate asked for over [from_ns, to_ns) (offsets from the run's start): the
  // run's profile until the first rate change, then each change's rate. Any thread.
  double mean_rate_per_s(const load::RateProfile& profile, TimeNs from_ns, TimeNs to_ns) const;
  // After the run (or during it, for the web view): the changes in order.
  std::vector<report::LoadChangeReport> changes() const;

 private:
  void change(int users, scenario::TypeCounts per_type, double spawn_rate_per_s, std::string_view by, std::string note,
              TimeNs now_ns);
  // A request made counts: empty (every type, by the rules) or per type, by
  // name (an unknown name is an error).
  Result<scenario::TypeCounts> counts_for(const scenario::MixRequest& mix) const;
  // A shape's: the same, held to the ceiling (a count before the rules; counts
  // per type trimmed from the last type).
  Result<scenario::TypeCounts> counts_within_ceiling(scenario::MixRequest mix) const;
  void change_rate(double rate_per_s, std::string_view by, std::string note, TimeNs now_ns);
  void publish();  // under mutex_: the workers see the target's next generation
  // The shape's step as this control takes it: a user count, or a rate.
  void take_step(const ShapeStep& step, TimeNs now_ns);
  // Arrivals expected in [0, t_ns) (offset) with the changes so far (under mutex_).
  double arrivals_before(const load::RateProfile& profile, TimeNs t_ns) const;
  void end(std::string_view by, std::string note, TimeNs now_ns);
  // A change as it stands now (under mutex_): at now_ns, from the current target to it.
  report::LoadChangeReport& record(std::string_view by, std::string note, TimeNs now_ns);

  const Kind kind_;
  const int ceiling_;
  const double default_spawn_rate_;
  const double max_rate_;
  ShapeFn shape_;
  std::vector<scenario::UserType> types_;
  TimeNs next_tick_ns_ = 0;
  mutable std::mutex mutex_;
  Target target_;  // under mutex_
  TimeNs start_ns_ = 0;
  TimeNs record_from_ns_ = 0;
  TimeNs end_ns_ = std::numeric_limits<TimeNs>::max();
  TimeNs interval_ns_ = 0;
  std::vector<report::LoadChangeReport> changes_;
  struct RateChange {
    TimeNs at_ns = 0;  // offset from the start
    double rate_per_s = 0;
  };
  std::vector<RateChange> rate_changes_;
  std::string shape_error_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<TimeNs> reset_at_ns_{0};  // written under mutex_ before reset_generation_
  std::atomic<std::uint64_t> reset_generation_{0};
  std::atomic<bool> ended_{false};
  std::atomic<TimeNs> ended_at_ns_{0};  // stored before ended_
};

// The rate a run asked for over [from_ns, to_ns) (offsets from its start): its
// profile's, with a rate control's changes when it has one.
double planned_rate_per_s(const load::RateProfile& profile, const LoadControl* control, TimeNs from_ns, TimeNs to_ns);

// A worker's share of a run's `users`: user ids interleave over the run's
// workers (id = index * workers + worker), so worker w runs those of its
// indexes whose id is below users.
int users_share(int users, int worker, int workers);

}  // namespace pacer::engine
