// See labelled.h.
#include "report/labelled.h"

#include <algorithm>

namespace pacer::report {

std::string labelled(std::string_view label, std::string_view text) {
  std::string out(label);
  out.resize(std::max(kLabelColumns, label.size() + 1), ' ');
  std::size_t column = out.size();
  bool line_empty = true;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    std::string_view word = text.substr(at, end - at);
    at = end + 1;
    while (!word.empty()) {
      const std::size_t used = column + (line_empty ? 0 : 1);
      const std::size_t room = used < kReportColumns ? kReportColumns - used : 0;
      if (word.size() > room && !line_empty) {
        out += "\n" + std::string(kLabelColumns, ' ');
        column = kLabelColumns;
        line_empty = true;
        continue;
      }
      const std::string_view piece = word.substr(0, std::min(word.size(), room));
      if (!line_empty) out += ' ';
      const std::size_t from = out.size();
      out += piece;
      std::replace(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(), kNoBreak, ' ');
      column += piece.size() + (line_empty ? 0 : 1);
      line_empty = false;
      word.remove_prefix(piece.size());
      if (!word.empty()) column = kReportColumns;  // the rest goes on the next line
    }
  }
  return out + "\n";
}

}  // namespace pacer::report
