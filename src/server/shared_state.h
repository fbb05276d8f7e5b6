// State shared by the worker threads of one Server: per-worker counters (each slot
// written only by its worker, read by anyone as relaxed sums), the /fail counter,
// the first-request time that anchors --freeze-at, the stop flag, and the /pool
// route's virtual pools. Everything else mutable is atomic; only the pools take a
// lock (calibration_pools.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "net/tls_context.h"
#include "server/calibration_pools.h"
#include "server/path_counts.h"
#include "server/serve_config.h"

namespace pacer::server {

// One worker's counters, on their own cache line. Single writer (the worker), so
// updates are a relaxed load and store rather than a locked read-modify-write.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> requests_answered{0};
  std::atomic<std::uint64_t> requests_received{0};
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_open{0};

  static void add(std::atomic<std::uint64_t>& counter, std::uint64_t delta = 1) {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
  static void subtract(std::atomic<std::uint64_t>& counter, std::uint64_t delta = 1) {
    counter.store(counter.load(std::memory_order_relaxed) - delta, std::memory_order_relaxed);
  }
};

class SharedState {
 public:
  SharedState(const ServeConfig& serve_config, int workers)
      : config(serve_config), counters(static_cast<std::size_t>(workers)) {
    for (int i = 0; i < workers; ++i) path_counts.push_back(std::make_unique<PathCounts>());
  }

  const ServeConfig config;
  const net::TlsContext* tls = nullptr;  // --tls: set before the workers start, then read-only
  std::vector<WorkerCounters> counters;  // one per worker, index = worker index
  // Requests received per "METHOD path" (for /stats), one table per worker, same index.
  std::vector<std::unique_ptr<PathCounts>> path_counts;
  std::atomic<std::uint64_t> fail_route_requests{0};
  CalibrationPools pools{kMaxCalibrationPools};  // /pool/W/MS
  std::atomic<bool> stop_requested{false};

  std::uint64_t sum(std::atomic<std::uint64_t> WorkerCounters::*field) const {
    std::uint64_t total = 0;
    for (const WorkerCounters& c : counters) total += (c.*field).load(std::memory_order_relaxed);
    return total;
  }

  // Records now as the time of the first request unless one is already recorded
  // (once, across threads). Returns true when this call recorded it.
  bool note_first_request(TimeNs now_ns) {
    if (first_request_ns_.load(std::memory_order_relaxed) >= 0) return false;
    TimeNs unset = -1;
    return first_request_ns_.compare_exchange_strong(unset, now_ns, std::memory_order_acq_rel);
  }

  // If now_ns falls inside the freeze window [first + freeze_at, + freeze_for),
  // blocks until the window ends or stop is requested (wake_fd, the caller's
  // eventfd, becomes readable on stop). Returns the clock after any wait.
  TimeNs wait_out_freeze(TimeNs now_ns, int wake_fd) const;

 private:
  std::atomic<TimeNs> first_request_ns_{-1};
};

}  // namespace pacer::server
