// A worker: one thread, one event loop, its share of the connections, and its
// own counters and histograms (shared-nothing; merged after join). The hot path
// (wake-up -> read/write -> parse -> complete -> record) takes no lock and
// allocates nothing: every buffer and connection is created by prepare().
//
// The worker is a small loop composing parts with one job each:
//   loop/       the clock (LoopClock) and the read budget, owned here;
//   conn/       the connection pool (connect, backoff, expiry, give-up) and the
//               transport chosen once per run (TCP, TLS, QUIC), with each
//               connection's session made by the SessionFactory;
//   exchange/   the requests on the wire: slots, in flight, timeouts, the
//               session's events;
//   drive/      the load driver, *when* to send (closed, open, scenario users),
//               asking its RequestSource *what* to send;
//   record/     the recorder, the only writer of the result and the intervals.
// Parts report to each other through the worker's Router (router.h, conn/links.h),
// which routes each event to the part that owns it; the SentWriter
// (sent_writer.h) is the one place that writes requests, and the Waiter
// (loop/waiter.h) the wait between turns. docs/architecture.md walks one
// request through them.
//
// The I/O mechanism (waiting, registering sockets, connects, reads with receive
// stamps, writes, closing) is the worker's io::Engine (io/engine.h: epoll or
// io_uring); the worker does not know which one runs. Each Connection is an
// io::Channel, and the engine reports its events to Worker::on_io.
//
// Closed loop: when a wake-up finds few responses while many are in flight, the
// worker pauses briefly before the next wait (coalescing; see loop/waiter.h).
#pragma once

#include <limits>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "engine/conn/links.h"
#include "engine/conn/pool.h"
#include "engine/conn/session_factory.h"
#include "engine/conn/transport.h"
#include "engine/control/reset_watch.h"
#include "engine/drive/driver.h"
#include "engine/drive/user_connections.h"
#include "engine/drive/worker_script.h"
#include "engine/exchange/exchange.h"
#include "engine/loop/clock.h"
#include "engine/loop/stop_rules.h"
#include "engine/loop/waiter.h"
#include "engine/conn/read_budget.h"
#include "engine/record/recorder.h"
#include "engine/router.h"
#include "engine/run_plan.h"
#include "engine/sent_writer.h"
#include "io/engine.h"
#include "net/tls_stream.h"
#include "watchdog/lua_watch.h"

namespace pacer::engine {

class Worker final : io::Events {
 public:
  // worker_index: 0..worker_count-1 (its share of the schedule); connections: its
  // share of -c; request_quota: its share of -n.
  Worker(const SharedRun& shared, int worker_index, int connections, std::optional<std::uint64_t> request_quota);

  // Allocates everything the loop needs. Main thread, before the clock starts.
  Status prepare();
  // Uses an already connected socket (the start-up probe's) as the first
  // connection instead of opening a new one. Before run().
  // https: `tls` is the probe's established stream and handshake_ns its handshake time.
  void adopt_first_connection(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls = {}, TimeNs handshake_ns = 0);
  // Before run(): the start-up probe was closed unused (a long --start-at wait).
  // The server saw it, so it counts as a connect (and a TLS handshake), before the
  // recording as a warm-up's would: counted, not timed.
  void count_closed_probe(bool tls) {
    recorder_.connections().connected(std::numeric_limits<TimeNs>::min(), -1);
    if (tls) recorder_.connections().handshaken(std::numeric_limits<TimeNs>::min(), 0, false);
  }
  // The thread body: runs until the end of the run, -n, or the stop flag.
  void run();
  WorkerResult& result() { return recorder_.result(); }
  // Per-interval figures for the controller (null unless SharedRun::interval_ns > 0).
  IntervalRing* intervals() { return recorder_.intervals().ring(); }
  // Set (release) once run() has returned and published its last interval.
  bool is_done() const { return done_.load(std::memory_order_acquire); }
  // Whether, and where, this worker's thread is inside a Lua call (a script's
  // hook or a scenario's task): the controller's watchdog reads it.
  const watchdog::LuaBeat& lua_beat() const { return beat_; }

 private:
  // io::Events: a wait returned (the engine's clock reading; the wake-up's read
  // budget, the unread connections first); then the engine's report on one connection.
  void on_wake(TimeNs now_ns) override;
  void on_io(io::Channel& channel, std::uint32_t flags, int err) override;

  // The loop.
  Status make_driver();
  // The stop rules (loop/stop_rules.h), asked with this worker's facts.
  StopReason interrupted();  // before a turn: the stop flag, a script's stop, the give-up rule
  void turn();   // one pass over what is due, in a fixed order
  void expire_timeouts();  // each request past --timeout, then its connection reopens or sends again
  StopReason done() const { return StopRules::done(clock_.draining, !exchange_.idle(), driver_->progress()); }
  void begin_drain(TimeNs now_ns);  // at a wake-up: -d's end or the shape's, by the stop rules
  TimeNs next_wake_ns() const;  // the earliest time a part is due: the wait's end
  IntervalGauges gauges() const;
  // POST /stats/reset's time came: the intervals up to it close, then the
  // recorder's and the driver's figures start again.
  void reset_stats(TimeNs at_ns);

  const SharedRun& shared_;
  const int worker_index_;
  const int connection_count_;
  const std::optional<std::uint64_t> request_quota_;
  std::unique_ptr<io::Engine> engine_;  // the I/O mechanism (io/engine.h); outlives the connections
  LoopClock clock_;
  ReadBudget budget_;
  Recorder recorder_;
  std::unique_ptr<WorkerScript> script_;       // -s: null without a script
  std::unique_ptr<SessionFactory> sessions_;   // outlives the connections' sessions
  Transport transport_;
  Exchange exchange_;
  ConnectionPool pool_;
  // A scenario's users' connections (null otherwise): a stopped user's close
  // after the driver's call returned (Router::ready, SentWriter::write_sent).
  std::unique_ptr<UserConnections> user_connections_;
  std::unique_ptr<LoadDriver> driver_;
  ResetWatch resets_;
  const StopRules stop_rules_;
  SentWriter writer_;  // writes what the exchange was given (after the driver returned)
  Router router_;      // the parts' connection events, to the part that owns each
  Waiter waiter_;      // the wait between turns, and the closed loop's pause
  std::atomic<bool> done_{false};
  watchdog::LuaBeat beat_;  // written by the worker's Lua calls, read by the controller
};

}  // namespace pacer::engine
