// The users waiting to be resumed, in the order they were queued, each at most
// once (a user queued again while waiting keeps its place). Room for every
// user, allocated once. One worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scenario/fixed_ring.h"

namespace pacer::scenario {

class ReadyQueue {
 public:
  // users: how many user indexes there are (0..users-1).
  explicit ReadyQueue(std::size_t users) : ring_(users), queued_(users, 0) {}

  // Queues the user; false when it is already waiting (its place is kept).
  bool push(int user) {
    std::uint8_t& queued = queued_[static_cast<std::size_t>(user)];
    if (queued != 0) return false;
    queued = 1;
    ring_.push_back(user);  // never full: each user is on it at most once
    return true;
  }
  // The user queued first, taken off the queue; the queue must not be empty.
  int pop() {
    const int user = ring_.pop_front();
    queued_[static_cast<std::size_t>(user)] = 0;
    return user;
  }
  bool empty() const { return ring_.empty(); }
  std::size_t size() const { return ring_.size(); }

 private:
  FixedRing<int> ring_;
  std::vector<std::uint8_t> queued_;  // by user: on the ring now
};

}  // namespace pacer::scenario
