// The worker's event loop. See worker.h for the invariants.
#include "engine/worker.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "net/socket.h"
#include "report/run_report.h"

namespace pacer::engine {

namespace {

constexpr int kMaxEvents = 256;
constexpr std::size_t kReadBufferBytes = 64 * 1024;
constexpr TimeNs kRateSampleNs = 100 * kNsPerMs;  // wrk samples Req/Sec every 100 ms
constexpr TimeNs kBackoffBaseNs = 10 * kNsPerMs;
constexpr TimeNs kBackoffMaxNs = 1 * kNsPerS;

bool backoff_later(const Connection* a, const Connection* b) { return a->reconnect_at_ns > b->reconnect_at_ns; }

}  // namespace

Worker::Worker(const SharedRun& shared, int connections, std::optional<std::uint64_t> request_quota)
    : shared_(shared),
      connection_count_(connections),
      quota_left_(request_quota),
      result_(report::make_rate_histogram()) {}

Status Worker::prepare() {
  epoll_.reset(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return runtime_error(fmt::format("epoll_create1: {}", std::strerror(errno)));
  connections_.reserve(static_cast<std::size_t>(connection_count_));
  for (int i = 0; i < connection_count_; ++i) {
    connections_.push_back(std::make_unique<Connection>(this, &Worker::on_response_complete));
  }
  backoff_.reserve(static_cast<std::size_t>(connection_count_));
  events_.resize(kMaxEvents);
  read_buffer_ = std::make_unique<char[]>(kReadBufferBytes);
  result_.first_error.reserve(256);
  return Ok{};
}

void Worker::adopt_first_connection(UniqueFd fd, TimeNs connect_ns) {
  adopted_fd_ = std::move(fd);
  adopted_connect_ns_ = connect_ns;
}

void Worker::run() {
  now_ = monotonic_now_ns();
  next_sample_ns_ = std::max(now_, shared_.record_from_ns) + kRateSampleNs;
  for (auto& c : connections_) {
    if (adopted_fd_.valid()) {
      c->fd = adopted_fd_.release();
      c->connect_start_ns = now_ - adopted_connect_ns_;
      if (!register_socket(*c)) continue;
      c->state = Connection::State::kConnecting;
      finish_connect(*c);
    } else {
      start_connect(*c);
    }
  }
  while (true) {
    if (shared_.stop->load(std::memory_order_relaxed)) break;
    if (!draining_ && now_ >= shared_.end_ns) draining_ = true;
    expire_timeouts();
    run_due_reconnects();
    sample_rate();
    if (finished()) break;
    const int n = ::epoll_wait(epoll_.get(), events_.data(), kMaxEvents, wait_timeout_ms());
    now_ = monotonic_now_ns();
    for (int i = 0; i < n; ++i) handle_event(events_[static_cast<std::size_t>(i)]);
  }
  result_.finished_ns = now_;
  for (auto& c : connections_) close_connection(*c);
}

bool Worker::claim_request(Connection& c) {
  if (draining_) return false;
  if (!quota_left_ || c.holds_claim || now_ < shared_.record_from_ns) return true;
  if (*quota_left_ == 0) return false;
  --*quota_left_;
  c.holds_claim = true;
  ++claims_held_;
  return true;
}

bool Worker::finished() const {
  if (in_flight_ != 0) return false;
  if (draining_) return true;
  return quota_left_ && *quota_left_ == 0 && claims_held_ == 0 && now_ >= shared_.record_from_ns;
}

int Worker::wait_timeout_ms() const {
  TimeNs next = next_sample_ns_;
  if (in_flight_head_ != nullptr) next = std::min(next, in_flight_head_->t_send + shared_.config->timeout_ns);
  if (!backoff_.empty()) next = std::min(next, backoff_.front()->reconnect_at_ns);
  if (!draining_) next = std::min(next, shared_.end_ns);
  const TimeNs wait = next - now_;
  if (wait <= 0) return 0;
  return static_cast<int>((wait + kNsPerMs - 1) / kNsPerMs);  // round up: never wake early and spin
}

void Worker::handle_event(const epoll_event& event) {
  Connection& c = *static_cast<Connection*>(event.data.ptr);
  const std::uint32_t ev = event.events;
  switch (c.state) {
    case Connection::State::kConnecting:
      if ((ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0) finish_connect(c);
      break;
    case Connection::State::kWriting:
      if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) handle_readable(c, ev);
      if (c.state == Connection::State::kWriting && (ev & EPOLLOUT) != 0) continue_write(c);
      break;
    case Connection::State::kIdle:
    case Connection::State::kAwaiting:
      if ((ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0) handle_readable(c, ev);
      break;
    case Connection::State::kClosed:
    case Connection::State::kBackoff:
      break;  // a stale event for a socket closed earlier in this batch
  }
}

// ---- connecting ------------------------------------------------------------

void Worker::start_connect(Connection& c) {
  // A slot that will send nothing more (end of run, -n reached) stays closed, so
  // the server sees no connection that carries no request.
  if (!claim_request(c)) {
    c.state = Connection::State::kClosed;
    return;
  }
  c.connect_start_ns = now_;
  c.fd = net::open_tcp_socket(shared_.address.family());
  if (c.fd < 0) {
    connect_failed(c, errno);
    return;
  }
  if (!register_socket(c)) return;
  c.state = Connection::State::kConnecting;
  if (::connect(c.fd, shared_.address.sockaddr_ptr(), shared_.address.length) == 0) {
    finish_connect(c);
  } else if (errno != EINPROGRESS) {
    connect_failed(c, errno);
  }
}

bool Worker::register_socket(Connection& c) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = &c;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, c.fd, &ev) == 0) return true;
  connect_failed(c, errno);
  return false;
}

