// What the users count (scenario_stats.h): requests per name, tasks (count,
// failures, duration), `check` errors (u:fail, forgiven by u:success) and
// `script` errors (uncaught Lua errors), and the request names themselves (the
// run's name table, or the stats' own rows without one). Only what was
// scheduled after the warm-up counts (Port::recorded). Rows are allocated
// before the run or when a name first appears. One worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario_stats.h"
#include "scenario/user.h"
#include "stats/name_table.h"

namespace pacer::scenario {

class UserTally {
 public:
  // names: the run's name table (request names; --max-names caps them); null: the stats' own (tests).
  explicit UserTally(stats::NameTable* names);

  // Before the run: a row per task (the plan's leaves, in order).
  void prepare(Port& port, const std::vector<std::string>& task_names, bool open_model, std::size_t user_limit);
  ScenarioStats& stats() { return stats_; }

  // A request name's id: the run's name table's, or the stats' own without one.
  std::uint32_t name_index(std::string_view name) {
    return names_ != nullptr ? names_->intern(name) : stats_.name_index(name);
  }
  // A request name's text.
  std::string_view name_text(std::uint32_t id) {
    return names_ != nullptr ? names_->name(id) : std::string_view(stats_.names[id].name);
  }
  // "METHOD path": the name of a request that was given none (the query left out).
  // origin_prefix: "scheme://host:port" of another origin than the run's, before the path.
  std::uint32_t default_name(std::string_view method, std::string_view path, bool keep_query,
                             std::string_view origin_prefix = {});
  // After the run: the name rows get their text from the run's name table.
  void name_rows();

  // A user of `type` (its index in the plan's types) was created.
  void user_started(std::uint8_t type) {
    ++stats_.users_started;
    if (type < stats_.types.size()) ++stats_.types[type].users_started;
  }
  // The user types' rows, before the run (allocates then only).
  void name_types(const std::vector<std::string>& names) {
    for (const std::string& name : names) stats_.types.push_back(TypeRow{name});
  }
  // The user loop names the task u runs (a leaf of the plan, 0-based).
  void task_is(User& u, int task);
  // u's task ended (at u.mark_ns): counted if it was named and scheduled after the warm-up.
  void end_task(User& u);
  // u's last request ended (u.status, u.last_failed, u.last_recorded set): its name's row and u's task errors.
  void count_request(User& u);
  // u:fail(message): a check on the last request (at most one per request).
  void fail_last(User& u, std::string_view message);
  // u:success(): the last response (status >= 400) is not a failure; false when there is none.
  bool succeed_last(User& u);
  // An uncaught Lua error in `hook` ("task", "on_start", "user", ...).
  void script_error(User& u, std::string_view message, std::string_view hook);

 private:
  stats::NameTable* names_;
  Port* port_ = nullptr;
  std::string name_scratch_;  // default_name's key (capacity reused)
  ScenarioStats stats_;
};

}  // namespace pacer::scenario
