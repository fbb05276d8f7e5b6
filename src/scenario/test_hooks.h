// A scenario's test-level hooks (issue 27): on_test_start and on_test_stop of
// the table the file returns, each run once per run (once per pacer process:
// each shard runs its own), on the main thread, in a Lua state of their own:
// on_test_start before any connection is made, on_test_stop after the last
// worker stopped and before the report is written. They share their own state
// (a global set by one is seen by the other) and nothing else: the users run in
// the workers' states, and the u API (requests) is not there. A Lua error in
// on_test_start stops the run before it starts (exit 1); one in on_test_stop is
// reported and the run's result stands. The load shape runs here too.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/config.h"
#include "core/expected.h"
#include "scenario/scenario_stats.h"
#include "scenario/type_mix.h"
#include "script/lua_state.h"

namespace pacer::scenario {

// What a load shape asks for at one moment: a user count and, optionally, the
// rate to start them at (users/s; none: --spawn-rate, or at once); in the open
// model (-R), a rate of tasks per second instead.
struct ShapeStep {
  int users = 0;
  std::optional<double> spawn_rate_per_s;
  double rate_per_s = 0;
  std::vector<std::string> types;                   // the types `users` is for (empty: every type)
  std::vector<std::pair<std::string, int>> counts;  // or a count per type, by name (users: their sum)
  MixRequest mix() const { return MixRequest{users, types, counts}; }
};

class TestHooks {
 public:
  // Loads and checks the file (kBadInput, exit 2, as check_scenario), then runs on_test_start.
  static Result<std::unique_ptr<TestHooks>> start(const Config& config);
  // on_test_stop, at most once, its pacer.totals the run's (run: the report's
  // scenario figures, null when the run failed); an error is returned for the
  // caller to print.
  Status stop(const ScenarioStats* run = nullptr);

  // The file's load shape (`shape`: a function, or stages made one), in this
  // state, on the main thread: its step at run_s seconds since the run started,
  // nullopt when it ends the run; a Lua error, or a value that is not a whole
  // number of users or a count per type (and a spawn rate, and the types the
  // count is for), is an error naming it.
  bool has_shape() const { return has_shape_; }
  // The file's user types (after --tags), in plan order.
  const std::vector<UserType>& types() const { return types_; }
  // rate: the run is the open model, so the shape's number is a rate (any
  // number >= 0), not a whole count of users.
  Result<std::optional<ShapeStep>> shape_at(double run_s, bool rate);

  // start() makes them: a loaded state and the registry reference of its plan.
  TestHooks(script::LuaStatePtr state, int definition_ref, std::string path, PlanShape plan);

 private:
  script::LuaStatePtr state_;
  int definition_ref_;
  std::string path_;
  bool has_shape_ = false;
  std::vector<UserType> types_;
  bool stopped_ = false;
};

}  // namespace pacer::scenario
