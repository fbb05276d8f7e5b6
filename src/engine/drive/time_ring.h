// A bounded FIFO of scheduled times (the open model's backlog of arrivals
// waiting for a free connection). Capacity fixed at construction; push and pop
// never allocate. The slots are not initialised, and the ring starts again at
// its first slot whenever it empties, so the memory a backlog sized for a 10 s
// stall takes (resident pages) is what its deepest queue used, not the capacity.
// One worker thread.
#pragma once

#include <cstddef>
#include <memory>

#include "core/clock.h"

namespace pacer::engine {

class TimeRing {
 public:
  explicit TimeRing(std::size_t capacity = 0)
      : slots_(std::make_unique_for_overwrite<TimeNs[]>(capacity)), capacity_(capacity) {}

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == capacity_; }
  std::size_t size() const { return size_; }
  TimeNs front() const { return slots_[head_]; }

  // Returns false (and stores nothing) when full.
  bool push(TimeNs t) {
    if (full()) return false;
    const std::size_t tail = head_ + size_;  // < 2 * capacity_: a subtraction wraps it, no division
    slots_[tail < capacity_ ? tail : tail - capacity_] = t;
    ++size_;
    return true;
  }

  TimeNs pop() {
    const TimeNs t = slots_[head_];
    if (++head_ == capacity_) head_ = 0;
    if (--size_ == 0) head_ = 0;  // reuse the slots already touched
    return t;
  }

 private:
  std::unique_ptr<TimeNs[]> slots_;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace pacer::engine
