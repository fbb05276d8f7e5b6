// The capacity search's text (issue 41): the intro and the table's head, a row
// per step (printed as each step ends: the search's live progress), then the
// answer and the latency-versus-throughput curve. render_text is their
// concatenation, so `pacer report SEARCH.json` prints what the search printed.
// Pure.
#pragma once

#include <string>

#include "capacity/result.h"

namespace pacer::capacity {

std::string render_intro(const CapacityResult& result);
std::string render_row(const CapacityResult& result, const Step& step);
std::string render_answer(const CapacityResult& result);
std::string render_text(const CapacityResult& result);

// Two searches side by side (`pacer report A.json B.json --compare`): their
// objectives, answers and brackets, the change of holds_at, and whether the
// brackets overlap (no change beyond the searches' precision) or not.
std::string render_compare_text(const CapacityResult& baseline, const CapacityResult& candidate,
                                const std::string& baseline_name, const std::string& candidate_name);

// The curve: p99 (*, X where the step broke) and p50 (o) against the achieved
// rate, latency on a log scale, each latency term's limit as a row of '-'.
// width x height characters of plot; "" with fewer than two steps.
std::string render_curve(const CapacityResult& result, int width = 60, int height = 12);

}  // namespace pacer::capacity
