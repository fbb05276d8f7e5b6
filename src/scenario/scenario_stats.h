// What a scenario run adds to the report: the Tasks table (per task:
// count, failures, duration from its scheduled start to its end), the `check`
// and `script` error classes counted per request name and per task, the first
// messages of each, and per-name request counts. Each worker keeps one
// (allocated before the run: a row per task, names as they first appear); the
// controller merges them by name after the join.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stats/histogram.h"

namespace pacer::scenario {

struct TaskRow {
  std::string name;              // the task's third field, or "file.lua:LINE" of its function
  std::uint64_t count = 0;       // tasks ended (recorded: scheduled after the warm-up)
  std::uint64_t failures = 0;    // ...of which failed: a script error, u:fail, a failed request or status >= 400
  stats::Histogram duration = stats::Histogram::for_latency_ns();  // scheduled start -> end
};

struct NameRow {
  std::string name;
  std::uint64_t requests = 0;    // recorded responses and failed requests under this name
  std::uint64_t failed = 0;      // ...with no response (status 0) or a status >= 400
  std::uint64_t checks = 0;      // u:fail on a request of this name
  std::uint64_t check_on_errors = 0;  // ...of which on a request already failed (counted once as a failure)
  // Requests of this name that failed: an error class or a check, a request counted once.
  std::uint64_t failures() const { return failed + checks - check_on_errors; }
  // Its latency (from each step's due time) is the run's per-name figure (targets' endpoints).
};

struct Message {
  std::string error_class;  // "check" or "script"
  std::string where;        // the request name (check) or the task and hook (script)
  std::string text;
  std::uint64_t count = 1;  // times this very message came (while it was among the first)
};

// A user type (docs/scenarios.md): its name and how many of its users were created.
struct TypeRow {
  std::string name;
  std::uint64_t users_started = 0;
};

struct ScenarioStats {
  static constexpr std::size_t kMaxMessages = 10;  // distinct messages kept
  bool active = false;                 // a scenario ran
  bool open_model = false;             // -R/--stages: the rate is of tasks
  std::uint64_t user_limit = 0;        // users the run may create (-u, or --max-users)
  std::vector<TaskRow> tasks;
  std::vector<NameRow> names;
  std::uint64_t check = 0;             // `check` errors: u:fail calls (at most one per request)
  std::uint64_t check_on_errors = 0;   // ...on requests already counted as errors (not counted twice in rates)
  std::uint64_t script = 0;            // `script` errors: uncaught Lua errors (on_start, a task, wait, on_stop)
  std::uint64_t users_started = 0;     // virtual users created
  std::vector<TypeRow> types;          // ...by type, in the plan's order (Locust logs its users per class)
  std::vector<Message> messages;       // the first kMaxMessages distinct ones, with their counts
  // pacer.totals (request_events.h): the numbers the users added up, summed by
  // key across workers and shards, in key order. A statistics reset keeps them.
  std::vector<std::pair<std::string, double>> totals;

  // Merges another worker's figures (tasks by index, names by name).
  void merge(const ScenarioStats& other);
  // The index of `name` in names, adding a row the first time (allocates then only).
  std::uint32_t name_index(std::string_view name);
  // The row of a name id of the run's name table (stats::NameTable), adding rows
  // up to it the first time (allocates then only); its text is set at the end.
  NameRow& row(std::uint32_t id);
  // Adds value to the total named key (a new key in key order).
  void add_total(std::string_view key, double value);
  // Counts a message: once more if it is already kept, else kept while there is room.
  void note(const char* error_class, std::string_view where, std::string_view text, std::uint64_t count = 1);
  // The statistics start again (POST /stats/reset): every count and duration is
  // zeroed, the rows (tasks, names), the settings and users_started (the users
  // created, who keep running) kept; no allocation.
  void reset_counts();
};

}  // namespace pacer::scenario
