// The search's live progress document; see the header.
#include "capacity/progress_json.h"

#include <nlohmann/json.hpp>

#include "capacity/result_json.h"

namespace pacer::capacity {

std::string render_progress_json(const CapacityResult& so_far, const std::optional<RunningStep>& running,
                                 const std::string& result_json) {
  using ojson = nlohmann::ordered_json;
  ojson steps = ojson::array();
  for (const Step& step : so_far.steps) steps.push_back(step_summary_json(step));
  ojson now = nullptr;
  if (running) {
    now = {{"index", running->index},
           {"kind", running->target_rate_per_s > 0 ? "step" : "probe"},
           {"target_rate_per_s", running->target_rate_per_s}};
  }
  const bool finished = !result_json.empty();
  // The result as the search wrote it: parsed back (its numbers round-trip exactly).
  ojson result = finished ? ojson::parse(result_json, nullptr, false) : ojson(nullptr);
  if (result.is_discarded()) result = nullptr;
  const ojson doc = {{"schema", "pacer-capacity-progress"},
                     {"version", kProgressJsonVersion},
                     {"mode", so_far.sweep ? "sweep" : "search"},
                     {"state", finished ? "finished" : "running"},
                     {"url", so_far.url},
                     {"objective", so_far.objective_text},
                     {"terms", terms_json(so_far.terms)},
                     {"settings", settings_json(so_far.setup)},
                     {"running", std::move(now)},
                     {"steps", std::move(steps)},
                     {"result", std::move(result)}};
  // A URL or an objective is the user's text: never a reason for the page to get nothing.
  return doc.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

}  // namespace pacer::capacity
