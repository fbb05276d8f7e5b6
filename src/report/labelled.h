// The text report's paragraphs: a label, then words wrapped within 80 columns
// under it (wrk's width: no line wraps on an 80-column terminal). The report's
// lines, the bottleneck verdicts and the evidence lines all go through here.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pacer::report {

inline constexpr std::size_t kReportColumns = 80;
inline constexpr std::size_t kLabelColumns = 14;  // "Load model:   "

// A space labelled() never breaks at ("timeout 12" stays on one line).
inline constexpr char kNoBreak = '\x1f';

// `label` then `text` wrapped at spaces to kReportColumns, continuation lines
// indented under the text; a word longer than a line is cut into pieces. Ends
// in "\n".
std::string labelled(std::string_view label, std::string_view text);

}  // namespace pacer::report
