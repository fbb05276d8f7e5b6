// The virtual worker pools behind `pacer serve`'s /pool/W/MS route, a target of
// known capacity (issue 41's calibration target): one pool per distinct (W, MS),
// W workers each spending MS on a request, taking requests first come, first
// served, in the order the server hands them over. A request's reply is due when
// its worker finishes it; a request whose client leaves keeps its place (a real
// server finishes work already queued). Shared by every worker thread of a Server
// under one mutex (a lock per request is cheap beside the milliseconds served).
// A pool's ring is allocated at its first request; nothing allocates after that.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.h"

namespace pacer::server {

// Distinct (W, MS) pairs one server keeps pools for; a request for another gets 503.
constexpr std::size_t kMaxCalibrationPools = 64;

// W workers with one service time T, first come, first served. The workers' free
// times kept as a ring, read from head_, are sorted (each assignment puts the
// latest finish at the end), so head_ is always the worker free earliest:
//   start = max(arrival, free[head]); free[head] = start + T; head = (head + 1) % W
// is the earliest-free assignment. Not thread-safe.
class WorkerRing {
 public:
  // Allocates the ring; workers >= 1, service_ns >= 0.
  WorkerRing(std::size_t workers, TimeNs service_ns);

  // When a request arriving at arrival_ns finishes. Requests are served in call
  // order: one arriving earlier than a request already assigned (another thread's
  // clock read a moment sooner) is taken as arriving with it, so the ring stays
  // sorted. Allocates nothing.
  TimeNs assign(TimeNs arrival_ns);

  std::size_t workers() const { return workers_; }
  TimeNs service_ns() const { return service_ns_; }

 private:
  std::unique_ptr<TimeNs[]> free_ns_;  // when each worker is next free
  std::size_t workers_;
  std::size_t head_ = 0;
  TimeNs service_ns_;
  TimeNs last_arrival_ns_;
};

// The pools of one server, at most max_pools of them. Thread-safe.
class CalibrationPools {
 public:
  explicit CalibrationPools(std::size_t max_pools);

  // Assigns a request arriving at arrival_ns to the pool of `workers` workers of
  // service_ns each, creating it at its first request; returns when the request
  // finishes, or nullopt when that would make more than max_pools pools.
  std::optional<TimeNs> finish_ns(std::size_t workers, TimeNs service_ns, TimeNs arrival_ns);

 private:
  std::mutex mutex_;
  std::size_t max_pools_;
  std::vector<WorkerRing> pools_;  // reserved to max_pools_: a new pool moves none
};

}  // namespace pacer::server
