// A worker: one thread, one event loop, its share of the connections, and its
// own counters and histograms (shared-nothing; merged after join). The hot path
// (wake-up -> read/write -> parse -> complete -> record) takes no lock and
// allocates nothing: every buffer and connection is created by prepare().
//
// The I/O mechanism (waiting, registering sockets, connects, reads with receive
// stamps, writes, closing) is the worker's io::Engine (io/engine.h: epoll or
// io_uring); the worker does not know which one runs. Each Connection is an
// io::Channel, and the engine reports its events to Worker::on_io.
//
// Latency: from the send (the clock is read just before it) to the kernel's
// receive stamp of the response's last bytes (plain and TLS sockets alike).
// Closed loop: when a wake-up finds few responses while many are in flight, the
// worker pauses briefly before the next wait (coalescing; see wait_for_events).
//
// Each connection has request slots (proto::Session capacity: HTTP/1.1 pipeline
// depth or HTTP/2 streams; 1 by default). Closed loop: a slot sends its next
// request when its previous one completes; t_sched is when the slot became free.
// Open model: arrivals come from an ArrivalSchedule at nanosecond times (the
// engine's wait takes a nanosecond deadline; 1 ns timer slack); each goes to a
// connection with a free slot or waits in a bounded FIFO backlog, its latency
// clock already running (t_sched is the arrival time). Timeouts are per request slot.
//
// https://: after TCP connects, a connection runs its TLS handshake one step per
// socket edge (worker_tls.cc) before it opens (a kReadiness channel: OpenSSL
// moves the bytes); reads and writes then go through the engine, which calls
// net/transport.h (one branch per call, plain or TLS). With --http2 over TLS the
// server must choose "h2" by ALPN, or the handshake counts as a TLS failure.
//
// A TCP connect or a TLS handshake not done within --timeout fails like a
// refused one (a `connect` or `tls` error, then a reconnect after a backoff): each
// pending one is on a list in start order, so the list's head is the next expiry.
//
// Files: worker.cc (loop, bookkeeping), worker_connect.cc (connect, close,
// backoff), worker_tls.cc (handshake), worker_io.cc (send, receive, session
// events, timeouts), worker_open.cc (the open model's arrivals and backlog),
// worker_quic.cc (--http3: UDP sockets, the QUIC handshake, datagrams, QUIC timers).
// The I/O mechanism: src/io/.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/unique_fd.h"
#include "engine/connection.h"
#include "engine/interval.h"
#include "engine/run_plan.h"
#include "engine/time_ring.h"
#include "engine/worker_script.h"
#include "io/engine.h"
#include "load/schedule.h"
#include "net/tls_context.h"
#include "proto/h2_memory.h"
#include "proto/http1_parser.h"
#include "targets/order.h"
#include "scenario/users.h"
#include "net/udp_io.h"

#include <sys/types.h>

namespace pacer::engine {

class Worker final : io::Events {
 public:
  // worker_index: 0..worker_count-1 (its share of the schedule); connections: its
  // share of -c; request_quota: its share of -n.
  Worker(const SharedRun& shared, int worker_index, int connections, std::optional<std::uint64_t> request_quota);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Allocates everything the loop needs. Main thread, before the clock starts.
  Status prepare();
  // Uses an already connected socket (the start-up probe's) as the first
  // connection instead of opening a new one. Before run().
  // https: `tls` is the probe's established stream and handshake_ns its handshake time.
  void adopt_first_connection(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls = {}, TimeNs handshake_ns = 0);
  // The thread body: runs until the end of the run, -n, or the stop flag.
  void run();
  WorkerResult& result() { return result_; }
  // Per-interval figures for the controller (null unless SharedRun::interval_ns > 0).
  IntervalRing* intervals() { return intervals_.get(); }
  // Set (release) once run() has returned and published its last interval.
  bool is_done() const { return done_.load(std::memory_order_acquire); }

 private:
  friend struct Connection;  // forwards its session's events
  friend class ScenarioPort; // scenarios (worker_scenario.cc)
  static constexpr std::size_t kReadBufferBytes = 64 * 1024;  // the budgets' unit
  // Read budgets: a server can send faster than pacer parses (an endless body in
  // tiny chunks), and reading until the socket drains would never return to the
  // loop, whose timers hold --timeout and -d. So a connection reads at most
  // kReadBytesPerConnection per wake-up, and once a wake-up has spent kReadSliceNs
  // reading (the clock is read only after a read that was not the last) no
  // connection reads more in it. The rest waits on the unread list (an engine
  // reports new bytes once, not again while they wait); the next wait does not
  // block while the list is not empty, and resume_unread serves it first.
  static constexpr std::size_t kReadBytesPerConnection = 4 * kReadBufferBytes;
  static constexpr TimeNs kReadSliceNs = 1'000'000;

