// The worker's HTTP/3 steps (--http3): a connection is a connected UDP socket
// plus an Http3Session (nghttp3 over quic::Connection, in memory). The worker
// moves datagrams: recvmmsg into its DatagramReader, each datagram fed to the
// session with its kernel receive stamp (a response ends at the stamp of the
// datagram that completed it); the session's packets out with sendmmsg/GSO.
// QUIC's timers are the session's next_timer_ns()/on_timer(), folded into the
// wake time through quic_due_ns_, a lower bound of them all: a connection's timer
// moves only when it reads or writes packets (or runs a timer), and each of those
// lowers the bound, so the connections are walked only when one may be due. The handshake runs in kHandshaking on the handshake list (so
// --timeout bounds it); its time goes to the TLS handshake histogram.
//
// Errors: a handshake that fails (certificate, alert) is `tls`; a connection the
// server closes with an error, or that fails locally, is `quic` for each request
// in flight (one if none was); an idle timeout, or the server's close with
// NO_ERROR, with nothing in flight reopens quietly. A datagram refused (ICMP unreachable) is `connect` before the
// handshake and `read` after. See worker.h for the loop's invariants.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>

#include "engine/worker.h"
#include "net/udp_io.h"

namespace pacer::engine {

namespace {

// Datagrams one connection reads per wake-up before yielding (read budgets, worker.h).
constexpr int kDatagramsPerWake = 4 * static_cast<int>(net::DatagramReader::kSlots);

}  // namespace

void Worker::start_quic(Connection& c) {
  c.connect_start_ns = now_;
  quic::SessionSetup setup;
  setup.tls = shared_.quic_tls;
  setup.tickets = shared_.config->tls_resume ? quic_tickets_.get() : nullptr;
  setup.remote = address_;
  setup.idle_timeout_ns = std::max<TimeNs>(30 * kNsPerS, 2 * shared_.config->timeout_ns);
  const int fd = net::open_udp_socket(address_, setup.local);
  if (fd < 0) {
    connect_failed(c, errno, "connect (UDP)");
    return;
  }
  if (!register_socket(c, fd, true)) return;  // connected: UDP has no handshake of its own
  if (!c.http3->start(setup, now_)) {
    handshake_failed(c, c.http3->error_reason());
    return;
  }
  c.state = Connection::State::kHandshaking;
  c.handshake_start_ns = monotonic_now_ns();
  handshaking_.push_back(c);
  quic_flush(c);  // the Initial packet
}

void Worker::quic_readable(Connection& c) {
  for (int read = 0;;) {
    if (read >= kDatagramsPerWake || wake_reads_spent_) {
      defer_read(c, io::kReadable);  // the rest after the timers; what was read is answered below
      break;
    }
    const int n = datagrams_->receive(c.fd);
    if (n < 0) {
      quic_socket_failed(c, -n, "read");
      return;
    }
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (datagrams_->truncated(k)) continue;  // larger than our max_udp_payload_size: not QUIC we asked for
      note_arrival(datagrams_->stamp(k));
      if (now_ >= shared_.record_from_ns) result_.counters.bytes_read += datagrams_->length(k);
      if (!c.http3->receive_datagram(datagrams_->data(k), datagrams_->length(k), now_, c)) {
        quic_ended(c);
        return;
      }
    }
    read += n;
    if (n < static_cast<int>(net::DatagramReader::kSlots)) break;
    if (monotonic_now_ns() - wake_ns_ >= kReadSliceNs) wake_reads_spent_ = true;
  }
  note_quic_timer(c);  // received packets set the ACK timer
  if (c.state == Connection::State::kHandshaking) {
    if (c.http3->handshake_completed()) {
      quic_handshake_done(c);
    } else {
      quic_flush(c);
    }
    return;
  }
  connection_ready(c);
}

void Worker::quic_handshake_done(Connection& c) {
  handshaking_.remove(c);
  ++result_.counters.connects;
  ++result_.counters.tls_handshakes;
  if (c.http3->resumed()) ++result_.counters.tls_resumed;
  const TimeNs done_ns = monotonic_now_ns();
  if (now_ >= shared_.record_from_ns) result_.tls_handshake.record(done_ns - c.handshake_start_ns);
  connection_established(c);  // the session binds its control streams (reset) and the slots send
}

bool Worker::quic_flush(Connection& c) {
  net::PacketBatch& out = c.http3->datagrams();
  for (int rounds = 0; rounds < 64; ++rounds) {
    if (!c.http3->fill_datagrams(now_) && out.empty()) {
      quic_ended(c);
      return false;
    }
    note_quic_timer(c);  // packets written set the loss-recovery and pacing timers
    if (out.empty()) {
      c.write_blocked = false;
      return true;
    }
    switch (net::send_packets(c.fd, out, udp_gso_)) {
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

void Worker::quic_socket_failed(Connection& c, int err, const char* what) {
  if (c.state == Connection::State::kHandshaking) {
    handshaking_.remove(c);
    connect_failed(c, err, err == ECONNREFUSED ? "connect (UDP: port unreachable)" : "connect (UDP)");
    return;
  }
  if (c.in_flight_count() > 0) note_error(err, what);
  fail_connection(c, what[0] == 'r' ? &stats::ErrorCounts::read : &stats::ErrorCounts::write);
}

void Worker::quic_ended(Connection& c) {
  const quic::Ending ending = c.http3->ending();
  const char* reason = c.http3->error_reason();
  if (c.state == Connection::State::kHandshaking) {
    if (ending == quic::Ending::kTls) {
      handshake_failed(c, reason);
      return;
    }
    handshaking_.remove(c);
    if (now_ >= shared_.record_from_ns) ++result_.counters.errors.quic;
    note_error(0, reason);
    schedule_reconnect(c);
    return;
  }
  const bool quiet = ending == quic::Ending::kIdle || (ending == quic::Ending::kPeerClosed && c.http3->closed_gracefully());
  if (quiet && c.in_flight_count() == 0) {
    reopen(c);  // an idle connection closed by the idle timeout or by the server with NO_ERROR: nothing was lost
    return;
  }
  note_error(0, reason);
  if (c.in_flight_count() == 0 && now_ >= shared_.record_from_ns) ++result_.counters.errors.quic;
  fail_connection(c, &stats::ErrorCounts::quic);
}

void Worker::quic_timers() {
  if (now_ < quic_due_ns_) return;
  quic_due_ns_ = std::numeric_limits<TimeNs>::max();  // rebuilt by the walk (and lowered by what it runs)
  for (auto& owned : connections_) {
    Connection& c = *owned;
    if (c.http3 == nullptr || (c.state != Connection::State::kOpen && c.state != Connection::State::kHandshaking)) {
      continue;
    }
    if (c.http3->next_timer_ns() > now_) {
      note_quic_timer(c);
      continue;
    }
    if (!c.http3->on_timer(now_)) {
      quic_ended(c);
      continue;
    }
    if (c.state == Connection::State::kOpen) {
      connection_ready(c);
    } else {
      quic_flush(c);
    }
    note_quic_timer(c);
  }
}

void Worker::note_quic_timer(const Connection& c) {
  quic_due_ns_ = std::min(quic_due_ns_, c.http3->next_timer_ns());
}

void Worker::quic_close(Connection& c) {
  // A CONNECTION_CLOSE, so the server frees the connection now rather than at its idle timeout.
  if (c.fd >= 0 && c.http3->handshake_completed()) {
    c.http3->close(now_);
    net::send_packets(c.fd, c.http3->datagrams(), udp_gso_);
  }
  c.http3->drop();
}

}  // namespace pacer::engine
