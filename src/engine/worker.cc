// The worker's event loop. See worker.h for the invariants.
#include "engine/worker.h"

#include <sys/epoll.h>
#include <sys/prctl.h>
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

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kArrivalSpinNs = 30 * kNsPerUs;

bool backoff_later(const Connection* a, const Connection* b) { return a->reconnect_at_ns > b->reconnect_at_ns; }

}  // namespace

Worker::Worker(const SharedRun& shared, int worker_index, int connections,
               std::optional<std::uint64_t> request_quota)
    : shared_(shared),
      worker_index_(worker_index),
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
  if (shared_.profile != nullptr) {
    // With --shard i/N, this process's workers are i*W .. i*W+W-1 of N*W: the
    // shards' arrivals interleave like the workers' do.
    const Config& config = *shared_.config;
    const int schedule_workers = shared_.worker_count * config.shard_count;
    schedule_.emplace(*shared_.profile, config.poisson ? load::Arrival::kPoisson : load::Arrival::kUniform,
                      config.shard_index * shared_.worker_count + worker_index_, schedule_workers, config.seed);
    // Room for every arrival of 10 s at the peak rate: a stall that long still
    // loses nothing; beyond it arrivals are counted as backlog errors.
    const double peak_share = shared_.profile->peak_rate() / schedule_workers;
    backlog_ = TimeRing(static_cast<std::size_t>(std::clamp(peak_share * 10.0, 1024.0, 4.0 * 1024 * 1024)));
  }
  events_.resize(kMaxEvents);
  if (shared_.interval_ns > 0) {
    intervals_ = std::make_unique<IntervalRing>();
    interval_latency_ = std::make_unique<stats::Histogram>(stats::Histogram::for_latency_ns());
  }
  read_buffer_ = std::make_unique<char[]>(kReadBufferBytes);
  address_ = shared_.address;
  if (shared_.script != nullptr) {
    script_ = std::make_unique<WorkerScript>(*shared_.script, shared_.script->thread(worker_index_));
    if (Status s = script_->prepare(connections_); !s) return s;
    address_ = script_->address();
  }
  result_.first_error.reserve(256);
  return Ok{};
}

void Worker::adopt_first_connection(UniqueFd fd, TimeNs connect_ns) {
  adopted_fd_ = std::move(fd);
  adopted_connect_ns_ = connect_ns;
}

void Worker::run() {
  if (is_open()) prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake at the scheduled nanosecond, not 50 us late
  now_ = monotonic_now_ns();
  next_sample_ns_ = std::max(now_, shared_.record_from_ns) + kRateSampleNs;
  if (intervals_) next_interval_ns_ = shared_.record_from_ns + shared_.interval_ns;
  if (is_open()) {
    const std::optional<TimeNs> first = schedule_->next();
    next_arrival_ns_ = first ? shared_.start_ns + *first : kNever;
  }
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
    if (script_ && script_->stop_requested()) break;
    if (!draining_ && now_ >= shared_.end_ns) draining_ = true;
    if (is_open()) dispatch_arrivals();
    expire_timeouts();
    if (is_open()) expire_backlog_at_drain_end();
    run_due_reconnects();
    if (script_) send_delayed();
    sample_rate();
    if (intervals_ && now_ >= next_interval_ns_) close_intervals(false);
    if (finished()) break;
    wait_for_events();
  }
  result_.finished_ns = now_;
  for (auto& c : connections_) close_connection(*c);
  if (intervals_) close_intervals(true);
  done_.store(true, std::memory_order_release);
}

void Worker::record_latency(TimeNs latency_ns, bool censored) {
  result_.latency.record(latency_ns);
  if (censored) result_.latency_censored.record(latency_ns);
  if (interval_latency_) interval_latency_->record(latency_ns);
}

void Worker::close_intervals(bool final) {
  // One snapshot per boundary passed; the final call closes the partial last one.
  while (final || now_ >= next_interval_ns_) {
    IntervalSnapshot* slot = intervals_->slot_to_fill();
    if (slot == nullptr) {  // the controller is behind: keep accumulating
      if (!final) next_interval_ns_ += shared_.interval_ns;
      return;
    }
    const stats::Counters& c = result_.counters;
    slot->sent = c.requests_sent - at_interval_start_.requests_sent;
    slot->completed = c.responses - at_interval_start_.responses;
    slot->scheduled = c.scheduled - at_interval_start_.scheduled;
    slot->errors = c.errors;
    slot->errors.subtract(at_interval_start_.errors);
    slot->latency = *interval_latency_;  // same layout: copies counts, no allocation
    slot->end_ns = final ? now_ : next_interval_ns_;
    intervals_->publish();
    interval_latency_->reset();
    at_interval_start_.requests_sent = c.requests_sent;
    at_interval_start_.responses = c.responses;
    at_interval_start_.scheduled = c.scheduled;
    at_interval_start_.errors = c.errors;
    if (final) return;
    next_interval_ns_ += shared_.interval_ns;
  }
}

