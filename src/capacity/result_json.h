// A capacity search's JSON ("pacer-capacity", version 1; docs/capacity.md):
// what was asked, the answer, and every step with its figures and its run's
// whole JSON report (histograms included, so `pacer report` and --compare can
// draw and compare searches). read_capacity_json is its inverse: the figures
// are derived again from each step's run, the verdicts read as decided.
// Main thread.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "capacity/result.h"
#include "core/expected.h"

namespace pacer::capacity {

std::string render_capacity_json(const CapacityResult& result);

// The parts of the document the search's live progress shares (capacity/progress_json.h):
// the objective's terms, the settings, and a step's entry without its "run".
nlohmann::ordered_json terms_json(const std::vector<ObjectiveTerm>& terms);
nlohmann::ordered_json settings_json(const SearchSetup& setup);
nlohmann::ordered_json step_summary_json(const Step& step);

// Whether text is a pacer-capacity document (a cheap look at its "schema").
bool is_capacity_json(std::string_view text);

// kBadInput naming source_name and the field; never throws.
Result<CapacityResult> read_capacity_json(std::string_view text, const std::string& source_name);

}  // namespace pacer::capacity
