// See load_changes.h.
#include "report/load_changes.h"

#include <fmt/format.h>

namespace pacer::report {

namespace {
// {"A": 10, "B": 40} in the file's order; null when the change named no types.
nlohmann::ordered_json by_type_json(const std::vector<std::pair<std::string, int>>& users) {
  if (users.empty()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, n] : users) out[name] = n;
  return out;
}
}  // namespace

nlohmann::ordered_json load_changes_json(const std::vector<LoadChangeReport>& changes) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const LoadChangeReport& c : changes) {
    const auto or_null = [](const std::optional<double>& v) {
      return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    const bool rate = c.rate_to_per_s.has_value();  // the open model's: it has no users  // the open model's change: users are not its
    out.push_back({{"at_s", c.at_s},
                   {"users_from", rate ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.users_from)},
                   {"users_to", rate ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.users_to)},
                   {"spawn_rate_per_s", rate ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.spawn_rate_per_s)},
                   {"rate_from_per_s", or_null(c.rate_from_per_s)},
                   {"rate_to_per_s", or_null(c.rate_to_per_s)},
                   {"ended", c.ended},
                   {"reset", c.reset},
                   {"by", c.by},
                   {"note", c.note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.note)},
                   {"users_by_type", by_type_json(c.users_by_type)}});
  }
  return out;
}

std::string load_change_text(const LoadChangeReport& c) {
  const std::string by = c.by == "shape" ? "the shape" : c.by == "web" ? "the web view" : c.by;
  std::string out;
  if (c.ended) {
    out = fmt::format("at {:.1f} s: {} ended the run", c.at_s, by);
  } else if (c.reset) {
    out = fmt::format("at {:.1f} s: the statistics started again, by {} (the figures are from then on)", c.at_s, by);
  } else if (c.rate_to_per_s) {
    out = fmt::format("at {:.1f} s: rate {:g}/s -> {:g}/s, by {}", c.at_s, c.rate_from_per_s.value_or(0),
                      *c.rate_to_per_s, by);
  } else {
    std::string detail;
    for (const auto& [name, n] : c.users_by_type) detail += fmt::format("{}{} {}", detail.empty() ? "" : ", ", name, n);
    if (c.users_to != c.users_from && c.spawn_rate_per_s > 0) {
      detail += fmt::format("{}{:g}/s", detail.empty() ? "" : "; ", c.spawn_rate_per_s);
    }
    out = fmt::format("at {:.1f} s: users {} -> {}{}, by {}", c.at_s, c.users_from, c.users_to,
                      detail.empty() ? std::string() : " (" + detail + ")", by);
  }
  if (!c.note.empty()) out += fmt::format(" ({})", c.note);
  return out;
}

}  // namespace pacer::report
