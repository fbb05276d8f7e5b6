// The worker's connection life cycle: non-blocking connect, registration with
// the I/O engine, connect failures (refused, or not done within --timeout) with
// exponential backoff, close and reopen. See worker.h.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "engine/give_up.h"
#include "engine/worker.h"
#include "net/receive_stamp.h"
#include "net/socket.h"

namespace pacer::engine {

namespace {

constexpr TimeNs kBackoffBaseNs = 10 * kNsPerMs;
constexpr TimeNs kBackoffMaxNs = 1 * kNsPerS;

bool backoff_later(const Connection* a, const Connection* b) { return a->reconnect_at_ns > b->reconnect_at_ns; }

}  // namespace

void Worker::start_connect(Connection& c) {
  // A connection that will send nothing more (end of run, -n reached) stays
  // closed, so the server sees no connection that carries no request.
  if (!claim_request(c)) {
    c.state = Connection::State::kClosed;
    return;
  }
  if (c.http3 != nullptr) {
    start_quic(c);  // UDP and the QUIC handshake (worker_quic.cc)
    return;
  }
  c.connect_start_ns = now_;
  const int fd = net::open_tcp_socket(address_.family());
  if (fd < 0) {
    connect_failed(c, errno);
    return;
  }
  // Reads then say when a response arrived (handle_readable). If refused, the
  // wake-up time stands in and coalescing stays off.
  net::enable_receive_stamps(fd);
  if (!register_socket(c, fd, false)) return;
  c.state = Connection::State::kConnecting;
  if (const int err = engine_->connect(c, address_.sockaddr_ptr(), address_.length); err == 0) {
    finish_connect(c, 0);
  } else if (err != EINPROGRESS) {
    connect_failed(c, err);
  } else {
    // The kernel alone would wait minutes (a SYN dropped by a full accept queue
    // is retried for about two): expire_connects gives up after --timeout.
    connecting_.push_back(c);
  }
}

bool Worker::register_socket(Connection& c, int fd, bool connected) {
  // TLS reads and writes the socket itself (OpenSSL's BIO), and so does QUIC (its
  // datagrams, batched: worker_quic.cc): the engine reports readiness only.
  const bool owner_moves_bytes = shared_.tls != nullptr || shared_.http3 != nullptr;
  const io::Mode mode = owner_moves_bytes ? io::Mode::kReadiness : io::Mode::kStream;
  if (engine_->attach(c, fd, mode, connected)) return true;
  connect_failed(c, errno);  // closes fd with c (the engine's close)
  return false;
}

void Worker::open_adopted(Connection& c) {
  const int fd = adopted_fd_.release();
  c.connect_start_ns = now_ - adopted_connect_ns_;
  net::enable_receive_stamps(fd);  // as in start_connect
  if (!register_socket(c, fd, true)) return;
  c.state = Connection::State::kConnecting;
  if (!adopted_tls_.is_established()) {
    finish_connect(c, net::socket_error(c.fd));
    return;
  }
  // https: the probe already did the handshake.
  ++result_.counters.connects;
  if (now_ >= shared_.record_from_ns) result_.connect.record(adopted_connect_ns_);
  c.tls = std::move(adopted_tls_);
  ++result_.counters.tls_handshakes;
  if (now_ >= shared_.record_from_ns) result_.tls_handshake.record(adopted_handshake_ns_);
  connection_established(c);
}

void Worker::finish_connect(Connection& c, int err) {
  connecting_.remove(c);
  if (err != 0) {
    connect_failed(c, err);
    return;
  }
  ++result_.counters.connects;
  if (now_ >= shared_.record_from_ns) result_.connect.record(now_ - c.connect_start_ns);
  if (shared_.tls != nullptr) {
    start_handshake(c);
    return;
  }
  connection_established(c);
}

void Worker::connection_established(Connection& c) {
  c.connect_failures = 0;
  c.state = Connection::State::kOpen;
  if (open_connections_++ == 0 && shared_.give_up != nullptr) {
    shared_.give_up->set_idle_since(worker_index_, GiveUpWatch::kHasOpen);  // the give-up rule
  }
  c.write_blocked = false;
  c.sent_on_connection = 0;
  c.answered_on_connection = 0;
  c.session->reset();
  for (RequestSlot& slot : c.slots) {
    if (slot.has_free_time) continue;
    // The first connection of a slot is set-up, not load: the slot opens now.
    slot.free_ns = now_;
    slot.has_free_time = true;
  }
  connection_ready(c);
}

void Worker::connect_failed(Connection& c, int err, const char* what) {
  if (now_ >= shared_.record_from_ns) ++result_.counters.errors.connect;
  note_error(err, what);
  schedule_reconnect(c);
}

void Worker::expire_connects() {
  while (oldest_expiry(connecting_, &Connection::connect_start_ns) <= now_) {
    connect_failed(*connecting_.front(), 0, connect_timeout_reason_.c_str());
  }
}

void Worker::schedule_reconnect(Connection& c) {
  close_connection(c);
  const int shift = std::min(c.connect_failures, 7);
  ++c.connect_failures;
  c.reconnect_at_ns = now_ + std::min(kBackoffMaxNs, kBackoffBaseNs << shift);
  c.state = Connection::State::kBackoff;
  backoff_.push_back(&c);
  std::push_heap(backoff_.begin(), backoff_.end(), backoff_later);
}

void Worker::run_due_reconnects() {
  while (!backoff_.empty() && backoff_.front()->reconnect_at_ns <= now_) {
    std::pop_heap(backoff_.begin(), backoff_.end(), backoff_later);
    Connection* c = backoff_.back();
    backoff_.pop_back();
    start_connect(*c);
  }
}

void Worker::close_connection(Connection& c) {
  // Requests still in flight here are abandoned uncounted (the end of the run);
  // the failure paths have already counted and released theirs.
  for (RequestSlot& slot : c.slots) {
    if (slot.in_use) release_slot(c, slot.token);
  }
  idle_.remove(c);
  connecting_.remove(c);
  handshaking_.remove(c);
  unread_.remove(c);
  c.unread_events = 0;
  c.tls.close();
  if (c.http3 != nullptr) quic_close(c);
  if (c.state == Connection::State::kOpen && --open_connections_ == 0) {
    idle_since_ns_ = now_;
    if (shared_.give_up != nullptr) shared_.give_up->set_idle_since(worker_index_, now_);
  }
  engine_->close(c);  // the socket and whatever the engine has in flight for it
  c.state = Connection::State::kClosed;
}

void Worker::reopen(Connection& c) {
  close_connection(c);
  start_connect(c);
}

}  // namespace pacer::engine
