// WorkerRing and CalibrationPools. See calibration_pools.h.
#include "server/calibration_pools.h"

#include <algorithm>
#include <limits>

namespace pacer::server {

WorkerRing::WorkerRing(std::size_t workers, TimeNs service_ns)
    : free_ns_(std::make_unique<TimeNs[]>(workers)),
      workers_(workers),
      service_ns_(service_ns),
      last_arrival_ns_(std::numeric_limits<TimeNs>::min()) {
  std::fill_n(free_ns_.get(), workers_, std::numeric_limits<TimeNs>::min());  // free since ever
}

TimeNs WorkerRing::assign(TimeNs arrival_ns) {
  last_arrival_ns_ = std::max(last_arrival_ns_, arrival_ns);
  TimeNs& free_ns = free_ns_[head_];
  free_ns = std::max(last_arrival_ns_, free_ns) + service_ns_;
  head_ = head_ + 1 == workers_ ? 0 : head_ + 1;
  return free_ns;
}

CalibrationPools::CalibrationPools(std::size_t max_pools) : max_pools_(max_pools) { pools_.reserve(max_pools); }

std::optional<TimeNs> CalibrationPools::finish_ns(std::size_t workers, TimeNs service_ns, TimeNs arrival_ns) {
  const std::lock_guard lock(mutex_);
  for (WorkerRing& pool : pools_) {
    if (pool.workers() == workers && pool.service_ns() == service_ns) return pool.assign(arrival_ns);
  }
  if (pools_.size() == max_pools_) return std::nullopt;
  return pools_.emplace_back(workers, service_ns).assign(arrival_ns);
}

}  // namespace pacer::server
