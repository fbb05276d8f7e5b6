// What a worker's event loop lends its connections during one wake-up: the shared
// server state, the worker's own counters, its timer heap and "run again" list, the
// arrival log, and the clock read once for this wake-up. Owned by the worker
// thread; never shared between threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/clock.h"
#include "server/shared_state.h"

namespace pacer::server {

class Connection;

// A reference to a connection that stays safe after the connection object is
// recycled: it is stale once the connection's generation has moved on.
struct ConnectionRef {
  Connection* connection = nullptr;
  std::uint64_t generation = 0;
};

struct TimerEntry {
  TimeNs due_ns = 0;
  ConnectionRef target;
};

// Min-heap of timers by due time. Entries are never removed early: a cancelled
// timer is recognised as stale (generation or state) when it fires.
class TimerHeap {
 public:
  void reserve(std::size_t entries) { entries_.reserve(entries); }
  bool empty() const { return entries_.empty(); }
  const TimerEntry& top() const { return entries_.front(); }
  void push(TimerEntry entry) {
    entries_.push_back(entry);
    std::push_heap(entries_.begin(), entries_.end(), later);
  }
  void pop() {
    std::pop_heap(entries_.begin(), entries_.end(), later);
    entries_.pop_back();
  }

 private:
  static bool later(const TimerEntry& a, const TimerEntry& b) { return a.due_ns > b.due_ns; }
  std::vector<TimerEntry> entries_;
};

struct LoopContext {
  SharedState& shared;
  WorkerCounters& counters;            // this worker's slot in shared.counters
  PathCounts& path_counts;             // this worker's table in shared.path_counts
  TimerHeap& timers;
  std::vector<ConnectionRef>& again;   // connections that spent their turn's budget
  std::vector<TimeNs>* arrivals;       // null unless --log-arrivals
  int wake_fd;                         // this worker's stop eventfd
  TimeNs now_ns;                       // read once per wake-up
};

}  // namespace pacer::server
