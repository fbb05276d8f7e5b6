// One client connection of a worker and its request slots. A connection carries
// up to `slots.size()` requests at once (the HTTP/1.1 pipeline depth or the
// HTTP/2 stream count; 1 is the classic one-request-at-a-time connection); each
// slot has its own schedule and send times and its own timeout. The protocol is
// behind `session` (proto::Session); the connection is that session's event sink.
// Owned by one Worker and touched only by that worker's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "core/clock.h"
#include "engine/conn/connection_list.h"
#include "engine/conn/part_fields.h"
#include "engine/conn/slot_storage.h"
#include "io/engine.h"
#include "net/tls_stream.h"
#include "proto/http1_session.h"
#include "quic/module.h"
#include "proto/session.h"

namespace pacer::engine {

class Exchange;
struct Connection;

// RequestSlot::free_ns: the next request's latency clock starts at its send.
inline constexpr TimeNs kAtSend = std::numeric_limits<TimeNs>::max();

// One request's place on a connection. Its index is the session token.
struct RequestSlot {
  Connection* connection = nullptr;
  std::uint32_t token = 0;
  bool in_use = false;          // a request is in flight in this slot
  bool has_free_time = false;   // free_ns is meaningful
  // Closed loop: the t_sched of the slot's next request. kAtSend after a response
  // (the next request's clock starts when it is sent); the failure time after an
  // error (reconnecting counts); the original t_sched for a request sent again.
  TimeNs free_ns = 0;
  TimeNs t_sched = 0;           // of the request in flight
  TimeNs t_send = 0;
  std::uint32_t target = 0;     // the request in flight: its index in the run's request set
  std::uint32_t name = 0;       // ...and its name (stats::NameId)
  TimeNs t_first = 0;           // the first response byte's arrival (0: none yet); time to first byte
  ListHook<RequestSlot> in_flight;  // on the worker's in-flight list (send order)
};

// The connection is its socket's io::Channel (fd and the engine's state). Its
// members are ordered to leave no padding: there is one per connection (296 bytes,
// -c10000 holds 10,000; tests/engine/containers_test.cc checks the size).
struct Connection final : proto::SessionEvents, io::Channel {
  enum class State : std::uint8_t {
    kClosed,      // no socket (between close and reconnect)
    kBackoff,     // waiting to reconnect after a connect failure
    kConnecting,  // non-blocking connect in progress
    kHandshaking, // https: TCP connected, TLS handshake in progress
    kOpen,        // connected: requests can be sent
  };

  // slot_count >= 1. The session is set by the worker before the connection is used.
  Connection(Exchange* exchange, std::uint32_t slot_count);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // proto::SessionEvents: forwarded to the exchange.
  void on_response(std::uint32_t token, int status) override;
  void on_request_failed(std::uint32_t token, proto::RequestFailure why) override;
  void on_batch_response(std::uint32_t token, int status) override;
  void on_first_byte(std::uint32_t token) override;
  void on_redirect(std::uint32_t token) override;
  void on_decoded(std::uint32_t token, std::uint64_t bytes) override;
  void on_header(std::uint32_t token, std::string_view name, std::string_view value) override;

  Exchange* exchange;               // where the session's events go (exchange/exchange.h)
  std::unique_ptr<proto::Session> session;
  SlotArray<RequestSlot> slots;     // in place for one slot (engine/conn/slot_storage.h)
  TokenStack free_tokens;           // a stack of free slot indexes
  proto::Http1Session* http1 = nullptr;  // scripts: the session, when it is HTTP/1.1 (set with it)
  quic::DatagramSession* http3 = nullptr;  // --http3: the session (a UDP socket and QUIC state); see conn/quic_link.cc
  net::TlsStream tls;               // active only for https:// (reads and writes go through net/transport.h)
  State state = State::kClosed;
  bool write_blocked = false;       // output waits for the engine's kWritable
  QuotaClaim claim;                 // Quota's (drive/driver.h): conn/part_fields.h
  bool in_tunnel = false;           // kHandshaking through a proxy: CONNECT not yet answered (conn/transport.cc)
  int connect_failures = 0;         // consecutive; drives the backoff
  ExchangeCounts exchanged;         // the exchange's (exchange/): conn/part_fields.h
  int index = 0;                    // in the worker's connection list
  std::uint32_t tunnel_sent = 0;    // in_tunnel: bytes of the CONNECT request written
  TimeNs connect_start_ns = 0;     // kConnecting: when connect() was called
  TimeNs reconnect_at_ns = 0;       // kBackoff: when to try again
  TimeNs handshake_start_ns = 0;    // kHandshaking: when TCP connected
  TimeNs established_ns = 0;        // kOpen: when it opened (it may wait to send: conn/start_gate.h)
  ListHook<Connection> connecting;  // on the worker's list of pending TCP connects (start order)
  ListHook<Connection> handshaking; // https: on the worker's handshake list (start order)
  // Reads past the per-wake-up budget: the ReadBudget's mark (conn/read_budget.h,
  // conn/part_fields.h), the connection's place on the worker's unread list.
  UnreadMark unread;

  std::uint32_t in_flight_count() const { return static_cast<std::uint32_t>(slots.size() - free_tokens.size()); }
};

using InFlightList = IntrusiveList<RequestSlot, &RequestSlot::in_flight>;
using ConnectList = IntrusiveList<Connection, &Connection::connecting>;
using HandshakeList = IntrusiveList<Connection, &Connection::handshaking>;
using UnreadList = IntrusiveList<Connection, &Connection::unread>;

}  // namespace pacer::engine