  bool is_recorded(TimeNs t_sched) const { return t_sched >= shared_.record_from_ns; }
  // With -n: reserves one of the worker's remaining requests for c before it
  // connects or sends, so no connection opens for a request that will never be
  // sent. Always true without -n and during warm-up; false once draining.
  bool claim_request(Connection& c);
  bool finished() const;
  // The give-up rule (engine/give_up.h): true once no connection of the run has
  // been open for --give-up.
  bool gives_up();
  bool is_open() const { return schedule_.has_value(); }
  TimeNs next_wake_ns() const;
  // When the oldest connection on `list` (kept in *start_ns order) passes
  // --timeout; never when the list is empty.
  template <typename List>
  TimeNs oldest_expiry(const List& list, TimeNs Connection::*start_ns) const {
    return list.empty() ? std::numeric_limits<TimeNs>::max() : list.front()->*start_ns + shared_.config->timeout_ns;
  }
  void wait_for_events();
  void make_session(Connection& c);

  // Connecting and closing (worker_connect.cc).
  void start_connect(Connection& c);
  // Hands fd to the engine as c's socket; on failure closes it and counts a connect error.
  bool register_socket(Connection& c, int fd, bool connected);
  void finish_connect(Connection& c, int err);
  void open_adopted(Connection& c);  // the start-up probe's connection (see adopt_first_connection)
  // Counts a connect error; `what` (with err's text when err != 0) may become the first error.
  void connect_failed(Connection& c, int err, const char* what = "connect");
  void expire_connects();  // pending connects older than --timeout fail
  void schedule_reconnect(Connection& c);  // closes c and retries after a growing backoff
  void connection_established(Connection& c);  // TCP (and TLS) up: the session starts
  void close_connection(Connection& c);
  void reopen(Connection& c);
  void run_due_reconnects();

  // TLS (worker_tls.cc).
  void start_handshake(Connection& c);
  void continue_handshake(Connection& c);
  void handshake_failed(Connection& c, const char* reason);  // reason null: ask the TLS stream
  void expire_handshakes();
  void note_tls_failure(const Connection& c, const char* reason);  // keeps the first reason only

  // HTTP/3 (worker_quic.cc): UDP socket, QUIC handshake, datagrams, QUIC timers.
  void start_quic(Connection& c);
  void quic_readable(Connection& c);
  void quic_handshake_done(Connection& c);
  bool quic_flush(Connection& c);  // false if the connection failed (and was reopened)
  void quic_socket_failed(Connection& c, int err, const char* what);
  void quic_ended(Connection& c);  // the session's QUIC connection ended: count and reopen
  void quic_timers();              // runs the QUIC timers that are due (none before quic_due_ns_)
  void note_quic_timer(const Connection& c);  // c's QUIC state changed: lowers quic_due_ns_ to its timer
  void quic_close(Connection& c);  // CONNECTION_CLOSE to the server, then drop the state

