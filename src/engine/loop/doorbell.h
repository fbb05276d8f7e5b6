// The controller's wake-up (engine/controller.h): the main thread sleeps on the
// doorbell between its looks at the workers, and a worker rings it when there is
// something to look at (an interval published, its run finished), so the main
// thread wakes for those and a few times a second otherwise, not every few
// milliseconds (issue 46: an idle run's wake-ups). Ringing takes a mutex: a
// worker does it once per interval it publishes and once at its end, never per
// request. Any thread rings; one thread waits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/clock.h"

namespace pacer::engine {

class Doorbell {
 public:
  void ring() {
    {
      std::lock_guard lock(mutex_);
      rung_ = true;
    }
    rang_.notify_one();
  }
  // Sleeps until a ring (one since the last wait counts) or until deadline_ns
  // (CLOCK_MONOTONIC, core/clock.h), whichever comes first.
  void wait_until(TimeNs deadline_ns) {
    std::unique_lock lock(mutex_);
    const auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline_ns));
    rang_.wait_until(lock, deadline, [this] { return rung_; });
    rung_ = false;
  }

 private:
  std::mutex mutex_;
  std::condition_variable rang_;
  bool rung_ = false;
};

}  // namespace pacer::engine
