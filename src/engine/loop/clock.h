// The worker's clock: the loop's reading of CLOCK_MONOTONIC (taken at each
// wake-up and refreshed at each send), the kernel's receive stamp of the bytes
// being parsed, and whether the run has passed its end (the drain). Every part
// of a worker holds the one LoopClock its loop owns and reads `now` from it;
// only the loop (wake-ups) and the exchange (sends) move it. One worker thread.
#pragma once

#include <limits>

#include "core/clock.h"

namespace pacer::engine {

// A time that never comes: no deadline, no timer.
inline constexpr TimeNs kNeverNs = std::numeric_limits<TimeNs>::max();

struct LoopClock {
  TimeNs now = 0;         // read at each wake-up and each send
  TimeNs arrived_ns = 0;  // when the kernel received the bytes being parsed
  bool stamps_seen = false;  // the kernel stamps this worker's reads
  bool draining = false;     // past the end: no new requests, the ones in flight finish

  TimeNs refresh() { return now = monotonic_now_ns(); }
  // The bytes about to be parsed arrived at `stamp` (the kernel's; 0: unstamped,
  // then at this wake-up): the responses they complete end there.
  void note_arrival(TimeNs stamp) {
    arrived_ns = stamp != 0 ? stamp : now;
    if (stamp != 0) stamps_seen = true;
  }
  // When a response sent at t_send_ns ended: the receive stamp, unless it predates
  // the send (a clock step) or the response completed without a read (the
  // connection's end); then this wake-up.
  TimeNs done_after(TimeNs t_send_ns) const { return arrived_ns >= t_send_ns ? arrived_ns : now; }
};

}  // namespace pacer::engine
