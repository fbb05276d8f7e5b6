// The transport's QUIC side (--http3): a connection is a connected UDP socket
// plus an HTTP/3 session (nghttp3 over a QUIC connection, in memory). The
// transport moves datagrams: recvmmsg into its DatagramReader, each datagram fed
// to the session with its kernel receive stamp (a response ends at the stamp of
// the datagram that completed it); the session's packets out with sendmmsg/GSO.
// QUIC's timers are the session's next_timer_ns()/on_timer(), folded into the
// wake time through quic_due_ns_, a lower bound of them all: a connection's timer
// moves only when it reads or writes packets (or runs a timer), and each of those
// lowers the bound, so the connections are walked only when one may be due. The
// handshake runs in kHandshaking on the handshake list (so --timeout bounds it);
// its time goes to the TLS handshake histogram. See transport.h for the errors.
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "engine/conn/transport.h"
#include "net/udp_io.h"

namespace pacer::engine {

namespace {

// Datagrams one connection reads per wake-up before yielding (conn/read_budget.h).
constexpr int kDatagramsPerWake = 4 * static_cast<int>(net::DatagramReader::kSlots);

}  // namespace

void Transport::start_quic(Connection& c, const net::Address& remote, const net::Address* source) {
  c.connect_start_ns = clock_.now;
  quic::SessionSetup setup;
  setup.tls = shared_.quic_tls;
  setup.tickets = shared_.options.connect.tls_resume ? quic_tickets_.get() : nullptr;
  setup.remote = remote;
  setup.idle_timeout_ns = std::max<TimeNs>(30 * kNsPerS, 2 * shared_.options.connect.timeout_ns);
  const int fd = net::open_udp_socket(remote, setup.local, source);
  if (fd < 0) {
    const int err = errno;
    const bool no_port = err == EADDRNOTAVAIL && shared_.route != nullptr;
    recorder_.count(no_port ? &stats::ErrorCounts::ports : &stats::ErrorCounts::connect, clock_.now);
    recorder_.connections().note_error(no_port ? 0 : err,
                                       no_port ? shared_.route->ports_exhausted.c_str() : "connect (UDP)");
    events_->retry_later(c);
    return;
  }
  // Connected: UDP has no handshake of its own.
  if (!engine_->attach(c, fd, mode(), true)) {
    recorder_.count(&stats::ErrorCounts::connect, clock_.now);
    recorder_.connections().note_error(errno, "connect");
    events_->retry_later(c);  // closes fd with c (the engine's close)
    return;
  }
  if (!c.http3->start(setup, clock_.now)) {
    handshake_failed(c, c.http3->error_reason());
    return;
  }
  c.state = Connection::State::kHandshaking;
  c.handshake_start_ns = monotonic_now_ns();
  handshaking_.push_back(c);
  (void)quic_flush(c);  // the Initial packet
}

bool Transport::quic_read(Connection& c) {
  for (int read = 0;;) {
    if (read >= kDatagramsPerWake || budget_.spent()) {
      budget_.defer(c, io::kReadable);  // the rest after the timers; what was read is answered below
      break;
    }
    const int n = datagrams_->receive(c.fd);
    if (n < 0) {
      quic_socket_failed(c, -n, "read");
      return false;
    }
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (datagrams_->truncated(k)) continue;  // larger than our max_udp_payload_size: not QUIC we asked for
      clock_.note_arrival(datagrams_->stamp(k));
      tap_->datagram_read(c, datagrams_->length(k));  // --log-requests: before the response it may complete
      const bool alive = c.http3->receive_datagram(datagrams_->data(k), datagrams_->length(k), clock_.now, c);
      // Only what reached the connection is read: ngtcp2 drops datagrams of other
      // connection IDs, garbage and stale keys (a hostile peer's flood is not traffic).
      if (c.http3->last_datagram_accepted()) {
        recorder_.bytes_read(clock_.now, datagrams_->length(k));
      } else {
        tap_->datagram_dropped(c, datagrams_->length(k));
      }
      if (!alive) {
        quic_ended(c);
        return false;
      }
    }
    read += n;
    if (n < static_cast<int>(net::DatagramReader::kSlots)) break;
    budget_.check_slice();
  }
  note_quic_timer(c);  // received packets set the ACK timer
  if (c.state == Connection::State::kHandshaking) {
    if (c.http3->handshake_completed()) {
      quic_handshake_done(c);
    } else {
      (void)quic_flush(c);
    }
    return false;
  }
  return true;
}

