// The give-up rule (docs/limits.md): a run in which not one connection is open
// anywhere (TCP connected and, for https, the handshake done) for --give-up
// (default 10 x --timeout) ends at once with exit 1 and the reason, whatever
// bounds it otherwise (-n against a dead server would wait forever).
//
// Each worker publishes since when it has had no open connection; it stores that
// only when its count of open connections goes to or from zero, never per request.
// A worker with none open for the whole period reads every worker's value; the
// first to see all of them idle long enough raises the flag every worker checks.
// Created by engine::run on the main thread; touched by every worker thread.
#pragma once

#include <atomic>
#include <limits>
#include <memory>

#include "core/clock.h"

namespace pacer::engine {

class GiveUpWatch {
 public:
  static constexpr TimeNs kHasOpen = std::numeric_limits<TimeNs>::max();

  // Every worker starts idle since start_ns (its first connection is not up yet).
  GiveUpWatch(int workers, TimeNs start_ns);

  // Worker `w` has had no open connection since since_ns, or kHasOpen.
  void set_idle_since(int w, TimeNs since_ns) { slots_[w].idle_since_ns.store(since_ns, std::memory_order_relaxed); }
  // True (and the flag raised) when every worker has had no open connection for
  // period_ns at now_ns. A worker that finished early counts as idle.
  bool all_idle_for(TimeNs now_ns, TimeNs period_ns);
  bool gave_up() const { return gave_up_.load(std::memory_order_relaxed); }

 private:
  struct alignas(64) Slot {
    std::atomic<TimeNs> idle_since_ns{0};
  };
  std::unique_ptr<Slot[]> slots_;
  int workers_;
  std::atomic<bool> gave_up_{false};
};

}  // namespace pacer::engine
