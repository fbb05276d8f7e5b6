// The progress line printed once per --interval when there is no live view
// (stdout is not a terminal, TERM=dumb, or --plain): plain text, no escape
// sequence, no carriage return, so logs and pipes read it as it is. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "report/interval_report.h"
#include "ui/dashboard_model.h"

namespace pacer::ui {

// One line (with "\n") for `interval`; completed_so_far counts every response
// recorded up to its end (the -n progress). Rates are over the interval's whole
// duration; the last line, which holds the drain after -d, names it.
std::string render_plain_line(const report::IntervalReport& interval, const RunInfo& run,
                              std::uint64_t completed_so_far);

}  // namespace pacer::ui
