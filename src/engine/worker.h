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
// Parts report to each other through the worker (conn/links.h), which routes
// each event to the part that owns it. docs/architecture.md walks one request
// through them.
//
// The I/O mechanism (waiting, registering sockets, connects, reads with receive
// stamps, writes, closing) is the worker's io::Engine (io/engine.h: epoll or
// io_uring); the worker does not know which one runs. Each Connection is an
// io::Channel, and the engine reports its events to Worker::on_io.
//
// Closed loop: when a wake-up finds few responses while many are in flight, the
// worker pauses briefly before the next wait (coalescing; see wait_for_events).
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
#include "engine/conn/read_budget.h"
#include "engine/record/recorder.h"
#include "engine/run_plan.h"
#include "io/engine.h"
#include "net/tls_stream.h"
#include "watchdog/lua_watch.h"

namespace pacer::engine {

class Worker final : io::Events, LinkEvents, PoolEvents {
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
  // LinkEvents, routed to the part that owns each.
  void established(Connection& c) override { pool_.established(c); }
  void retry_later(Connection& c) override { pool_.retry_later(c); }
  // The exchange counts what c's failure or close ends; c reopens after it returned.
  void broke(Connection& c, ErrorField error) override {
    exchange_.fail_connection(c, error);
    pool_.reopen(c);
  }
  void reopen(Connection& c) override { pool_.reopen(c); }
  void peer_closed(Connection& c) override {
    exchange_.peer_closed(c);
    pool_.reopen(c);
  }
  // Fills c's free slots (the driver), writes, or reconnects c once it can take
  // no more requests and has none in flight.
  void ready(Connection& c) override;
  // The one place that writes requests: every connection the exchange gave a
  // request since the last call (but `written`, just written), after the driver
  // that sent them returned.
  void write_sent(const Connection* written = nullptr);
  // PoolEvents.
  bool wants_connection(Connection& c) override { return driver_->wants_connection(c); }
  void opened(Connection& c) override;
  void closing(Connection& c) override;

  // The loop.
  Status make_driver();
  // The stop rules (loop/stop_rules.h), asked with this worker's facts.
  StopReason interrupted();  // before a turn: the stop flag, a script's stop, the give-up rule
  void turn();   // one pass over what is due, in a fixed order
  void expire_timeouts();  // each request past --timeout, then its connection reopens or sends again
  StopReason done() const { return StopRules::done(clock_.draining, !exchange_.idle(), driver_->progress()); }
  void begin_drain(TimeNs now_ns);  // at a wake-up: -d's end or the shape's, by the stop rules
  TimeNs next_wake_ns() const;
  void wait_for_events();
  // Closed loop: whether to pause before the next wait so that responses due
  // soon are handled in one wake-up (see wait_for_events).
  bool worth_coalescing(TimeNs wake_ns) const;
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
  // after the driver's call returned (ready, write_sent).
  std::unique_ptr<UserConnections> user_connections_;
  std::unique_ptr<LoadDriver> driver_;
  ResetWatch resets_;
  const StopRules stop_rules_;
  std::vector<Connection*> sent_;  // write_sent's list (capacity: every slot)
  bool writing_ = false;           // inside write_sent: a write's failure may reopen and send again
  int last_events_ = 0;       // events the last wait returned
  TimeNs idle_from_ns_ = 0;  // when the current wait began (the busy share, issue 28)
  TimeNs coalesce_ns_ = 0;    // the closed loop's pause before a wait; 0: none
  std::atomic<bool> done_{false};
  watchdog::LuaBeat beat_;  // written by the worker's Lua calls, read by the controller
};

}  // namespace pacer::engine
