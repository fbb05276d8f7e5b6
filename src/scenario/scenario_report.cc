// See scenario_report.h.
#include "scenario/scenario_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/units.h"
#include "stats/hdr_codec.h"
#include "stats/name_table.h"

namespace pacer::scenario {

namespace {

constexpr std::size_t kNameColumns = 26;

std::string cut(const std::string& raw_name) {
  const std::string name = stats::printable_name(raw_name);
  return name.size() <= kNameColumns ? name : std::string(stats::cut_name(name, kNameColumns - 3)) + "...";
}

std::string t(std::int64_t ns) { return report::format_time_ns(static_cast<double>(ns)); }

nlohmann::ordered_json summary(const stats::Histogram& h) {
  if (h.total_count() == 0) return nullptr;
  return {{"mean_ns", h.mean()},
          {"p50_ns", h.value_at_percentile(50)},
          {"p90_ns", h.value_at_percentile(90)},
          {"p99_ns", h.value_at_percentile(99)},
          {"max_ns", h.max()}};
}

}  // namespace

std::string render_text(const ScenarioStats& s) {
  if (!s.active) return {};
  // The load model line says how tasks start; this says how their steps are timed.
  std::string out = fmt::format("Scenario:     {} of at most {} virtual users started; a step is due when\n"
                                "              the previous one ended (plus u:sleep), a task's first step when\n"
                                "              the task was {}.\n",
                                s.users_started, s.user_limit, s.open_model ? "scheduled" : "due after the think time");
  if (s.types.size() > 1) {  // Locust logs its users per class
    std::string by_type;
    for (const TypeRow& type : s.types) {
      by_type += fmt::format("{}{} {}", by_type.empty() ? "" : ", ", stats::printable_name(type.name), type.users_started);
    }
    out += fmt::format("User types:   {} (users started)\n", by_type);
  }
  out += "Tasks (from the scheduled start to the end):\n";
  out += fmt::format("  {:<26} {:>8} {:>7} {:>8} {:>8} {:>8}\n", "Task", "Count", "Failed", "p50", "p99", "Max");
  for (const TaskRow& row : s.tasks) {
    const stats::Histogram& h = row.duration;
    const bool any = h.total_count() > 0;
    out += fmt::format("  {:<26} {:>8} {:>7} {:>8} {:>8} {:>8}\n", cut(row.name), row.count, row.failures,
                       any ? t(h.value_at_percentile(50)) : "-", any ? t(h.value_at_percentile(99)) : "-",
                       any ? t(h.max()) : "-");
  }
  if (!s.totals.empty()) {  // pacer.totals (request_events.h)
    std::string line = "Totals:      ";
    for (std::size_t i = 0; i < s.totals.size(); ++i) {
      const double v = s.totals[i].second;
      const bool whole = v == std::floor(v) && std::fabs(v) < 1e15;  // a count or a sum of bytes: every digit
      line += fmt::format("{} {} {}", i == 0 ? "" : ",", stats::printable_name(s.totals[i].first),
                          whole ? fmt::format("{}", static_cast<long long>(v)) : fmt::format("{:g}", v));
    }
    out += line + " (pacer.totals)\n";
  }
  // Per request name: the Endpoints table (requests, errors with their checks, latency).
  for (const Message& m : s.messages) {
    std::string line = fmt::format("  {} error{}: {}: {}", m.error_class == "check" ? "Check" : "Script",
                                   m.count == 1 ? "" : fmt::format(" x{}", m.count), stats::printable_name(m.where),
                                   stats::printable_name(m.text));  // u:fail(body), error(): never raw bytes
    if (line.size() > 200) line = std::string(stats::cut_name(line, 197)) + "...";
    out += line + "\n";
  }
  return out;
}

nlohmann::ordered_json to_json(const ScenarioStats& s) {
  if (!s.active) return nullptr;
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const TaskRow& row : s.tasks) {
    // The histogram too, so that `pacer merge` adds shards' tasks exactly.
    tasks.push_back({{"name", row.name}, {"count", row.count}, {"failures", row.failures},
                     {"duration", summary(row.duration)}, {"duration_histogram", stats::encode_v2_base64(row.duration)}});
  }
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const NameRow& row : s.names) {
    if (row.requests == 0 && row.checks == 0) continue;
    names.push_back({{"name", row.name}, {"requests", row.requests}, {"failed", row.failed}, {"checks", row.checks},
                     {"check_on_errors", row.check_on_errors}});
  }
  nlohmann::ordered_json totals = nlohmann::ordered_json::object();
  for (const auto& [key, value] : s.totals) totals[key] = value;
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (const TypeRow& type : s.types) types.push_back({{"name", type.name}, {"users_started", type.users_started}});
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const Message& m : s.messages) messages.push_back({{"class", m.error_class}, {"where", m.where}, {"text", m.text}, {"count", m.count}});
  return {{"open_model", s.open_model},
          {"user_limit", s.user_limit},
          {"users_started", s.users_started},
          {"types", std::move(types)},
          {"errors", {{"check", s.check}, {"script", s.script}, {"check_on_errors", s.check_on_errors}}},
          {"tasks", std::move(tasks)},
          {"names", std::move(names)},
          {"first_messages", std::move(messages)},
          {"totals", std::move(totals)}};
}

}  // namespace pacer::scenario
