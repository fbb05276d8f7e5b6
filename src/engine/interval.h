// Per-interval figures, handed from each worker to the controller without a
// lock: the worker fills a slot of its ring at each --interval boundary (aligned
// on the start of recording) and publishes it with a release store; the
// controller reads every worker's slot k once all have published it, then marks
// it consumed. Slots are allocated before the run; publishing copies a histogram
// into a slot of the same layout, which does not allocate.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "core/clock.h"
#include "stats/counters.h"
#include "stats/histogram.h"

namespace pacer::engine {

struct IntervalSnapshot {
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t scheduled = 0;
  stats::ErrorCounts errors;
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  TimeNs end_ns = 0;  // when the worker closed it (monotonic)
};

class IntervalRing {
 public:
  static constexpr std::size_t kSlots = 8;

  // Worker: the slot to fill next, or nullptr if the controller is kSlots behind
  // (the worker then keeps accumulating into a longer interval).
  IntervalSnapshot* slot_to_fill() {
    const std::uint64_t published = published_.load(std::memory_order_relaxed);
    if (published - consumed_.load(std::memory_order_acquire) >= kSlots) return nullptr;
    return &slots_[published % kSlots];
  }
  void publish() { published_.fetch_add(1, std::memory_order_release); }

  // Controller.
  std::uint64_t published() const { return published_.load(std::memory_order_acquire); }
  const IntervalSnapshot& slot(std::uint64_t index) const { return slots_[index % kSlots]; }
  void consume() { consumed_.fetch_add(1, std::memory_order_release); }

 private:
  std::array<IntervalSnapshot, kSlots> slots_;
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> consumed_{0};
};

}  // namespace pacer::engine
