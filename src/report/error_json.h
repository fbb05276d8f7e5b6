// The "errors" object of the JSON report and of each NDJSON interval: one key per
// error class of stats::ErrorCounts::kFields, in that order. `redirect` and
// `decode` belong to --follow-redirects and --compressed: the caller says whether
// they are shown (the report: when the option is on; an interval: when they occurred).
#pragma once

#include <nlohmann/json.hpp>

#include "stats/counters.h"

namespace pacer::report {

inline nlohmann::ordered_json error_classes_json(const stats::ErrorCounts& e, bool with_redirect, bool with_decode) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (f.member == &stats::ErrorCounts::redirect && !with_redirect) continue;
    if (f.member == &stats::ErrorCounts::decode && !with_decode) continue;
    out[f.name] = e.*f.member;
  }
  return out;
}

}  // namespace pacer::report