void Worker::wait_for_events() {
  const TimeNs wait = std::max<TimeNs>(0, next_wake_ns() - now_);
  timespec timeout{static_cast<time_t>(wait / kNsPerS), static_cast<long>(wait % kNsPerS)};
  const int n = ::epoll_pwait2(epoll_.get(), events_.data(), kMaxEvents, &timeout, nullptr);
  now_ = monotonic_now_ns();
  for (int i = 0; i < n; ++i) handle_event(events_[static_cast<std::size_t>(i)]);
}

bool Worker::claim_request(Connection& c) {
  // Open model: the schedule decides what is sent; a connection is worth having
  // while arrivals may still come or wait in the backlog.
  if (is_open()) return !draining_ || !backlog_.empty();
  if (draining_) return false;
  if (!quota_left_ || c.holds_claim || now_ < shared_.record_from_ns) return true;
  if (*quota_left_ == 0) return false;
  --*quota_left_;
  c.holds_claim = true;
  ++claims_held_;
  return true;
}

bool Worker::finished() const {
  if (!in_flight_.empty()) return false;
  if (is_open()) {
    if (!backlog_.empty()) return false;
    return draining_ || next_arrival_ns_ == kNever;
  }
  if (draining_) return true;
  return quota_left_ && *quota_left_ == 0 && claims_held_ == 0 && now_ >= shared_.record_from_ns;
}

