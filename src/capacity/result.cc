#include "capacity/result.h"

#include <cmath>

#include <fmt/format.h>

namespace pacer::capacity {

void number_repeats(std::vector<Step>& steps) {
  std::size_t first = 0;
  while (first < steps.size()) {
    std::size_t end = first + 1;
    while (end < steps.size() && !steps[end].probe && !steps[first].probe &&
           steps[end].figures.target_rate_per_s == steps[first].figures.target_rate_per_s) {
      ++end;
    }
    for (std::size_t i = first; i < end; ++i) {
      steps[i].repeat = static_cast<int>(i - first) + 1;
      steps[i].repeats = static_cast<int>(end - first);
    }
    first = end;
  }
}

std::string rate_text(double per_s) {
  if (per_s < 100) return fmt::format("{:.1f}/s", per_s);
  auto whole = static_cast<unsigned long long>(std::llround(per_s));
  std::string digits = std::to_string(whole);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), ",");
  return digits + "/s";
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kBreaks: return "breaks";
    case Verdict::kClient: return "client";
    case Verdict::kMeasured: return "measured";
  }
  return "";
}

std::string answer_kind_name(AnswerKind k) {
  switch (k) {
    case AnswerKind::kFound: return "found";
    case AnswerKind::kClientLimited: return "client_limited";
    case AnswerKind::kNoRateHeld: return "no_rate_held";
    case AnswerKind::kNeverBroke: return "never_broke";
    case AnswerKind::kSweep: return "sweep";
  }
  return "";
}

std::string answer_sentence(const Answer& a, bool has_objective) {
  const std::string holds = a.holds_at_per_s ? "holds at " + rate_text(*a.holds_at_per_s) : "";
  const std::string breaks =
      a.breaks_at_per_s ? fmt::format("breaks at {} ({})", rate_text(*a.breaks_at_per_s), a.broken_by) : "";
  std::string out;
  switch (a.kind) {
    case AnswerKind::kFound:
      out = holds + ", " + breaks;
      break;
    case AnswerKind::kClientLimited:
      out = "no capacity figure: pacer, not the server, limited the search";
      if (a.holds_at_per_s) out += " (it " + holds + ")";
      break;
    case AnswerKind::kNoRateHeld:
      out = a.breaks_at_per_s ? fmt::format("no rate held: the lowest tried, {}, broke ({})",
                                            rate_text(*a.breaks_at_per_s), a.broken_by)
                              : "no rate held";
      break;
    case AnswerKind::kNeverBroke:
      out = a.holds_at_per_s ? holds + "; no rate tried broke the objective" : "no step finished";
      break;
    case AnswerKind::kSweep:
      if (!has_objective) {
        out = "a sweep without an objective: the table and the curve are the answer";
      } else if (a.holds_at_per_s && a.breaks_at_per_s) {
        out = holds + ", " + breaks;
      } else if (a.holds_at_per_s) {
        out = holds + "; every rate swept held";
      } else if (a.breaks_at_per_s) {
        out = fmt::format("no rate swept held: the lowest, {}, broke ({})", rate_text(*a.breaks_at_per_s), a.broken_by);
      } else {
        out = "no step finished";
      }
      break;
  }
  if (a.cut_short) {
    out += fmt::format(" (cut short by {}{})", a.cut_reason,
                       a.holds_at_per_s && a.breaks_at_per_s ? ": the bracket is not within the precision" : "");
  }
  return out;
}

}  // namespace pacer::capacity
