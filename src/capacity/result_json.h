// A capacity search's JSON ("pacer-capacity", version 1; docs/capacity.md):
// what was asked, the answer, and every step with its figures and its run's
// whole JSON report (histograms included, so `pacer report` and --compare can
// draw and compare searches). read_capacity_json is its inverse: the figures
// are derived again from each step's run, the verdicts read as decided.
// Main thread.
#pragma once

#include <string>
#include <string_view>

#include "capacity/result.h"
#include "core/expected.h"

namespace pacer::capacity {

std::string render_capacity_json(const CapacityResult& result);

// Whether text is a pacer-capacity document (a cheap look at its "schema").
bool is_capacity_json(std::string_view text);

// kBadInput naming source_name and the field; never throws.
Result<CapacityResult> read_capacity_json(std::string_view text, const std::string& source_name);

}  // namespace pacer::capacity
