// See stop_rules.h.
#include "engine/loop/stop_rules.h"

#include <algorithm>

#include "engine/control/run_end.h"

namespace pacer::engine {

std::optional<TimeNs> StopRules::drain_begins(TimeNs now_ns, TimeNs end_ns) const {
  const bool control_ended = run_end_ != nullptr && run_end_->ended();
  if (now_ns < end_ns && !control_ended) return std::nullopt;
  // The shape's end: the second it was asked at (0: not known, the wake-up's).
  if (control_ended && run_end_->ended_at_ns() > 0) end_ns = std::min(end_ns, run_end_->ended_at_ns());
  return std::min(now_ns, end_ns);
}

}  // namespace pacer::engine
