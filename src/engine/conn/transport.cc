// The transport's stream side (TCP and TLS) and its handshake list. QUIC's side
// is conn/quic_link.cc. See transport.h.
#include "engine/conn/transport.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>

#include "proto/alpn.h"
#include "proxy/connect_tunnel.h"

namespace pacer::engine {

namespace {

Transport::Kind kind_of(const SharedRun& shared) {
  if (shared.http3 != nullptr) return Transport::Kind::kQuic;
  return shared.tls != nullptr ? Transport::Kind::kTls : Transport::Kind::kTcp;
}

}  // namespace

Transport::Transport(const SharedRun& shared, LoopClock& clock, Recorder& recorder, ReadBudget& budget)
    : shared_(shared), clock_(clock), recorder_(recorder), budget_(budget), kind_(kind_of(shared)) {}

void Transport::prepare(io::Engine& engine, LinkEvents& events, WireTap& tap) {
  tap_ = &tap;
  engine_ = &engine;
  events_ = &events;
  if (kind_ == Kind::kQuic) {
    datagrams_ = std::make_unique<net::DatagramReader>();
    quic_tickets_ = shared_.http3->tickets();
  }
}

void Transport::connected(Connection& c, const OriginRoute* route) {
  if (route != nullptr) {  // another origin's: no proxy, its own TLS (if https)
    if (route->tls != nullptr) {
      start_handshake(c, *route->tls, route->tls_sessions);
    } else {
      events_->established(c);
    }
    return;
  }
  if (shared_.route != nullptr && shared_.route->tunnels()) {
    start_tunnel(c);
    return;
  }
  if (kind_ == Kind::kTls) {
    start_handshake(c, *shared_.tls, &tls_sessions_);
    return;
  }
  events_->established(c);
}

void Transport::handshake_io(Connection& c, std::uint32_t flags) {
  if (kind_ != Kind::kQuic) {
    if (c.in_tunnel) {
      continue_tunnel(c);
    } else {
      continue_handshake(c);
    }
    return;
  }
  if ((flags & (io::kReadable | io::kPeerClosing)) != 0) (void)quic_read(c);  // it finishes the handshake itself
  if (c.state == Connection::State::kHandshaking && c.write_blocked && (flags & io::kWritable) != 0) {
    (void)quic_flush(c);
  }
}

bool Transport::read(Connection& c, std::uint32_t events) {
  // Read budgets (conn/read_budget.h): a server sending faster than pacer parses
  // must not keep the loop from its timers.
  if (budget_.had_its_share(c, events)) return false;
  if (kind_ == Kind::kQuic) return quic_read(c);
  return read_stream(c, events);
}

bool Transport::read_stream(Connection& c, std::uint32_t events) {
  const bool peer_closing = (events & io::kPeerClosing) != 0;
  std::size_t budget = ReadBudget::kBytesPerConnection;
  while (true) {
    if (budget == 0 || budget_.spent()) {
      budget_.defer(c, events);
      return true;
    }
    const io::Received got = engine_->read(c, c.tls);
    const net::IoResult& r = got.io;
    if (r.status == net::IoStatus::kOk) {
      // Responses completed by these bytes end when the kernel received them
      // (without a stamp: at this wake-up).
      clock_.note_arrival(got.stamp);
      const std::size_t n = r.bytes;
      recorder_.bytes_read(clock_.now, n);
      tap_->bytes_read(c, got.data, n);  // --log-requests, --trace
      if (!c.session->receive(got.data, n, c)) {
        recorder_.connections().note_error(0, c.session->error_reason());
        if (c.in_flight_count() == 0) recorder_.count(&stats::ErrorCounts::parse, clock_.now);
        events_->broke(c, &stats::ErrorCounts::parse);
        return false;
      }
      // A drained socket: the next byte brings a new event. Keep reading only
      // when the peer is closing (to see EOF).
      if (!peer_closing && got.drained) return true;
      // More to read: within this connection's share and the wake-up's time?
      budget -= std::min(budget, n);
      budget_.check_slice();
    } else if (r.status == net::IoStatus::kClosed) {
      clock_.arrived_ns = clock_.now;  // a body delimited by the close ends here
      // What the close ends (a close-delimited body) and means for the requests
      // still in flight (a failure, or sent again) is the exchange's.
      events_->peer_closed(c);
      return false;
    } else if (r.status == net::IoStatus::kWantRead || r.status == net::IoStatus::kWantWrite) {
      return true;
    } else {
      io_failed(c, r, "read", &stats::ErrorCounts::read);
      return false;
    }
  }
}

bool Transport::flush(Connection& c) {
  if (kind_ == Kind::kQuic) return quic_flush(c);  // datagrams, batched (quic_link.cc)
  while (true) {
    const std::span<const char> out = c.session->pending_output();
    if (out.empty()) {
      c.write_blocked = false;
      return true;
    }
    const net::IoResult w = engine_->write(c, c.tls, out);
    if (w.status == net::IoStatus::kOk && w.bytes > 0) {
      c.session->consume(w.bytes);
      recorder_.bytes_written(clock_.now, w.bytes);
      tap_->bytes_written(c, out.data(), w.bytes);  // --log-requests, --trace
    } else if (w.status == net::IoStatus::kWantWrite || w.status == net::IoStatus::kWantRead) {
      // The engine's next event resumes the write (kWritable; any event for TLS's rare want-read).
      c.write_blocked = true;
      return true;
    } else {
      io_failed(c, w, "write", &stats::ErrorCounts::write);
      return false;
    }
  }
}

void Transport::io_failed(Connection& c, const net::IoResult& r, const char* what, ErrorField error) {
  if (r.status == net::IoStatus::kTlsError) {
    recorder_.connections().note_tls_failure(clock_.now, nullptr, c.tls);
    events_->broke(c, &stats::ErrorCounts::tls);
    return;
  }
  if (c.in_flight_count() > 0) recorder_.connections().note_error(r.err != 0 ? r.err : EPIPE, what);
  events_->broke(c, error);
}

void Transport::close(Connection& c) {
  handshaking_.remove(c);
  c.in_tunnel = false;
  c.tls.close();
  if (kind_ == Kind::kQuic) quic_close(c);
}

void Transport::run_timers(std::span<const std::unique_ptr<Connection>> connections) {
  while (!handshaking_.empty() && handshaking_.front()->handshake_start_ns + shared_.options.connect.timeout_ns <= clock_.now) {
    if (handshaking_.front()->in_tunnel) {
      tunnel_failed(*handshaking_.front(), "proxy: no answer to CONNECT within --timeout");
      continue;
    }
    handshake_failed(*handshaking_.front(), kind_ == Kind::kQuic
                                                ? "QUIC handshake timed out (--timeout): no answer over UDP"
                                                : "TLS handshake timed out (--timeout)");
  }
  if (kind_ == Kind::kQuic) quic_timers(connections);
}

TimeNs Transport::next_due_ns() const {
  const TimeNs handshake = handshaking_.empty() ? kNeverNs
                                                : handshaking_.front()->handshake_start_ns + shared_.options.connect.timeout_ns;
  return std::min(handshake, quic_due_ns_);
}

// ---- A proxy's CONNECT tunnel (issue 33): after TCP connects to the proxy, the
// CONNECT request goes out and its answer is read one non-blocking step per
// socket edge (proxy/connect_tunnel.h), on the handshake list (so --timeout
// holds). Its time (TCP connected -> 2xx read) goes to the tunnel histogram;
// then TLS starts inside it (https://) or the connection opens. A refusal or a
// broken answer counts a `proxy` error and retries after the backoff.

void Transport::start_tunnel(Connection& c) {
  c.state = Connection::State::kHandshaking;
  c.in_tunnel = true;
  c.tunnel_sent = 0;
  c.handshake_start_ns = monotonic_now_ns();
  handshaking_.push_back(c);
  continue_tunnel(c);
}

void Transport::continue_tunnel(Connection& c) {
  const proxy::TunnelProgress p = proxy::tunnel_step(c.fd, shared_.route->tunnel_request, c.tunnel_sent);
  switch (p.status) {
    case proxy::TunnelStatus::kWantRead:
    case proxy::TunnelStatus::kWantWrite: return;  // registered for both edges: the next one resumes
    case proxy::TunnelStatus::kRefused: {
      std::array<char, 256> text{};
      tunnel_failed(c, proxy::describe_refusal(p.http_status, text.data(), text.size()));
      return;
    }
    case proxy::TunnelStatus::kFailed:
      if (p.err == 0) {
        tunnel_failed(c, "proxy: closed the connection before answering CONNECT");
      } else if (p.err == EPROTO) {
        tunnel_failed(c, "proxy: its answer to CONNECT is not an HTTP/1.x response");
      } else if (p.err == EMSGSIZE) {
        tunnel_failed(c, "proxy: its answer to CONNECT has a head longer than 8 KiB, the most pacer reads");
      } else {
        tunnel_failed(c, "proxy: CONNECT", p.err);
      }
      return;
    case proxy::TunnelStatus::kOpen: break;
  }
  handshaking_.remove(c);
  c.in_tunnel = false;
  recorder_.connections().tunneled(clock_.now, monotonic_now_ns() - c.handshake_start_ns);
  if (kind_ == Kind::kTls) {
    start_handshake(c, *shared_.tls, &tls_sessions_);
    return;
  }
  events_->established(c);
}

void Transport::tunnel_failed(Connection& c, const char* reason, int err) {
  recorder_.count(&stats::ErrorCounts::proxy, clock_.now);
  recorder_.connections().note_error(err, reason);
  events_->retry_later(c);
}

// ---- TLS: after TCP connects, the handshake runs one non-blocking step per
// socket edge; its time (TCP connected -> handshake done) goes to its own
// histogram next to the connect time. A failure or a handshake not done within
// --timeout counts a `tls` error, keeps the first reason (in a fixed buffer: no
// allocation), and retries after a backoff, like a failed connect.

void Transport::start_handshake(Connection& c, const net::TlsContext& context, net::TlsSessionCache* sessions) {
  if (!c.tls.start_client(context, c.fd, shared_.options.connect.tls_resume ? sessions : nullptr)) {
    handshake_failed(c, "cannot create a TLS connection (out of memory)");
    return;
  }
  c.state = Connection::State::kHandshaking;
  c.handshake_start_ns = monotonic_now_ns();  // fresh, like the end: see continue_handshake
  handshaking_.push_back(c);
  continue_handshake(c);
}

void Transport::continue_handshake(Connection& c) {
  switch (c.tls.handshake()) {
    case net::IoStatus::kOk: break;
    case net::IoStatus::kWantRead:
    case net::IoStatus::kWantWrite: return;  // registered for both edges: the next one resumes
    default:
      handshake_failed(c, nullptr);
      return;
  }
  handshaking_.remove(c);
  // --http2 over TLS: a server that does not choose h2 fails the handshake.
  if (const std::string_view mismatch = proto::alpn_mismatch(shared_.http2_request != nullptr, c.tls.alpn());
      !mismatch.empty()) {
    handshake_failed(c, mismatch.data());
    return;
  }
  // A fresh clock read (once per connection, not per request): a handshake can
  // finish inside the step that began it, when the loop's clock is stale.
  recorder_.connections().handshaken(clock_.now, monotonic_now_ns() - c.handshake_start_ns, c.tls.resumed());
  events_->established(c);
}

void Transport::handshake_failed(Connection& c, const char* reason) {
  recorder_.count(&stats::ErrorCounts::tls, clock_.now);
  recorder_.connections().note_tls_failure(clock_.now, reason, c.tls);
  events_->retry_later(c);
}

}  // namespace pacer::engine
