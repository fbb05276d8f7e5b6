// A scenario's user count as it changed while the run went (issue 27: its load
// shape, the web view's POST /users): each change as the JSON report, the web
// view's GET /users and the text report give it. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_report.h"

namespace pacer::report {

// [{"at_s", "users_from", "users_to", "spawn_rate_per_s", "rate_from_per_s", "rate_to_per_s", "ended", "by",
//   "note"}, ...]: a closed-model change has users (the rates null), an open-model one rates (the users null)
nlohmann::ordered_json load_changes_json(const std::vector<LoadChangeReport>& changes);

// "at 12.0 s: users 50 -> 200 (10/s), by the shape" / "at 60.0 s: the shape ended the run".
std::string load_change_text(const LoadChangeReport& change);

// The text report's lines under "Load:": the first few changes, then how many more.
inline constexpr std::size_t kLoadChangesInText = 10;

}  // namespace pacer::report
