// A first-in first-out ring of a fixed capacity, set once (allocated then,
// never again): the users' ready queue and the open model's task backlog. One
// thread.
#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

namespace pacer::scenario {

template <class T>
class FixedRing {
 public:
  explicit FixedRing(std::size_t capacity) : items_(capacity) {}

  std::size_t capacity() const { return items_.size(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == items_.size(); }

  // Adds at the back; false (and nothing added) when full.
  bool push_back(const T& item) {
    if (full()) return false;
    items_[(head_ + size_) % items_.size()] = item;
    ++size_;
    return true;
  }
  // The oldest item; the ring must not be empty.
  const T& front() const {
    assert(!empty());
    return items_[head_];
  }
  // Removes the oldest item and returns it; the ring must not be empty.
  T pop_front() {
    assert(!empty());
    const T item = items_[head_];
    head_ = (head_ + 1) % items_.size();
    --size_;
    return item;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace pacer::scenario
