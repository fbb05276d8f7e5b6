// See load_target.h.
#include "engine/control/load_target.h"

#include <utility>

namespace pacer::engine {

PublishedTarget::PublishedTarget(LoadKind kind, int ceiling, double max_rate_per_s, LoadTarget first)
    : kind_(kind), ceiling_(ceiling), max_rate_(max_rate_per_s), target_(std::move(first)) {}

LoadTarget PublishedTarget::target() const {
  std::lock_guard lock(mutex_);
  return target_;
}

int PublishedTarget::users() const {
  std::lock_guard lock(mutex_);
  return target_.users;
}

void PublishedTarget::set_first(LoadTarget first) {
  std::lock_guard lock(mutex_);
  first.generation = target_.generation;
  target_ = std::move(first);
}

void PublishedTarget::publish(LoadTarget next) {
  std::lock_guard lock(mutex_);
  next.generation = generation_.load(std::memory_order_relaxed) + 1;
  target_ = std::move(next);
  generation_.store(target_.generation, std::memory_order_release);
}

}  // namespace pacer::engine
