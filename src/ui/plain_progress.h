// The progress lines printed once per --interval when there is no live view
// (stdout is not a terminal, TERM=dumb, or --plain): plain text, no escape
// sequence, no carriage return, so logs and pipes read it as it is. Each
// interval is a short block, every line within 80 columns:
//
//   [  1.0s / 2.0s] 376.0 req/s, errors 0
//       target 400.0/s, sent 378.0/s, lag 55.06ms, backlog 23
//       latency p50 36.47ms p90 54.49ms p99 59.67ms max 60.37ms
//       2 connections open, in flight 2 (oldest 4.65ms)
//       bottleneck: 2 conns / 5.22ms ~ 383/s < target 400/s: raise -c to ~3
//
// The first line starts with "[", the others with four spaces (a line too long
// for 80 columns wraps after a comma, indented the same). The drain after -d's
// end (responses still in flight, arrivals still waiting) is a block of its own
// whose first line says "drain". Pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report/interval_report.h"
#include "ui/dashboard_model.h"

namespace pacer::ui {

inline constexpr std::size_t kPlainColumns = 80;

// The block (each line ending in "\n") for `interval`; completed_so_far counts
// every response recorded up to its end (the -n progress). Rates are over the
// interval's duration. An interval with drain_ns == duration_ns is the drain.
std::string render_plain_line(const report::IntervalReport& interval, const RunInfo& run,
                              std::uint64_t completed_so_far);

// Words of `sections` as lines of at most `columns`: each section starts a line
// (the first one as it is, the others after four spaces); one too long breaks
// after a ", " or "; " (after a space if a part is still too long), its next
// lines indented by four spaces. Each line ends in "\n".
std::string wrap_sections(const std::vector<std::string>& sections, std::size_t columns = kPlainColumns);

}  // namespace pacer::ui
