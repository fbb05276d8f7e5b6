// The worker's TLS steps (https:// only): after TCP connects, the handshake runs
// one non-blocking step per socket edge; its time (TCP connected -> handshake
// done) goes to its own histogram next to the connect time. A failure or a
// handshake not done within --timeout counts a `tls` error, keeps the first
// reason (in a fixed buffer: no allocation), and retries after a backoff, like a
// failed connect. See worker.h for the loop's invariants.
#include <cstdio>

#include "engine/worker.h"
#include "proto/alpn.h"

namespace pacer::engine {

void Worker::start_handshake(Connection& c) {
  if (!c.tls.start_client(*shared_.tls, c.fd, shared_.config->tls_resume ? &tls_sessions_ : nullptr)) {
    handshake_failed(c, "cannot create a TLS connection (out of memory)");
    return;
  }
  c.state = Connection::State::kHandshaking;
  c.handshake_start_ns = monotonic_now_ns();  // fresh, like the end: see continue_handshake
  handshaking_.push_back(c);
  continue_handshake(c);
}

void Worker::continue_handshake(Connection& c) {
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
  ++result_.counters.tls_handshakes;
  if (c.tls.resumed()) ++result_.counters.tls_resumed;
  // A fresh clock read (once per connection, not per request): a handshake can
  // finish inside the step that began it, when the loop's clock is stale.
  const TimeNs done_ns = monotonic_now_ns();
  if (now_ >= shared_.record_from_ns) result_.tls_handshake.record(done_ns - c.handshake_start_ns);
  connection_established(c);
}

void Worker::handshake_failed(Connection& c, const char* reason) {
  if (now_ >= shared_.record_from_ns) ++result_.counters.errors.tls;
  note_tls_failure(c, reason);
  schedule_reconnect(c);
}

void Worker::expire_handshakes() {
  while (oldest_expiry(handshaking_, &Connection::handshake_start_ns) <= now_) {
    handshake_failed(*handshaking_.front(), shared_.http3 != nullptr
                                                ? "QUIC handshake timed out (--timeout): no answer over UDP"
                                                : "TLS handshake timed out (--timeout)");
  }
}

void Worker::note_tls_failure(const Connection& c, const char* reason) {
  if (result_.tls_first_error_ns >= 0) return;
  result_.tls_first_error_ns = now_;
  if (reason != nullptr) {
    std::snprintf(result_.tls_first_error.data(), result_.tls_first_error.size(), "%s", reason);
  } else {
    c.tls.describe_failure(result_.tls_first_error);
  }
}

}  // namespace pacer::engine