  // Sending and receiving (worker_io.cc).
  // Requests c can take now: its free slots, or 0 if it must not take more.
  std::uint32_t free_capacity(const Connection& c) const;
  // `Connection: close`, a GOAWAY, or --disable-keepalive after its one request.
  bool takes_no_more(const Connection& c) const;
  // Fills c's free slots (closed loop: each slot's next request; open model: the
  // oldest queued arrivals, then the idle list), writes, or reconnects c once it
  // can take no more requests and has none in flight.
  void connection_ready(Connection& c);
  // Queues one request on a free slot of c; false if -n or the drain says no (closed loop).
  bool send_request(Connection& c, TimeNs t_sched);
  // The request a slot sends next: its target (--targets-order) and its name.
  void choose_request(RequestSlot& slot);
  // Before the run (worker_targets.cc): the target picker.
  void prepare_targets();
  // Writes c's pending output; false if the connection failed (and was reopened).
  bool flush(Connection& c);
  // Reads and parses what c received, within the wake-up's read budgets; a
  // connection with more to read goes on the unread list (resume_unread).
  void handle_readable(Connection& c, std::uint32_t events);
  void defer_read(Connection& c, std::uint32_t events);
  // The connections left with unread bytes by earlier wake-ups, oldest first, each
  // with a fresh budget, until this wake-up's total budget is spent.
  void resume_unread();
  void handle_response(Connection& c, std::uint32_t token, int status);
  // Time to first byte: stamps the request's first response byte (the read's arrival), once.
  void handle_first_byte(Connection& c, std::uint32_t token);
  // A redirect followed (counted; the first byte is the final response's),
  // and what a response's body decoded to.
  void handle_redirect(Connection& c, std::uint32_t token);
  void handle_decoded(Connection& c, std::uint32_t token, std::uint64_t bytes);
  void handle_request_failed(Connection& c, std::uint32_t token, proto::RequestFailure why);
  // One response of a script's pipelined batch before its last (counted like a response).
  void handle_batch_response(Connection& c, std::uint32_t token, int status);
  void count_response(Connection& c, const RequestSlot& slot, int status);
  // Scripts (-s), closed loop with delay(): connections whose delay has passed send now.
  void send_delayed();
  RequestSlot& release_slot(Connection& c, std::uint32_t token);
  // Puts a request the server refused unprocessed back: the same t_sched, sent again.
  void retry_request(Connection& c, std::uint32_t token);
  // Every request in flight on c failed with `error` (counted if recorded); reopens c.
  void fail_connection(Connection& c, std::uint64_t stats::ErrorCounts::*error);
  void expire_timeouts();
  void count_timeout(const RequestSlot& slot);
  // A request ended without a response: counts `error` for the run and its name (if
  // recorded) and resumes a scenario's user with it.
  void count_error(const RequestSlot& slot, std::uint64_t stats::ErrorCounts::*error);
  // A read or write failed with r (not kOk, not would-block): counts it as a
  // read/write or TLS error and reopens c.
  void io_failed(Connection& c, const net::IoResult& r, const char* what, std::uint64_t stats::ErrorCounts::*error);

  // Every 100 ms (with the Req/Sec sample): the rate sample and the coalescing pause.
  void sample_rate();
  // Closed loop: whether to pause before the next wait so that responses due
  // soon are handled in one wake-up (see wait_for_events).
  bool worth_coalescing(TimeNs wake_ns) const;
  // io::Events: a wait returned (the engine's clock reading, the wake-up's read
  // budget, the unread list first); then the engine's report on one connection.
  void on_wake(TimeNs now_ns) override;
  void on_io(io::Channel& channel, std::uint32_t flags, int err) override;
  void note_error(int err, const char* what);
  // The bytes about to be parsed arrived at `stamp` (the kernel's; 0: unstamped,
  // then this wake-up): responses they complete end there (count_response).
  void note_arrival(TimeNs stamp) {
    arrived_ns_ = stamp != 0 ? stamp : now_;
    if (stamp != 0) stamps_seen_ = true;
  }
  // Records a recorded request's latency under its name (or, never sent, with
  // none: kUnsent), in the censored histogram if it is, and in the interval's.
  static constexpr stats::NameId kUnsent = ~stats::NameId{0};
  void record_latency(stats::NameId name, TimeNs latency_ns, bool censored, std::int64_t count = 1);
  void close_intervals(bool final);
  std::uint64_t count_open_connections() const;  // at interval close: O(connections), no allocation
  // At interval close: the requests in flight, the oldest one's age and how many
  // are older than --interval (a walk from the head of the in-flight list that
  // stops at the first younger one).
  void fill_in_flight_gauges(IntervalSnapshot& slot) const;

  // Scenarios (worker_scenario.cc): virtual users, one per connection.
  Status prepare_scenario();
  void scenario_turn();                 // due timers, queued users, the open model's task backlog
  void scenario_send(Connection& c);    // c's user has a request to send
  // c's request ended without a response (error: its class, counted by count_error).
  void scenario_failed(Connection& c, std::uint64_t stats::ErrorCounts::*error, bool recorded);

  // Open model (worker_open.cc).
  void dispatch_arrivals();
  void take_arrival(TimeNs t_sched);
  bool pop_backlog(TimeNs& t_sched);     // the oldest arrival that has not waited too long
  // How long an arrival may wait in the backlog: --timeout, or a shorter --deadline.
  TimeNs backlog_limit_ns() const;
  // Arrivals at the backlog's head that waited backlog_limit_ns() are given up:
  // `unsent` (or `deadline` when --deadline set the limit). During the run and the drain.
  void expire_backlog();
  // `count` arrivals, the first scheduled at t_sched, waited `waited_ns` at least.
  void give_up_arrival(TimeNs t_sched, std::uint64_t count = 1, TimeNs waited_ns = -1);
  // Counts in O(1) the arrival at next_arrival_ns_ and all others due before until_ns
  // that nothing can send: backlog overflows, or (stale) arrivals already past the
  // backlog's limit when the loop reaches them, given up as give_up_arrival would.
  void skip_due_arrivals(TimeNs until_ns, bool stale);

