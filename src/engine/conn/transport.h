// A connection's transport, chosen once per run (as wrk sets its sock functions
// once): plain TCP, TLS over TCP (https://) or QUIC over UDP (--http3). It owns
// what is below the session: the TLS handshake (one non-blocking step per socket
// edge), QUIC's UDP socket, datagrams and timers, the handshake list (oldest
// first, so its head is the next handshake to pass --timeout), and moving bytes
// between the engine and the session within the wake-up's read budget.
//
// Through a proxy's tunnel (issue 33), a CONNECT stage comes before TLS (or
// before the open connection, for plain bytes): a refusal is a `proxy` error.
//
// Its reports go to LinkEvents (conn/links.h): established, retry_later (a
// handshake failed: counted as `tls`, or `connect`/`quic` for QUIC), broke (an
// I/O failure with requests in flight) and reopen (the peer closed an idle
// connection). A read or flush that returns false has already reported: the
// connection may be closed or reconnecting, and the caller touches it no more.
//
// Errors (QUIC): a handshake that fails (certificate, alert) is `tls`; a
// connection the server closes with an error, or that fails locally, is `quic`
// for each request in flight (one if none was); an idle timeout, or the server's
// close with NO_ERROR, with nothing in flight reopens quietly. A datagram refused
// (ICMP unreachable) is `connect` before the handshake and `read` after.
// One worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "core/clock.h"
#include "engine/conn/links.h"
#include "engine/record/wire_tap.h"
#include "engine/loop/clock.h"
#include "engine/conn/read_budget.h"
#include "engine/conn/route.h"
#include "engine/record/recorder.h"
#include "engine/run_plan.h"
#include "io/engine.h"
#include "net/tls_context.h"
#include "net/udp_io.h"

namespace pacer::engine {

class Transport {
 public:
  enum class Kind : std::uint8_t { kTcp, kTls, kQuic };

  Transport(const SharedRun& shared, LoopClock& clock, Recorder& recorder, ReadBudget& budget);

  // Before the run: the worker's I/O engine, where reports go, and the tap
  // given each connection's bytes (--log-requests, --trace); QUIC's datagram
  // slots and ticket store.
  void prepare(io::Engine& engine, LinkEvents& events, WireTap& tap);
  Kind kind() const { return kind_; }
  // How the engine handles c's socket: TLS and QUIC move their own bytes.
  // A proxy's tunnel is read on readiness too (its answer is peeked, then taken).
  // route: another origin's (a scenario user's, conn/route.h), which has TLS
  // when it is https whatever the run's scheme, and no proxy; null: the run's.
  io::Mode mode(const OriginRoute* route = nullptr) const {
    if (route != nullptr) return route->tls != nullptr ? io::Mode::kReadiness : io::Mode::kStream;
    const bool tunnels = shared_.route != nullptr && shared_.route->tunnels();
    return kind_ == Kind::kTcp && !tunnels ? io::Mode::kStream : io::Mode::kReadiness;
  }

  // kQuic: opens c's UDP socket to `remote` (registered with the engine) and
  // starts the handshake; a failure is reported (retry_later).
  // source: --bind's next address (null: none).
  void start_quic(Connection& c, const net::Address& remote, const net::Address* source);
  // TCP connected: kTcp is established; kTls starts its handshake (route: another
  // origin's, whose own TLS decides; null: the run's).
  void connected(Connection& c, const OriginRoute* route = nullptr);
  // An engine event on a connection in its handshake.
  void handshake_io(Connection& c, std::uint32_t flags);
  // Reads what c received and feeds its session, within the read budget (more
  // left: c waits on the budget's unread list). True: c is open and may send.
  [[nodiscard]] bool read(Connection& c, std::uint32_t events);
  // Writes c's pending output. False: c failed (reported) and is no longer usable.
  [[nodiscard]] bool flush(Connection& c);
  // c is closing: TLS state dropped, QUIC's CONNECTION_CLOSE sent, off the handshake list.
  void close(Connection& c);
  // Handshakes past --timeout fail; QUIC timers that are due run.
  void run_timers(std::span<const std::unique_ptr<Connection>> connections);
  TimeNs next_due_ns() const;

 private:
  [[nodiscard]] bool read_stream(Connection& c, std::uint32_t events);
  // Through a proxy's tunnel: CONNECT, then TLS or the open connection.
  void start_tunnel(Connection& c);
  void continue_tunnel(Connection& c);
  void tunnel_failed(Connection& c, const char* reason, int err = 0);  // err: its strerror is appended
  void start_handshake(Connection& c, const net::TlsContext& context, net::TlsSessionCache* sessions);
  void continue_handshake(Connection& c);
  void handshake_failed(Connection& c, const char* reason);  // reason null: ask the TLS stream
  void io_failed(Connection& c, const net::IoResult& r, const char* what, ErrorField error);
  // QUIC (conn/quic_link.cc).
  [[nodiscard]] bool quic_read(Connection& c);
  void quic_handshake_done(Connection& c);
  [[nodiscard]] bool quic_flush(Connection& c);
  void quic_socket_failed(Connection& c, int err, const char* what);
  void quic_ended(Connection& c);
  void quic_timers(std::span<const std::unique_ptr<Connection>> connections);
  void note_quic_timer(const Connection& c);
  void quic_close(Connection& c);

  const SharedRun& shared_;
  io::Engine* engine_ = nullptr;
  LoopClock& clock_;
  Recorder& recorder_;
  ReadBudget& budget_;
  LinkEvents* events_ = nullptr;
  WireTap* tap_ = nullptr;
  Kind kind_;
  HandshakeList handshaking_;                // oldest first: its head is the next handshake timeout
  net::TlsSessionCache tls_sessions_;        // https: the session new connections resume
  std::unique_ptr<quic::Tickets> quic_tickets_;     // --http3: the ticket new connections resume
  std::unique_ptr<net::DatagramReader> datagrams_;  // --http3: recvmmsg slots
  bool udp_gso_ = true;                      // --http3: the kernel takes UDP GSO trains (until it refuses one)
  // --http3: no QUIC timer of an open or handshaking connection is due before
  // this (a lower bound: set by quic_timers' walk, lowered wherever a
  // connection's QUIC state changes, i.e. after reading and after writing).
  TimeNs quic_due_ns_ = kNeverNs;
};

}  // namespace pacer::engine
