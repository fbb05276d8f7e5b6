#include "capacity/search.h"

#include <algorithm>
#include <cmath>

namespace pacer::capacity {

double round_rate(double per_s) {
  if (per_s >= 100) return std::round(per_s);
  return std::max(0.1, std::round(per_s * 10) / 10);
}

Search::Search(const SearchSettings& settings) : settings_(settings), rate_(round_rate(settings.start_rate_per_s)) {}

std::optional<double> Search::next_rate() const {
  if (outcome_ != Outcome::kSearching) return std::nullopt;
  return rate_;
}

void Search::record(const StepVerdict& v) {
  if (outcome_ != Outcome::kSearching) return;
  ++runs_at_rate_;
  switch (v.verdict) {
    case Verdict::kClient:
      client_limit_ = v.client_limit;
      outcome_ = Outcome::kClientLimited;
      return;
    case Verdict::kBreaks:
    case Verdict::kMeasured:  // not a search's; read as not holding
      if (!breaks_at_ || rate_ <= *breaks_at_) {
        breaks_at_ = rate_;
        broken_by_ = v.broken_by;
      }
      break;
    case Verdict::kHolds:
      if (v.near && runs_at_rate_ < settings_.max_runs) return;  // the same rate again
      if (!holds_at_ || rate_ > *holds_at_) holds_at_ = rate_;
      break;
  }
  choose_next();
}

void Search::choose_next() {
  runs_at_rate_ = 0;
  if (!breaks_at_) {  // climbing
    if (*holds_at_ >= settings_.max_rate_per_s) {
      outcome_ = Outcome::kNeverBroke;
      return;
    }
    rate_ = std::min(round_rate(*holds_at_ * settings_.factor), settings_.max_rate_per_s);
    return;
  }
  if (!holds_at_) {  // descending from a first step that broke
    const double lower = round_rate(*breaks_at_ / settings_.factor);
    if (*breaks_at_ <= settings_.min_rate_per_s || lower >= *breaks_at_) {
      outcome_ = Outcome::kNoRateHeld;
      return;
    }
    rate_ = std::max(lower, settings_.min_rate_per_s);
    return;
  }
  // Bisecting: every rate tried lies strictly between the two, so holds_at < breaks_at.
  if (*breaks_at_ / *holds_at_ - 1 <= settings_.precision) {
    outcome_ = Outcome::kFound;
    return;
  }
  const double middle = round_rate((*holds_at_ + *breaks_at_) / 2);
  if (middle <= *holds_at_ || middle >= *breaks_at_) {  // as fine as the rounding goes
    outcome_ = Outcome::kFound;
    return;
  }
  rate_ = middle;
}

}  // namespace pacer::capacity
