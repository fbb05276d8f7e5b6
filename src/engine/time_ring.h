// A bounded FIFO of scheduled times (the open model's backlog of arrivals
// waiting for a free connection). Capacity fixed at construction; push and pop
// never allocate. One worker thread.
#pragma once

#include <cstddef>
#include <vector>

#include "core/clock.h"

namespace pacer::engine {

class TimeRing {
 public:
  explicit TimeRing(std::size_t capacity = 0) : slots_(capacity) {}

  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == slots_.size(); }
  std::size_t size() const { return size_; }
  TimeNs front() const { return slots_[head_]; }

  // Returns false (and stores nothing) when full.
  bool push(TimeNs t) {
    if (full()) return false;
    slots_[(head_ + size_) % slots_.size()] = t;
    ++size_;
    return true;
  }

  TimeNs pop() {
    const TimeNs t = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return t;
  }

 private:
  std::vector<TimeNs> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace pacer::engine
