// One `pacer serve` worker: a thread running its own epoll loop. It shares the
// listening socket with the other workers (EPOLLEXCLUSIVE, so one wakes per new
// connection), owns the connections it accepted, their /delay and /pool timers, a pool of
// connection objects reused across connections. Timers fire at their nanosecond
// (net::EventWait, timer slack 1 ns), never early. Stop is signalled by SharedState's
// stop flag plus this worker's eventfd (wake()), which also ends a freeze wait.
// Everything but wake() runs on the worker's thread; arrivals() is read after join.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "net/event_wait.h"
#include "server/connection.h"
#include "server/loop_context.h"
#include "server/shared_state.h"

namespace pacer::server {

// Connection objects, allocated on first need and recycled after close.
class ConnectionPool {
 public:
  Connection* acquire();
  void release(Connection* connection);

 private:
  std::vector<std::unique_ptr<Connection>> all_;
  std::vector<Connection*> free_;
};

class Worker {
 public:
  // index: this worker's slot in shared.counters. listen_fd stays owned by the Server.
  Worker(int index, SharedState& shared, int listen_fd);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the epoll instance and eventfd and registers the listening socket.
  Status init();
  // The event loop; returns once stop is requested. Closes every connection.
  void run();
  // Wakes the loop (any thread); used by Server::stop after setting the stop flag.
  void wake();
  // Arrival times (ns) this worker recorded; read only after run() has returned.
  const std::vector<TimeNs>& arrivals() const { return arrivals_; }

 private:
  void accept_connection(LoopContext& ctx);
  void fire_timers(LoopContext& ctx);
  void run_again_list(LoopContext& ctx);
  // How long the loop may sleep: until the next timer, 0 with turns to run, or
  // negative (no timer) for as long as it takes.
  TimeNs wait_timeout_ns() const;
  // Returns a connection that closed during the call just made to the pool.
  void recycle_if_closed(Connection* connection, bool was_open);

  int index_;
  SharedState& shared_;
  int listen_fd_;
  UniqueFd epoll_fd_;
  UniqueFd wake_fd_;
  net::EventWait event_wait_;
  ConnectionPool pool_;
  TimerHeap timers_;
  std::vector<ConnectionRef> again_;
  std::vector<ConnectionRef> again_running_;
  std::vector<TimeNs> arrivals_;
};

}  // namespace pacer::server