TimeNs Worker::next_wake_ns() const {
  // Rate samples stop with the drain (sample_rate() no longer advances them).
  TimeNs next = draining_ ? kNever : next_sample_ns_;
  if (!in_flight_.empty()) next = std::min(next, in_flight_.front()->t_send + shared_.config->timeout_ns);
  if (!backoff_.empty()) next = std::min(next, backoff_.front()->reconnect_at_ns);
  if (script_) next = std::min(next, script_->next_due_ns());
  // Open model: wake a little before the next arrival and poll the last stretch,
  // because a timer wake-up from sleep can be tens of microseconds late.
  if (!draining_) next = std::min(next, std::min(shared_.end_ns, next_arrival_ns_ - kArrivalSpinNs));
  next = std::min(next, next_interval_ns_);
  if (draining_ && !backlog_.empty()) next = std::min(next, shared_.end_ns + shared_.config->timeout_ns);
  return next;
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
  c.fd = net::open_tcp_socket(address_.family());
  if (c.fd < 0) {
    connect_failed(c, errno);
    return;
  }
  if (!register_socket(c)) return;
  c.state = Connection::State::kConnecting;
  if (::connect(c.fd, address_.sockaddr_ptr(), address_.length) == 0) {
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
  connection_ready(c);
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

void Worker::connection_ready(Connection& c) {
  if (!is_open()) {
    if (script_ && script_->has_delay()) {
      script_->defer(c, now_);  // wrk: delay() before every request; sent by send_delayed()
      return;
    }
    send_request(c, c.slot_free_ns);
    return;
  }
  TimeNs t_sched = 0;
  if (pop_backlog(t_sched)) {
    send_request(c, t_sched);
  } else {
    idle_.push_back(c);
  }
}

void Worker::send_request(Connection& c, TimeNs t_sched) {
  // Open model: the arrival was already taken from the schedule; it is sent.
  if (!is_open() && !claim_request(c)) return;
  if (is_recorded(t_sched) && c.holds_claim) {
    c.holds_claim = false;  // this request uses it up
    --claims_held_;
  }
  RequestBatch batch{1, shared_.is_head ? 1u : 0u};
  c.request = shared_.request;
  if (script_ && !script_->next_request(c, c.request, batch)) return;  // the script failed: the run stops
  c.t_sched = t_sched;
  c.t_send = now_;
  c.bytes_written = 0;
  c.response_done = false;
  c.pending = batch.count;
  for (int i = 0; i < batch.count; ++i) c.parser.expect(((batch.head_bits >> i) & 1) != 0);
  in_flight_.push_back(c);
  if (is_recorded(t_sched)) {
    result_.counters.requests_sent += static_cast<std::uint64_t>(batch.count);
    if (is_open()) result_.queue_delay.record(now_ - t_sched);
  }
  c.state = Connection::State::kWriting;
  continue_write(c);
}

void Worker::continue_write(Connection& c) {
  const std::string_view req = c.request;
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
        if (c.in_flight.linked) {
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
      if (c.in_flight.linked) {
        note_error(0, complete ? "connection closed before the response" : c.parser.error_reason());
        fail_request(c, &stats::ErrorCounts::read);
      } else {
        // The server closed an idle keep-alive connection, or ended a close-delimited body.
        reopen_idle(c);
      }
      return;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN) {
      break;
    } else {
      const int err = errno;
      if (c.in_flight.linked) {
        note_error(err, "read");
        fail_request(c, &stats::ErrorCounts::read);
      } else {
        reopen_idle(c);
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
  if (script_) script_->on_response(c, status);
  if (--c.pending <= 0) {  // the last response of the batch (pipelined requests)
    in_flight_.remove(c);
    c.response_done = true;
    c.reuse_allowed = keep_alive && c.state == Connection::State::kAwaiting;
    c.state = Connection::State::kIdle;
  }
  stats::Counters& counters = result_.counters;
  if (!is_recorded(c.t_sched)) {
    ++counters.warmup_responses;
    return;
  }
  ++counters.responses;
  if (status >= 0 && status <= stats::kMaxStatusCode) ++counters.status_counts[static_cast<std::size_t>(status)];
  if (status >= 400) ++counters.errors.status;
  record_latency(now_ - c.t_sched, false);
  if (is_open()) result_.service.record(now_ - c.t_send);
}

void Worker::after_response(Connection& c) {
  c.response_done = false;
  c.slot_free_ns = now_;
  if (!c.reuse_allowed || !shared_.config->keep_alive) {
    reopen(c);
    return;
  }
  connection_ready(c);
}

// ---- failures and timeouts ---------------------------------------------------

void Worker::fail_request(Connection& c, std::uint64_t stats::ErrorCounts::*error) {
  if (is_recorded(c.t_sched)) ++(result_.counters.errors.*error);
  c.slot_free_ns = now_;
  reopen(c);
}

void Worker::expire_timeouts() {
  const TimeNs timeout = shared_.config->timeout_ns;
  while (!in_flight_.empty() && in_flight_.front()->t_send + timeout <= now_) {
    Connection& c = *in_flight_.front();
    if (is_recorded(c.t_sched)) {
      ++result_.counters.errors.timeout;
      if (shared_.config->record_timeouts) {
        record_latency(now_ - c.t_sched, true);  // censored: the true latency is at least this
      }
    }
    c.slot_free_ns = now_;
    reopen(c);
  }
}

void Worker::close_connection(Connection& c) {
  in_flight_.remove(c);
  idle_.remove(c);
  if (c.fd >= 0) {
    ::close(c.fd);  // also removes it from the epoll set
    c.fd = -1;
  }
  c.state = Connection::State::kClosed;
}

void Worker::reopen_idle(Connection& c) {
  // A response completed in this read frees the slot now, as after_response would.
  if (c.response_done) c.slot_free_ns = now_;
  c.response_done = false;
  reopen(c);
}

void Worker::reopen(Connection& c) {
  close_connection(c);
  start_connect(c);
}

// ---- bookkeeping -------------------------------------------------------------

void Worker::send_delayed() {
  while (Connection* c = script_->pop_due(now_)) send_request(*c, now_);
}

void Worker::sample_rate() {
  if (now_ < next_sample_ns_ || draining_) return;
  const TimeNs window = now_ - (next_sample_ns_ - kRateSampleNs);
  const std::uint64_t done = result_.counters.responses - responses_at_sample_;
  result_.rate_samples.record(static_cast<std::int64_t>(static_cast<double>(done) * 1e9 / static_cast<double>(window)));
  responses_at_sample_ = result_.counters.responses;
  next_sample_ns_ = now_ + kRateSampleNs;
}

void Worker::note_error(int err, const char* what) {
  if (!result_.first_error.empty()) return;
  result_.first_error = err != 0 ? fmt::format("{}: {}", what, std::strerror(err)) : std::string(what);
}

}  // namespace pacer::engine
