// See reset_schedule.h.
#include "engine/control/reset_schedule.h"

#include <algorithm>

namespace pacer::engine {

void ResetSchedule::started(TimeNs start_ns, TimeNs record_from_ns, TimeNs end_ns, TimeNs interval_ns) {
  std::lock_guard lock(mutex_);
  start_ns_ = start_ns;
  record_from_ns_ = std::max(record_from_ns, start_ns);
  end_ns_ = end_ns;
  interval_ns_ = interval_ns;
}

Result<ResetSchedule::Scheduled> ResetSchedule::schedule(TimeNs now_ns) {
  std::lock_guard lock(mutex_);
  if (start_ns_ == 0) return bad_argument("the run has not started: its statistics start with it");
  if (const TimeNs pending = reset_at_ns_.load(std::memory_order_relaxed); pending > now_ns) {
    return Scheduled{pending, false};
  }
  TimeNs at = std::max(now_ns + kResetLeadNs, record_from_ns_);
  if (interval_ns_ > 0 && at > record_from_ns_) {
    const TimeNs steps = (at - record_from_ns_ + interval_ns_ - 1) / interval_ns_;  // the next boundary
    at = record_from_ns_ + steps * interval_ns_;
  }
  if (at >= end_ns_) return bad_argument("the run ends before its statistics could start again (-d)");
  reset_at_ns_.store(at, std::memory_order_release);
  reset_generation_.fetch_add(1, std::memory_order_acq_rel);
  return Scheduled{at, true};
}

}  // namespace pacer::engine
