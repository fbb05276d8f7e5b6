// See saturation.h.
#include "evidence/saturation.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/units.h"

namespace pacer::evidence {

void Saturation::observe(double mean_service_ns, double completed_per_s, double target_per_s) {
  if (mean_service_ns <= 0 || completed_per_s <= 0 || target_per_s <= 0) return;
  low_service_ns_ = low_service_ns_ > 0 ? std::min(low_service_ns_, mean_service_ns) : mean_service_ns;
  if (has_last_) {
    const bool grew = mean_service_ns >= kGrowth * last_service_ns_;
    const bool flat = std::abs(completed_per_s - last_rate_per_s_) <= kFlat * last_rate_per_s_;
    const bool behind = completed_per_s < kBelowTarget * target_per_s;
    streak_ = grew && flat && behind ? streak_ + 1 : 0;
    // Rises in a row, or twice the lowest: the queue may stop growing once it
    // holds every connection (c / S = X), and a few intervals may show only that.
    if (flat && behind && (streak_ >= kStreak || mean_service_ns >= kDoubled * low_service_ns_)) saturated_ = true;
    if (saturated_ && flat && behind) {
      rate_per_s_ = completed_per_s;
      target_per_s_ = target_per_s;
      high_service_ns_ = std::max(high_service_ns_, mean_service_ns);
    }
  }
  has_last_ = true;
  last_service_ns_ = mean_service_ns;
  last_rate_per_s_ = completed_per_s;
}

std::string Saturation::verdict() const {
  if (!saturated_) return {};
  return fmt::format(
      "the server: saturated at about {:.0f} requests/s: its mean service time grew from {} to {} interval "
      "after interval while it completed no more (the target was {:.0f}/s). A queue is building at the server; "
      "more connections would only queue more.",
      rate_per_s_, report::format_time_ns(low_service_ns_), report::format_time_ns(high_service_ns_), target_per_s_);
}

std::string Saturation::phrase() const {
  if (!saturated_) return {};
  return fmt::format("the server: saturated at ~{:.0f}/s, service {} -> {}", rate_per_s_,
                     report::format_time_ns(low_service_ns_), report::format_time_ns(high_service_ns_));
}

}  // namespace pacer::evidence
