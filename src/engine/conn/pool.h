// A worker's connections and their life cycle: non-blocking TCP connects
// registered with the I/O engine (QUIC's start is the transport's), connects not
// done within --timeout (a list in start order, so its head is the next expiry),
// failures with exponential backoff (a min-heap on the reconnect time), close and
// reopen, the start-up probe's socket adopted as the first connection, the count
// of open connections and the give-up rule's share (engine/give_up.h). Past the
// connections prepare() made, add() makes more during the run, each to another
// origin's address with its own TLS (a scenario user's, conn/route.h's OriginRoute).
//
// Whether a connection is worth opening is the load driver's question and what
// an open or closing connection means to the requests is the exchange's: the
// pool asks and tells them through PoolEvents (conn/links.h). A connection that
// will send nothing more (the end of the run, -n reached) stays closed, so the
// server sees no connection that carries no request. One worker thread.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/unique_fd.h"
#include "engine/conn/links.h"
#include "engine/conn/session_factory.h"
#include "engine/conn/start_gate.h"
#include "engine/conn/transport.h"
#include "engine/loop/clock.h"
#include "engine/record/recorder.h"
#include "engine/run_plan.h"
#include "io/engine.h"
#include "net/address.h"
#include "net/tls_stream.h"

namespace pacer::engine {

class Exchange;

class ConnectionPool {
 public:
  ConnectionPool(const SharedRun& shared, int worker_index, Transport& transport, LoopClock& clock,
                 Recorder& recorder);

  // Before the run: `count` connections (each with its session, reporting its
  // session's events to `exchange`) to `address` over `engine`; where the pool's
  // questions go.
  void prepare(io::Engine& engine, int count, const net::Address& address, SessionFactory& sessions,
               Exchange* exchange, PoolEvents& events);
  // How the loop's start opens the connections.
  enum class Opening {
    kOnDemand,     // the driver opens each when it needs it (scenario users)
    kEach,         // every connection connects and sends once it opens (the open model)
    kTogether,     // every connection connects; they send together (the closed model: start_gate.h)
  };
  void start(TimeNs now_ns, Opening opening);
  // The start-up probe's connected socket (and, https, its established stream):
  // the first connection opened uses it instead of connecting. Before the run.
  void adopt(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls, TimeNs handshake_ns);

  // During the run: a connection more, to another origin than the run's (a
  // scenario user's, drive/origin_links.h), with its session made for that
  // origin (redirects follow within wire_target's origin). Its index is the
  // next one; route must outlive it. It opens when open() is called.
  Connection& add(const OriginRoute& route, const Target& wire_target);
  // c's route when it goes to another origin (add); null: the run's address.
  const OriginRoute* route_of(const Connection& c) const {
    const auto i = static_cast<std::size_t>(c.index);
    return i < base_count_ ? nullptr : routes_[i - base_count_];
  }

  // Connects c (the adopted socket first), unless the driver wants no more.
  void open(Connection& c);
  // The engine's report that c's connect finished (err: its error, 0 if none).
  void on_connected(Connection& c, int err);
  // c is up (TCP, and the handshake if any): it opens.
  void established(Connection& c);
  // c's set-up failed (counted): close it and connect again after a growing backoff.
  void retry_later(Connection& c);
  void reopen(Connection& c);
  void close(Connection& c);
  // The run ended: every connection closes, the engine's teardown runs (on this
  // thread, counted as the run's: io/engine.h), then their memory goes, the
  // sessions' with it, so that the report's merge of the histograms
  // (engine/collect.cc) reuses it rather than adding to the run's peak RSS
  // (0.55 MB of chunks at -c10000). all() is empty after: nothing reads them.
  void close_all();
  // Connects past --timeout fail; reconnects whose backoff is over start; the
  // start's hold ends when due.
  void expire_connects();
  void run_reconnects();
  TimeNs next_due_ns() const;
  // The give-up rule: true once no connection of the run has been open for --give-up.
  bool gives_up();

  int open_count() const { return open_count_; }
  // c is open but waits for the others to start together (start_gate.h): it sends nothing yet.
  bool held(const Connection& c) const { return gate_.holds(c); }
  Connection& at(int index) { return *connections_[static_cast<std::size_t>(index)]; }
  std::span<const std::unique_ptr<Connection>> all() const { return connections_; }

 private:
  void start_connect(Connection& c);
  // Opens c's socket and connects it: true while the connect is in progress
  // (false: it finished at once, on_connected or connect_failed ran).
  bool dial(Connection& c);
  // While the start gate holds: connects it judges stalled are dialled again.
  void redial_stalled();
  void open_adopted(Connection& c);
  // A connect failed (err's text, with `what`, may become the first error).
  void connect_failed(Connection& c, int err, const char* what = "connect");
  // --bind: the next source address, round-robin (null: none given).
  const net::Address* next_source();
  // The adopted probe connection's tunnel set-up goes to the tunnel histogram.
  void note_adopted_tunnel();
  // Connection `finished_index` finished a connect (opened or failed; -1: none):
  // the start gate opens if its hold is over.
  void open_gate_when_due(int finished_index);

  const SharedRun& shared_;
  const int worker_index_;
  io::Engine* engine_ = nullptr;
  Transport& transport_;
  LoopClock& clock_;
  Recorder& recorder_;
  PoolEvents* events_ = nullptr;
  SessionFactory* sessions_ = nullptr;  // add()'s sessions
  Exchange* exchange_ = nullptr;        // add()'s connections' events
  net::Address address_;
  const ConnectRoute* route_ = nullptr;  // --bind, the proxy's tunnel (shared, read-only)
  std::size_t next_bind_ = 0;            // index of the next --bind address
  std::vector<std::unique_ptr<Connection>> connections_;
  std::size_t base_count_ = 0;                // prepare()'s; those after it are add()'s
  std::vector<const OriginRoute*> routes_;    // add()'s connections' routes, by index - base_count_
  std::vector<Connection*> backoff_;  // min-heap on reconnect_at_ns; capacity reserved
  ConnectList connecting_;            // oldest first: its head is the next connect timeout
  // Which connections have opened once, and how many: when all of them have (with
  // open_all), the recorder hears that the connect burst is over.
  std::vector<bool> opened_once_;
  std::size_t opened_once_count_ = 0;
  bool open_all_ = false;
  StartGate gate_;
  std::string connect_timeout_reason_;  // the first-error text of a connect timeout (built by prepare)
  int open_count_ = 0;                // in State::kOpen
  TimeNs idle_since_ns_ = 0;          // when open_count_ last fell to 0 (the start at first)
  UniqueFd adopted_fd_;
  TimeNs adopted_connect_ns_ = 0;
  net::TlsStream adopted_tls_;
  TimeNs adopted_handshake_ns_ = 0;
};

}  // namespace pacer::engine
