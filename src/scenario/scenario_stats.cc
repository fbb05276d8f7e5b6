// See scenario_stats.h.
#include "scenario/scenario_stats.h"

#include <algorithm>

namespace pacer::scenario {

void ScenarioStats::reset_counts() {
  for (TaskRow& t : tasks) {
    t.count = t.failures = 0;
    t.duration.reset();
  }
  for (NameRow& n : names) n.requests = n.failed = n.checks = n.check_on_errors = 0;
  check = check_on_errors = script = 0;  // users_started stays: the users still run (every interval shows them)
  messages.clear();
}

void ScenarioStats::merge(const ScenarioStats& other) {
  if (!other.active) return;
  active = true;
  open_model = other.open_model;
  user_limit += other.user_limit;
  if (tasks.size() < other.tasks.size()) {
    for (std::size_t i = tasks.size(); i < other.tasks.size(); ++i) tasks.push_back(TaskRow{other.tasks[i].name});
  }
  for (std::size_t i = 0; i < other.tasks.size(); ++i) {
    tasks[i].count += other.tasks[i].count;
    tasks[i].failures += other.tasks[i].failures;
    tasks[i].duration.merge(other.tasks[i].duration);
  }
  for (const NameRow& row : other.names) {
    if (row.requests == 0 && row.checks == 0) continue;  // an id this worker never used
    NameRow& mine = names[name_index(row.name)];
    mine.requests += row.requests;
    mine.failed += row.failed;
    mine.checks += row.checks;
    mine.check_on_errors += row.check_on_errors;
  }
  check += other.check;
  check_on_errors += other.check_on_errors;
  script += other.script;
  users_started += other.users_started;
  if (types.size() < other.types.size()) {
    for (std::size_t i = types.size(); i < other.types.size(); ++i) types.push_back(TypeRow{other.types[i].name});
  }
  for (std::size_t i = 0; i < other.types.size(); ++i) types[i].users_started += other.types[i].users_started;
  for (const Message& m : other.messages) {
    note(m.error_class.c_str(), m.where, m.text, m.count);
  }
  for (const auto& [key, value] : other.totals) add_total(key, value);
}

void ScenarioStats::add_total(std::string_view key, double value) {
  const auto at = std::lower_bound(totals.begin(), totals.end(), key,
                                   [](const std::pair<std::string, double>& t, std::string_view k) { return t.first < k; });
  if (at != totals.end() && at->first == key) {
    at->second += value;
  } else {
    totals.emplace(at, std::string(key), value);
  }
}

std::uint32_t ScenarioStats::name_index(std::string_view name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].name == name) return static_cast<std::uint32_t>(i);
  }
  names.push_back(NameRow{std::string(name)});
  return static_cast<std::uint32_t>(names.size() - 1);
}

NameRow& ScenarioStats::row(std::uint32_t id) {
  if (id >= names.size()) names.resize(static_cast<std::size_t>(id) + 1);
  return names[id];
}

void ScenarioStats::note(const char* error_class, std::string_view where, std::string_view text, std::uint64_t count) {
  for (Message& m : messages) {
    if (m.text == text && m.where == where && m.error_class == error_class) {
      m.count += count;
      return;
    }
  }
  if (messages.size() >= kMaxMessages) return;
  messages.push_back(Message{error_class, std::string(where), std::string(text), count});
}

}  // namespace pacer::scenario
