// See waiter.h.
#include "engine/loop/waiter.h"

#include <algorithm>
#include <ctime>

namespace pacer::engine {

namespace {

// Closed-loop coalescing: a pause of at most 1/16 of the mean latency and
// 200 us, when the last wake-up ended fewer than 8 requests and at least 8 are
// in flight.
constexpr TimeNs kMaxCoalesceNs = 200 * kNsPerUs;
constexpr TimeNs kCoalesceLatencyShare = 16;
constexpr std::uint64_t kCoalesceBelowEnded = 8;
constexpr std::size_t kCoalesceMinInFlight = 8;

}  // namespace

void Waiter::sample(std::optional<TimeNs> mean_latency_ns, bool stamps_seen) {
  if (mean_latency_ns) coalesce_ns_ = stamps_seen ? std::min(kMaxCoalesceNs, *mean_latency_ns / kCoalesceLatencyShare) : 0;
}

void Waiter::wait(io::Engine& engine, io::Events& events, LoopClock& clock, TimeNs wake_ns, bool unread_left,
                  Flights flights) {
  idle_from_ns_ = monotonic_now_ns();  // the worker's busy share (evidence/worker_load.h): until on_wake
  const std::uint64_t last_ended = flights.ended - ended_at_wait_;  // by the last wake-up's turn
  ended_at_wait_ = flights.ended;
  if (worth_coalescing(clock.now, wake_ns, unread_left, flights.in_flight, last_ended)) {
    // A wake-up per response costs a context switch on each side; after a short
    // pause one wake-up takes the responses that came meanwhile. Their latency
    // ends at the kernel's receive stamp, so the pause is not in it; the next
    // requests leave up to coalesce_ns_ later (at most 1/16 of a mean latency).
    engine.submit();  // what this wake-up queued leaves now, not after the pause
    const timespec pause{0, static_cast<long>(coalesce_ns_)};
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr);
    clock.refresh();
  }
  // Bytes left unread by the last wake-up's budget: only look for new events.
  // --spin: never sleep (a thread woken by a timer can be late by milliseconds).
  const TimeNs timeout = !unread_left && !shared_.options.loop.spin ? std::max<TimeNs>(0, wake_ns - clock.now) : 0;
  engine.wait(timeout, events);  // on_wake, then on_io per event
}

bool Waiter::worth_coalescing(TimeNs now_ns, TimeNs wake_ns, bool unread_left, std::size_t in_flight,
                              std::uint64_t last_ended) const {
  // Not in the open model (arrivals are timed), nor without receive stamps (the
  // pause would be in the latency), nor when responses come in batches already
  // (however few events brought them) or too few requests are in flight for a
  // batch to form. --spin never sleeps, so it never pauses either.
  return coalesce_ns_ > 0 && shared_.profile == nullptr && !shared_.options.loop.spin && !unread_left &&
         last_ended > 0 && last_ended < kCoalesceBelowEnded && in_flight >= kCoalesceMinInFlight &&
         wake_ns - now_ns > coalesce_ns_;
}

}  // namespace pacer::engine
