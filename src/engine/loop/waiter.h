// The wait between a worker's turns: until the earliest time a part is due (the
// worker says when), never sleeping while a read budget left bytes unread or
// with --spin; and the closed loop's pause before it (coalescing): when a
// wake-up finds few responses while many are in flight, a short pause lets one
// wake-up take the responses due soon. Responses, not events: an HTTP/2 or
// HTTP/3 event carries every response a connection's read brought, so a few
// events can be a large batch already, and a pause then only adds a sleep. Owns
// the pause's length (from the mean latency), the requests ended at the last wait and
// when the wait began (the worker's busy share, issue 28). One worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/run_plan.h"
#include "io/engine.h"

namespace pacer::engine {

// The worker's requests at a wait: on the wire now, and ended so far (a running
// count of responses, failures and timeouts: engine/exchange/exchange.h ended()).
struct Flights {
  std::size_t in_flight = 0;
  std::uint64_t ended = 0;
};

class Waiter {
 public:
  explicit Waiter(const SharedRun& shared) : shared_(shared) {}

  // After a turn, not draining: an interval's mean latency (when one was
  // sampled) sets the pause; none without the kernel's receive stamps (the
  // pause would be in the latency).
  void sample(std::optional<TimeNs> mean_latency_ns, bool stamps_seen);
  // Waits for the engine's events (they go to `events`: on_wake, then on_io per
  // event) until wake_ns at the latest. unread_left: a read budget left bytes
  // unread (only new events are looked for).
  void wait(io::Engine& engine, io::Events& events, LoopClock& clock, TimeNs wake_ns, bool unread_left,
            Flights flights);
  // At the wake-up at now_ns: the wait's own time (never negative).
  TimeNs waited(TimeNs now_ns) const { return now_ns > idle_from_ns_ ? now_ns - idle_from_ns_ : 0; }

 private:
  // Closed loop: whether to pause before the wait so that responses due soon
  // are handled in one wake-up; last_ended: requests the last wake-up ended.
  bool worth_coalescing(TimeNs now_ns, TimeNs wake_ns, bool unread_left, std::size_t in_flight,
                        std::uint64_t last_ended) const;

  const SharedRun& shared_;   // the worker's; outlives it
  std::uint64_t ended_at_wait_ = 0;  // Flights::ended at the last wait
  TimeNs idle_from_ns_ = 0;   // when the current wait began
  TimeNs coalesce_ns_ = 0;    // the closed loop's pause before a wait; 0: none
};

}  // namespace pacer::engine