  const SharedRun& shared_;
  const int worker_index_;
  const int connection_count_;
  std::optional<std::uint64_t> quota_left_;  // recorded requests still to start (-n)
  std::uint64_t claims_held_ = 0;            // connections holding a claim_request() reservation
  std::unique_ptr<io::Engine> engine_;          // the I/O mechanism (io/engine.h)
  std::unique_ptr<proto::H2Memory> h2_memory_;  // outlives the connections' HTTP/2 sessions
  proto::KnownHead known_head_;              // HTTP/1.1: the response head its parsers match without llhttp
  std::vector<std::unique_ptr<Connection>> connections_;
  std::vector<Connection*> backoff_;         // min-heap on reconnect_at_ns; capacity reserved
  InFlightList in_flight_;                   // request slots, oldest send first: its head is the next timeout
  ConnectList connecting_;                   // oldest first: its head is the next connect timeout
  std::string connect_timeout_reason_;       // the first-error text of a connect timeout (built by prepare)
  HandshakeList handshaking_;                // oldest first: its head is the next handshake timeout
  UnreadList unread_;                        // connections with bytes left unread by the read budget
  std::uint64_t wake_count_ = 0;             // wake-ups so far (read budgets are per wake-up)
  TimeNs wake_ns_ = 0;                       // when this wake-up began
  bool wake_reads_spent_ = false;            // this wake-up's reading time is used up
  net::TlsSessionCache tls_sessions_;        // https: the session new connections resume
  std::unique_ptr<quic::Tickets> quic_tickets_;  // --http3: the ticket new connections resume
  std::unique_ptr<net::DatagramReader> datagrams_;  // --http3: recvmmsg slots
  bool udp_gso_ = true;                      // --http3: the kernel takes UDP GSO trains (until it refuses one)
  // --http3: no QUIC timer of an open or handshaking connection is due before this
  // (a lower bound: set by quic_timers' walk, lowered wherever a connection's QUIC
  // state changes, i.e. after reading and after writing; see note_quic_timer).
  TimeNs quic_due_ns_ = std::numeric_limits<TimeNs>::max();
  UniqueFd adopted_fd_;                      // see adopt_first_connection
  TimeNs adopted_connect_ns_ = 0;
  net::TlsStream adopted_tls_;
  TimeNs adopted_handshake_ns_ = 0;
  TimeNs now_ = 0;                           // read at each wake-up and each send
  TimeNs arrived_ns_ = 0;                    // when the kernel received the bytes being parsed
  bool stamps_seen_ = false;                 // the kernel stamps this worker's reads
  int open_connections_ = 0;                 // in State::kOpen
  TimeNs idle_since_ns_ = 0;                 // when open_connections_ last fell to 0 (the start at first)
  int last_events_ = 0;                      // events the last wait returned
  TimeNs coalesce_ns_ = 0;                   // the closed loop's pause before a wait; 0: none
  TimeNs window_latency_ns_ = 0;             // latencies recorded since the last rate sample, summed
  TimeNs service_ns_sum_ = 0;                // open model: every recorded service time, summed
  TimeNs service_ns_at_interval_start_ = 0;
  bool draining_ = false;                    // past end_ns: no new requests, finish in-flight ones
  TimeNs next_sample_ns_ = 0;
  std::uint64_t responses_at_sample_ = 0;
  // Open model.
  std::optional<load::ArrivalSchedule> schedule_;
  TimeNs next_arrival_ns_ = std::numeric_limits<TimeNs>::max();  // absolute; max: none (closed loop, or ended)
  TimeRing backlog_;
  IdleList idle_;
  WorkerResult result_;
  // Targets (worker_targets.cc): which request each slot sends next.
  targets::TargetPicker picker_;
  // Scripts (-s): null without a script. address_: where connections go (thread.addr).
  std::unique_ptr<WorkerScript> script_;
  net::Address address_;
  // Scenarios (--scenario): null without one.
  std::unique_ptr<scenario::Users> users_;
  std::unique_ptr<scenario::Port> scenario_port_;
  // Intervals (optional).
  std::unique_ptr<IntervalRing> intervals_;
  IntervalSnapshot* filling_ = nullptr;      // the ring slot the current interval records into
  stats::Counters at_interval_start_;
  stats::ScenarioErrorCounts scenario_errors_at_interval_start_;  // --scenario
  TimeNs next_interval_ns_ = std::numeric_limits<TimeNs>::max();
  std::atomic<bool> done_{false};
};

}  // namespace pacer::engine
