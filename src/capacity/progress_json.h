// A capacity search's (or sweep's) progress as the live web view serves it
// (issue 41; /search.json and the "search" events, docs/web.md): what was asked,
// the steps so far as the search's JSON has them (without their runs), the step
// running now, and at the end the search's whole JSON. Replaced whole at each
// step's start and end. Pure.
#pragma once

#include <optional>
#include <string>

#include "capacity/result.h"

namespace pacer::capacity {

inline constexpr int kProgressJsonVersion = 1;

// The step that runs now: its 1-based index and target rate (0: the closed-loop probe).
struct RunningStep {
  int index = 0;
  double target_rate_per_s = 0;
};

// "pacer-capacity-progress", on one line (a Server-Sent Event's data). result_json:
// the search's "pacer-capacity" document once it has ended ("" while it runs),
// nested as its "result".
std::string render_progress_json(const CapacityResult& so_far, const std::optional<RunningStep>& running,
                                 const std::string& result_json = {});

}  // namespace pacer::capacity
