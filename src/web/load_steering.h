// What the web view may change of a running test (issue 27): a scenario's user
// count and spawn rate (POST /users), the open model's rate (POST /rate). The run lends an implementation to the
// view's feed for as long as it goes (web/live_feed.h); the web thread calls it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "scenario/type_mix.h"

namespace pacer::web {

class LoadSteering {
 public:
  virtual ~LoadSteering() = default;
  // Asks for `users` users (a count, for every type or the types named, or a
  // count per type), started at spawn_rate_per_s (none: the run's
  // --spawn-rate). Refused (kBadArgument, the reason) above the ceiling, for a
  // type the file does not have, or when the run is ending. Any thread.
  virtual Status set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s) = 0;
  // Asks for the whole test's new rate (requests, or a scenario's tasks, per
  // second) for the rest of the run. Refused (kBadArgument) in the closed model,
  // above the highest rate, or when the run is ending. Any thread.
  virtual Status set_rate(double rate_per_s) = 0;
  // What POST /users and /rate may change: "users" (a closed-model scenario),
  // "rate" (the open model) or "fixed" (a closed loop: neither).
  virtual std::string_view load_kind() const = 0;
  // The statistics start again at the next interval boundary at least 100 ms
  // away (POST /stats/reset): returns the seconds since the run's start it will
  // be at. Refused (kBadArgument) while the run ends or when -d ends first.
  virtual Result<double> reset_stats() = 0;
  // Closed: {"model": "closed", "users": the count asked for now, "max_users": the
  // ceiling, "spawn_rate_per_s": ..., "changes": [...]}; open: {"model": "open",
  // "rate_per_s", "max_rate_per_s", "changes"}. changes: the report's load_changes so far.
  virtual std::string state_json() const = 0;
};

}  // namespace pacer::web