void Worker::finish_connect(Connection& c) {
  const int err = net::socket_error(c.fd);
  if (err != 0) {
    connect_failed(c, err);
    return;
  }
  c.connect_failures = 0;
  ++result_.counters.connects;
  if (now_ >= shared_.record_from_ns) result_.connect.record(now_ - c.connect_start_ns);
  c.state = Connection::State::kIdle;
  c.parser.reset();
  if (!c.has_slot_time) {
    // The first connection of a slot is set-up, not load: the slot opens now.
    c.slot_free_ns = now_;
    c.has_slot_time = true;
  }
  send_request(c);
}

void Worker::connect_failed(Connection& c, int err) {
  if (now_ >= shared_.record_from_ns) ++result_.counters.errors.connect;
  note_error(err, "connect");
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

// ---- sending ---------------------------------------------------------------

void Worker::send_request(Connection& c) {
  const TimeNs t_sched = c.slot_free_ns;
  if (!claim_request(c)) return;
  if (is_recorded(t_sched) && c.holds_claim) {
    c.holds_claim = false;  // this request uses it up
    --claims_held_;
  }
  c.t_sched = t_sched;
  c.t_send = now_;
  c.bytes_written = 0;
  c.response_done = false;
  c.parser.expect(shared_.is_head);
  link_in_flight(c);
  if (is_recorded(t_sched)) ++result_.counters.requests_sent;
  c.state = Connection::State::kWriting;
  continue_write(c);
}

void Worker::continue_write(Connection& c) {
  const std::string_view req = shared_.request;
  while (c.bytes_written < req.size()) {
    const ssize_t n = ::send(c.fd, req.data() + c.bytes_written, req.size() - c.bytes_written, MSG_NOSIGNAL);
    if (n > 0) {
      c.bytes_written += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      return;  // EPOLLOUT (edge-triggered) resumes the write
    } else {
      note_error(errno, "write");
      fail_request(c, &stats::ErrorCounts::write);
      return;
    }
  }
  c.state = Connection::State::kAwaiting;
}

// ---- receiving -------------------------------------------------------------

void Worker::handle_readable(Connection& c, std::uint32_t events) {
  const bool peer_closing = (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
  char* buf = read_buffer_.get();
  while (true) {
    const ssize_t n = ::read(c.fd, buf, kReadBufferBytes);
    if (n > 0) {
      if (now_ >= shared_.record_from_ns) result_.counters.bytes_read += static_cast<std::uint64_t>(n);
      if (!c.parser.feed(buf, static_cast<std::size_t>(n))) {
        note_error(0, c.parser.error_reason());
        if (c.in_flight_linked) {
          fail_request(c, &stats::ErrorCounts::parse);
        } else {
          if (now_ >= shared_.record_from_ns) ++result_.counters.errors.parse;
          reopen(c);
        }
        return;
      }
      // A short read drained the socket: with edge triggering the next byte
      // brings a new event. Keep reading only when the peer is closing (to see EOF).
      if (static_cast<std::size_t>(n) < kReadBufferBytes && !peer_closing) break;
    } else if (n == 0) {
      const bool complete = c.parser.finish();
      if (c.in_flight_linked) {
        note_error(0, complete ? "connection closed before the response" : c.parser.error_reason());
        fail_request(c, &stats::ErrorCounts::read);
      } else {
        // The server closed an idle keep-alive connection, or ended a close-delimited body.
        if (c.response_done) c.slot_free_ns = now_;
        c.response_done = false;
        reopen(c);
      }
      return;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN) {
      break;
    } else {
      const int err = errno;
      if (c.in_flight_linked) {
        note_error(err, "read");
        fail_request(c, &stats::ErrorCounts::read);
      } else {
        if (c.response_done) c.slot_free_ns = now_;
        c.response_done = false;
        reopen(c);
      }
      return;
    }
  }
  if (c.response_done) after_response(c);
}

void Worker::on_response_complete(void* context, int status, bool keep_alive) {
  auto& c = *static_cast<Connection*>(context);
  c.worker->handle_response(c, status, keep_alive);
}

void Worker::handle_response(Connection& c, int status, bool keep_alive) {
  unlink_in_flight(c);
  c.response_done = true;
  c.reuse_allowed = keep_alive && c.state == Connection::State::kAwaiting;
  c.state = Connection::State::kIdle;
  stats::Counters& counters = result_.counters;
  if (!is_recorded(c.t_sched)) {
    ++counters.warmup_responses;
    return;
  }
  ++counters.responses;
  if (status >= 0 && status <= stats::kMaxStatusCode) ++counters.status_counts[static_cast<std::size_t>(status)];
  if (status >= 400) ++counters.errors.status;
  result_.latency.record(now_ - c.t_sched);
}

void Worker::after_response(Connection& c) {
  c.response_done = false;
  c.slot_free_ns = now_;
  if (!c.reuse_allowed || !shared_.config->keep_alive) {
    reopen(c);
    return;
  }
  send_request(c);
}

// ---- failures and timeouts ---------------------------------------------------

void Worker::fail_request(Connection& c, std::uint64_t stats::ErrorCounts::*error) {
  if (is_recorded(c.t_sched)) ++(result_.counters.errors.*error);
  c.slot_free_ns = now_;
  reopen(c);
}

void Worker::expire_timeouts() {
  const TimeNs timeout = shared_.config->timeout_ns;
  while (in_flight_head_ != nullptr && in_flight_head_->t_send + timeout <= now_) {
    Connection& c = *in_flight_head_;
    if (is_recorded(c.t_sched)) {
      ++result_.counters.errors.timeout;
      if (shared_.config->record_timeouts) {
        // Censored: the true latency is at least this.
        result_.latency.record(now_ - c.t_sched);
        result_.latency_censored.record(now_ - c.t_sched);
      }
    }
    c.slot_free_ns = now_;
    reopen(c);
  }
}

void Worker::close_connection(Connection& c) {
  unlink_in_flight(c);
  if (c.fd >= 0) {
    ::close(c.fd);  // also removes it from the epoll set
    c.fd = -1;
  }
  c.state = Connection::State::kClosed;
}

void Worker::reopen(Connection& c) {
  close_connection(c);
  start_connect(c);
}

// ---- bookkeeping -------------------------------------------------------------

void Worker::sample_rate() {
  if (now_ < next_sample_ns_ || draining_) return;
  const TimeNs window = now_ - (next_sample_ns_ - kRateSampleNs);
  const std::uint64_t done = result_.counters.responses - responses_at_sample_;
  result_.rate_samples.record(static_cast<std::int64_t>(static_cast<double>(done) * 1e9 / static_cast<double>(window)));
  responses_at_sample_ = result_.counters.responses;
  next_sample_ns_ = now_ + kRateSampleNs;
}

void Worker::link_in_flight(Connection& c) {
  c.prev = in_flight_tail_;
  c.next = nullptr;
  if (in_flight_tail_ != nullptr) {
    in_flight_tail_->next = &c;
  } else {
    in_flight_head_ = &c;
  }
  in_flight_tail_ = &c;
  c.in_flight_linked = true;
  ++in_flight_;
}

void Worker::unlink_in_flight(Connection& c) {
  if (!c.in_flight_linked) return;
  (c.prev != nullptr ? c.prev->next : in_flight_head_) = c.next;
  (c.next != nullptr ? c.next->prev : in_flight_tail_) = c.prev;
  c.prev = c.next = nullptr;
  c.in_flight_linked = false;
  --in_flight_;
}

void Worker::note_error(int err, const char* what) {
  if (!result_.first_error.empty()) return;
  result_.first_error = err != 0 ? fmt::format("{}: {}", what, std::strerror(err)) : std::string(what);
}

}  // namespace pacer::engine
