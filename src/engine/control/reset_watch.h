// A worker's view of the run's statistics resets (POST /stats/reset, issue 27):
// ResetSchedule::schedule names a time a little ahead (an interval boundary);
// each worker notices it at a wake-up (one atomic load) and starts its figures
// again once its clock reaches that time, before it handles anything of that
// wake-up, so every worker's figures restart at the same instant. One worker thread.
#pragma once

#include <cstdint>
#include <optional>

#include "core/clock.h"
#include "engine/control/reset_schedule.h"
#include "engine/loop/clock.h"

namespace pacer::engine {

class ResetWatch {
 public:
  explicit ResetWatch(const ResetSchedule* resets) : resets_(resets) {}

  // The reset due by now_ns, once (its time), or nullopt.
  std::optional<TimeNs> due(TimeNs now_ns) {
    if (resets_ != nullptr && resets_->reset_generation() != seen_) {
      seen_ = resets_->reset_generation();
      pending_ns_ = resets_->reset_at_ns();
    }
    if (pending_ns_ == kNeverNs || now_ns < pending_ns_) return std::nullopt;
    const TimeNs at = pending_ns_;
    pending_ns_ = kNeverNs;
    return at;
  }
  // When the loop must be awake for a pending reset (kNeverNs: none).
  TimeNs next_due_ns() const { return pending_ns_; }

 private:
  const ResetSchedule* resets_;  // null: a run without a control
  std::uint64_t seen_ = 0;
  TimeNs pending_ns_ = kNeverNs;
};

}  // namespace pacer::engine