void Transport::quic_handshake_done(Connection& c) {
  handshaking_.remove(c);
  recorder_.connections().connected(clock_.now, -1);
  recorder_.connections().handshaken(clock_.now, monotonic_now_ns() - c.handshake_start_ns, c.http3->resumed());
  events_->established(c);  // the session binds its control streams (reset) and the slots send
}

bool Transport::quic_flush(Connection& c) {
  net::PacketBatch& out = c.http3->datagrams();
  for (int rounds = 0; rounds < 64; ++rounds) {
    if (!c.http3->fill_datagrams(clock_.now) && out.empty()) {
      quic_ended(c);
      return false;
    }
    note_quic_timer(c);  // packets written set the loss-recovery and pacing timers
    if (out.empty()) {
      c.write_blocked = false;
      return true;
    }
    const std::size_t pending = out.pending_bytes();
    const net::SendStatus sent = net::send_packets(c.fd, out, udp_gso_);
    recorder_.bytes_written(clock_.now, pending - out.pending_bytes());
    tap_->datagrams_written(c, pending - out.pending_bytes());  // --log-requests
    switch (sent) {
      case net::SendStatus::kAllSent: break;
      case net::SendStatus::kBlocked:
        c.write_blocked = true;  // the engine's kWritable resumes
        return true;
      case net::SendStatus::kError:
        quic_socket_failed(c, errno, "write");
        return false;
    }
  }
  c.write_blocked = false;
  return true;
}

void Transport::quic_socket_failed(Connection& c, int err, const char* what) {
  if (c.state == Connection::State::kHandshaking) {
    handshaking_.remove(c);
    recorder_.count(&stats::ErrorCounts::connect, clock_.now);
    recorder_.connections().note_error(err, err == ECONNREFUSED ? "connect (UDP: port unreachable)" : "connect (UDP)");
    events_->retry_later(c);
    return;
  }
  if (c.in_flight_count() > 0) recorder_.connections().note_error(err, what);
  events_->broke(c, what[0] == 'r' ? &stats::ErrorCounts::read : &stats::ErrorCounts::write);
}

void Transport::quic_ended(Connection& c) {
  const quic::Ending ending = c.http3->ending();
  const char* reason = c.http3->error_reason();
  if (c.state == Connection::State::kHandshaking) {
    if (ending == quic::Ending::kTls) {
      handshake_failed(c, reason);
      return;
    }
    handshaking_.remove(c);
    recorder_.count(&stats::ErrorCounts::quic, clock_.now);
    recorder_.connections().note_error(0, reason);
    events_->retry_later(c);
    return;
  }
  const bool quiet = ending == quic::Ending::kIdle || (ending == quic::Ending::kPeerClosed && c.http3->closed_gracefully());
  if (quiet && c.in_flight_count() == 0) {
    events_->reopen(c);  // an idle connection closed by the idle timeout or by the server with NO_ERROR: nothing was lost
    return;
  }
  recorder_.connections().note_error(0, reason);
  if (c.in_flight_count() == 0) recorder_.count(&stats::ErrorCounts::quic, clock_.now);
  events_->broke(c, &stats::ErrorCounts::quic);
}

void Transport::quic_timers(std::span<const std::unique_ptr<Connection>> connections) {
  if (clock_.now < quic_due_ns_) return;
  quic_due_ns_ = kNeverNs;  // rebuilt by the walk (and lowered by what it runs)
  for (const auto& owned : connections) {
    Connection& c = *owned;
    if (c.state != Connection::State::kOpen && c.state != Connection::State::kHandshaking) continue;
    if (c.http3->next_timer_ns() > clock_.now) {
      note_quic_timer(c);
      continue;
    }
    if (!c.http3->on_timer(clock_.now)) {
      quic_ended(c);
      continue;
    }
    if (c.state == Connection::State::kOpen) {
      events_->ready(c);
    } else {
      (void)quic_flush(c);
    }
    note_quic_timer(c);
  }
}

void Transport::note_quic_timer(const Connection& c) {
  quic_due_ns_ = std::min(quic_due_ns_, c.http3->next_timer_ns());
}

void Transport::quic_close(Connection& c) {
  // A CONNECTION_CLOSE, so the server frees the connection now rather than at its idle timeout.
  if (c.fd >= 0 && c.http3->handshake_completed()) {
    c.http3->close(clock_.now);
    net::send_packets(c.fd, c.http3->datagrams(), udp_gso_);
  }
  c.http3->drop();
}

}  // namespace pacer::engine
