// See shape_driver.h.
#include "engine/control/shape_driver.h"

#include <utility>

namespace pacer::engine {

void ShapeDriver::started(TimeNs start_ns) {
  start_ns_ = start_ns;
  next_tick_ns_ = start_ns + kShapePeriodNs;
}

std::optional<ShapeDriver::Asked> ShapeDriver::ask_if_due(TimeNs now_ns) {
  if (!shape_ || now_ns < next_tick_ns_) return std::nullopt;
  const TimeNs due_ns = next_tick_ns_;
  next_tick_ns_ += kShapePeriodNs;
  if (next_tick_ns_ <= now_ns) next_tick_ns_ = now_ns + kShapePeriodNs;  // the main thread was held up
  return Asked{due_ns, shape_(static_cast<double>(now_ns - start_ns_) / 1e9)};
}

void ShapeDriver::failed(std::string message) {
  std::lock_guard lock(mutex_);
  error_ = std::move(message);
}

std::string ShapeDriver::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace pacer::engine
