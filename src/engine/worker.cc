// The worker's event loop. See worker.h for the invariants.
#include "engine/worker.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "engine/give_up.h"
#include "io/select.h"
#include "net/socket.h"
#include "proto/http1_session.h"
#include "proto/http2_session.h"
#include "report/run_report.h"
#include "report/units.h"
#include "scenario/users.h"

namespace pacer::engine {

namespace {

constexpr TimeNs kRateSampleNs = 100 * kNsPerMs;  // wrk samples Req/Sec every 100 ms
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kArrivalSpinNs = 30 * kNsPerUs;
// Closed-loop coalescing (see wait_for_events): a pause of at most 1/16 of the
// mean latency and 200 us, when the last wait returned fewer than 8 events and at
// least 8 requests are in flight.
constexpr TimeNs kMaxCoalesceNs = 200 * kNsPerUs;
constexpr TimeNs kCoalesceLatencyShare = 16;
constexpr int kCoalesceBelowEvents = 8;
constexpr std::size_t kCoalesceMinInFlight = 8;

}  // namespace

Connection::Connection(Worker* owner, std::uint32_t slot_count) : worker(owner), slots(slot_count) {
  free_tokens.reserve(slot_count);
  for (std::uint32_t i = 0; i < slot_count; ++i) {
    slots[i].connection = this;
    slots[i].token = i;
    free_tokens.push_back(slot_count - 1 - i);  // token 0 on top
  }
}

void Connection::on_response(std::uint32_t token, int status) { worker->handle_response(*this, token, status); }

void Connection::on_batch_response(std::uint32_t token, int status) {
  worker->handle_batch_response(*this, token, status);
}

void Connection::on_first_byte(std::uint32_t token) { worker->handle_first_byte(*this, token); }

void Connection::on_redirect(std::uint32_t token) { worker->handle_redirect(*this, token); }

void Connection::on_decoded(std::uint32_t token, std::uint64_t bytes) { worker->handle_decoded(*this, token, bytes); }

void Connection::on_request_failed(std::uint32_t token, proto::RequestFailure why) {
  worker->handle_request_failed(*this, token, why);
}

Worker::Worker(const SharedRun& shared, int worker_index, int connections,
               std::optional<std::uint64_t> request_quota)
    : shared_(shared),
      worker_index_(worker_index),
      connection_count_(connections),
      quota_left_(request_quota),
      result_(report::make_rate_histogram()) {}



Status Worker::prepare() {
  auto engine = io::make_engine(shared_.io_engine, io::EngineSizing{connection_count_, shared_.tls != nullptr});
  if (!engine) return engine.error();
  engine_ = std::move(*engine);
  if (shared_.http2_request != nullptr || shared_.http3 != nullptr) h2_memory_ = std::make_unique<proto::H2Memory>();
  if (shared_.http3 != nullptr) {
    datagrams_ = std::make_unique<net::DatagramReader>();
    quic_tickets_ = shared_.http3->tickets();
  }
  address_ = shared_.address;
  if (shared_.script != nullptr) {
    script_ = std::make_unique<WorkerScript>(*shared_.script, shared_.script->thread(worker_index_),
                                             *shared_.config, *shared_.names);
    if (Status s = script_->prepare_request(); !s) return s;
    address_ = script_->address();
  }
  prepare_targets();
  connections_.reserve(static_cast<std::size_t>(connection_count_));
  for (int i = 0; i < connection_count_; ++i) {
    connections_.push_back(std::make_unique<Connection>(this, shared_.slots_per_connection));
    connections_.back()->index = i;
    make_session(*connections_.back());
  }
  if (script_) script_->prepare_connections(connections_);
  if (shared_.config->is_scenario()) {
    if (Status s = prepare_scenario(); !s) return s;
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
  // Per-name records: the names known now (the targets', "(other)" if they
  // passed --max-names, the script's static request's) record without allocating.
  const stats::NameTable& names = *shared_.names;
  result_.names = stats::NameRecorder(names.id_limit());
  result_.names.prepare(names.overflowed() ? names.id_limit() : names.size());
  if (shared_.interval_ns > 0) {
    intervals_ = std::make_unique<IntervalRing>();
    intervals_->size_names(result_.names.size());
    filling_ = intervals_->slot_to_fill();  // slot 0: the ring is empty
  }
  result_.first_error.reserve(256);
  connect_timeout_reason_ =
      fmt::format("connect: timed out after {} (--timeout)", report::format_duration_short(shared_.config->timeout_ns));
  return Ok{};
}

void Worker::make_session(Connection& c) {
  if (shared_.http3 != nullptr) {
    auto session = shared_.http3->session(*shared_.http3_requests, shared_.slots_per_connection, *h2_memory_);
    c.http3 = session.get();
    c.session = std::move(session);
    return;
  }
  const targets::RequestSet& requests = *shared_.requests;
  const Config& config = *shared_.config;
  if (shared_.http2_request != nullptr) {
    auto h2 = std::make_unique<proto::Http2Session>(requests.http2(), shared_.slots_per_connection, *h2_memory_);
    if (config.follow_redirects > 0 || config.compressed) {
      h2->enable_wire(config.target, config.follow_redirects, config.compressed);
    }
    c.session = std::move(h2);
    return;
  }
  std::unique_ptr<proto::Http1Session> session;
  if (script_ && !script_->custom_bytes()) {
    // A static script's request (built once by wrk.format) replaces the command line's.
    const std::string_view request = script_->static_request();
    session = std::make_unique<proto::Http1Session>(request, request, shared_.slots_per_connection,
                                                    script_->static_is_head(), &known_head_);
  } else {
    session = std::make_unique<proto::Http1Session>(requests.http1(), shared_.slots_per_connection, &known_head_);
  }
  if (config.follow_redirects > 0 || config.compressed) {
    session->enable_wire(config.target, config.follow_redirects, config.compressed);
  }
  c.http1 = session.get();
  c.session = std::move(session);
}

void Worker::adopt_first_connection(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls, TimeNs handshake_ns) {
  adopted_fd_ = std::move(fd);
  adopted_connect_ns_ = connect_ns;
  adopted_tls_ = std::move(tls);
  adopted_handshake_ns_ = handshake_ns;
}

void Worker::run() {
  // Timers fire at their nanosecond, not up to 50 us late: the open model's
  // arrivals and the closed loop's coalescing pause depend on it.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  now_ = monotonic_now_ns();
  idle_since_ns_ = now_;
  next_sample_ns_ = std::max(now_, shared_.record_from_ns) + kRateSampleNs;
  if (intervals_) next_interval_ns_ = shared_.record_from_ns + shared_.interval_ns;
  if (is_open()) {
    const std::optional<TimeNs> first = schedule_->next();
    next_arrival_ns_ = first ? shared_.start_ns + *first : kNever;
  }
  if (users_) {
    users_->start(now_);  // each user opens its own connection when it starts
  } else {
    for (auto& c : connections_) {
      if (adopted_fd_.valid()) {
        open_adopted(*c);
      } else {
        start_connect(*c);
      }
    }
  }
  while (true) {
    if (shared_.stop->load(std::memory_order_relaxed)) break;
    if (script_ && script_->stop_requested()) break;
    if (gives_up()) break;
    if (!draining_ && now_ >= shared_.end_ns) draining_ = true;
    if (is_open()) dispatch_arrivals();
    expire_timeouts();
    if (!connecting_.empty()) expire_connects();
    if (!handshaking_.empty()) expire_handshakes();
    if (shared_.http3 != nullptr) quic_timers();
    if (is_open()) expire_backlog();
    run_due_reconnects();
    if (script_) send_delayed();
    if (users_) scenario_turn();
    sample_rate();
    if (intervals_ && now_ >= next_interval_ns_) close_intervals(false);
    if (finished()) break;
    wait_for_events();
  }
  result_.finished_ns = now_;
  if (users_) {
    users_->stop();  // on_stop
    users_->name_rows();
  }
  // The last interval closes before the connections do, so its gauges are the
  // run's last state rather than the teardown's (closing counts nothing), and
  // after on_stop, so its script errors are in it.
  if (intervals_) close_intervals(true);
  if (users_) result_.scenario = std::move(users_->stats());
  for (auto& c : connections_) close_connection(*c);
  done_.store(true, std::memory_order_release);
}

void Worker::record_latency(stats::NameId name, TimeNs latency_ns, bool censored, std::int64_t count) {
  if (name != kUnsent) {
    result_.names.record_latency(name, latency_ns, count);
  } else {
    result_.unsent_latency.record_n(latency_ns, count);
  }
  if (censored) result_.latency_censored.record_n(latency_ns, count);
  if (filling_ != nullptr) filling_->latency.record_n(latency_ns, count);
}

void Worker::close_intervals(bool final) {
  // One snapshot per boundary passed; the final call closes the partial last one.
  while (final || now_ >= next_interval_ns_) {
    if (filling_ == nullptr) return;  // already closed by the final call
    if (!final && !intervals_->next_slot_free()) {  // the controller is behind: keep accumulating
      next_interval_ns_ += shared_.interval_ns;
      return;
    }
    IntervalSnapshot& slot = *filling_;  // its histogram already holds the interval's latencies
    const stats::Counters& c = result_.counters;
    slot.sent = c.requests_sent - at_interval_start_.requests_sent;
    slot.completed = c.responses - at_interval_start_.responses;
    slot.scheduled = c.scheduled - at_interval_start_.scheduled;
    slot.errors = c.errors;
    slot.errors.subtract(at_interval_start_.errors);
    if (users_) {
      const scenario::ScenarioStats& s = users_->stats();
      slot.scenario_errors = {s.check - scenario_errors_at_interval_start_.check,
                              s.script - scenario_errors_at_interval_start_.script};
      scenario_errors_at_interval_start_ = {s.check, s.script};
    }
    slot.end_ns = final ? now_ : next_interval_ns_;
    slot.open_connections = count_open_connections();
    slot.backlog = backlog_.size() + (users_ ? users_->backlog_size() : 0);  // scenarios: tasks waiting for a user
    slot.schedule_lag_ns = backlog_.empty() ? 0 : std::max<TimeNs>(0, now_ - backlog_.front());
    fill_in_flight_gauges(slot);
    slot.service_ns_sum = service_ns_sum_ - service_ns_at_interval_start_;
    result_.names.take_interval(slot.names);
    service_ns_at_interval_start_ = service_ns_sum_;
    intervals_->publish();
    filling_ = final ? nullptr : intervals_->slot_to_fill();
    at_interval_start_.requests_sent = c.requests_sent;
    at_interval_start_.responses = c.responses;
    at_interval_start_.scheduled = c.scheduled;
    at_interval_start_.errors = c.errors;
    if (final) return;
    next_interval_ns_ += shared_.interval_ns;
  }
}

std::uint64_t Worker::count_open_connections() const {
  std::uint64_t open = 0;
  for (const auto& c : connections_) {
    if (c->state == Connection::State::kOpen) ++open;
  }
  return open;
}

void Worker::fill_in_flight_gauges(IntervalSnapshot& slot) const {
  slot.in_flight = in_flight_.size();
  const RequestSlot* oldest = in_flight_.front();
  slot.oldest_in_flight_ns = oldest != nullptr ? std::max<TimeNs>(0, now_ - oldest->t_send) : 0;
  std::uint64_t over = 0;
  for (const RequestSlot* s = oldest; s != nullptr && now_ - s->t_send > shared_.config->interval_ns;
       s = s->in_flight.next) {
    ++over;
  }
  slot.in_flight_over_interval = over;
}

void Worker::wait_for_events() {
  const TimeNs wake_ns = next_wake_ns();
  if (worth_coalescing(wake_ns)) {
    // A wake-up per response costs a context switch on each side; after a short
    // pause one wake-up takes the responses that came meanwhile. Their latency
    // ends at the kernel's receive stamp, so the pause is not in it; the next
    // requests leave up to coalesce_ns_ later (at most 1/16 of a mean latency).
    engine_->submit();  // what this wake-up queued leaves now, not after the pause
    const timespec pause{0, static_cast<long>(coalesce_ns_)};
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr);
    now_ = monotonic_now_ns();
  }
  // Bytes left unread by the last wake-up's budget: only look for new events.
  // --spin: never sleep (a thread woken by a timer can be late by milliseconds).
  const TimeNs wait = unread_.empty() && !shared_.config->spin ? std::max<TimeNs>(0, wake_ns - now_) : 0;
  last_events_ = engine_->wait(wait, *this);  // on_wake, then on_io per event
}

void Worker::on_wake(TimeNs now_ns) {
  now_ = now_ns;
  ++wake_count_;
  wake_ns_ = now_;
  wake_reads_spent_ = false;
  if (!unread_.empty()) resume_unread();  // the oldest first
}

bool Worker::worth_coalescing(TimeNs wake_ns) const {
  // Not in the open model (arrivals are timed), nor without receive stamps (the
  // pause would be in the latency), nor when events come in batches already or
  // too few requests are in flight for a batch to form.
  // --spin never sleeps, so it never pauses either.
  return coalesce_ns_ > 0 && !is_open() && !shared_.config->spin && unread_.empty() && last_events_ > 0 &&
         last_events_ < kCoalesceBelowEvents && in_flight_.size() >= kCoalesceMinInFlight &&
         wake_ns - now_ > coalesce_ns_;
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
    // Arrivals due before the end that the loop has not taken yet (kArrivalsPerWake).
    if (draining_ && next_arrival_ns_ < shared_.end_ns) return false;
    if (draining_) return true;
    // A schedule that ran out early (a profile ending at rate 0, whose last
    // arrival comes before its end) still ends at -d: the run covers the whole
    // profile, so the measured window and the target are the profile's. Only -n
    // (no -d) or a -n reached ends the run with the schedule.
    if (next_arrival_ns_ != kNever) return false;
    return shared_.end_ns == std::numeric_limits<TimeNs>::max() || (quota_left_ && *quota_left_ == 0);
  }
  if (draining_) return true;
  return quota_left_ && *quota_left_ == 0 && claims_held_ == 0 && now_ >= shared_.record_from_ns;
}

bool Worker::gives_up() {
  GiveUpWatch* watch = shared_.give_up;
  if (watch == nullptr) return false;
  if (watch->gave_up()) return true;
  const TimeNs period = shared_.config->give_up_period_ns();
  if (open_connections_ > 0 || now_ - idle_since_ns_ < period) return false;
  return watch->all_idle_for(now_, period);
}

TimeNs Worker::next_wake_ns() const {
  // Rate samples stop with the drain (sample_rate() no longer advances them).
  TimeNs next = draining_ ? kNever : next_sample_ns_;
  if (!in_flight_.empty()) next = std::min(next, in_flight_.front()->t_send + shared_.config->timeout_ns);
  next = std::min({next, oldest_expiry(connecting_, &Connection::connect_start_ns),
                   oldest_expiry(handshaking_, &Connection::handshake_start_ns)});
  if (!backoff_.empty()) next = std::min(next, backoff_.front()->reconnect_at_ns);
  if (script_) next = std::min(next, script_->next_due_ns());
  if (users_) next = std::min(next, users_->next_due_ns());
  // Open model: wake a little before the next arrival and poll the last stretch,
  // because a timer wake-up from sleep can be tens of microseconds late.
  if (!draining_ || next_arrival_ns_ < shared_.end_ns) {
    next = std::min(next, std::min(shared_.end_ns, next_arrival_ns_ - kArrivalSpinNs));
  }
  next = std::min(next, next_interval_ns_);
  next = std::min(next, quic_due_ns_);  // --http3 (kNever without it)
  if (!backlog_.empty()) next = std::min(next, backlog_.front() + backlog_limit_ns());
  // The give-up check, once this worker has had no open connection long enough
  // (past it, the 100 ms rate samples and the reconnects bring the flag).
  if (open_connections_ == 0 && shared_.give_up != nullptr) {
    const TimeNs give_up_at = idle_since_ns_ + shared_.config->give_up_period_ns();
    if (give_up_at > now_) next = std::min(next, give_up_at);
  }
  return next;
}

void Worker::on_io(io::Channel& channel, std::uint32_t flags, int err) {
  auto& c = static_cast<Connection&>(channel);
  switch (c.state) {
    case Connection::State::kConnecting:
      if ((flags & io::kConnected) != 0) finish_connect(c, err);
      break;
    case Connection::State::kHandshaking:
      if (c.http3 != nullptr) {
        if ((flags & (io::kReadable | io::kPeerClosing)) != 0) quic_readable(c);
        if (c.state == Connection::State::kHandshaking && c.write_blocked && (flags & io::kWritable) != 0) quic_flush(c);
      } else {
        continue_handshake(c);
      }
      break;
    case Connection::State::kOpen:
      if ((flags & io::kReadable) != 0) handle_readable(c, flags);
      if (c.state == Connection::State::kOpen && c.write_blocked && (flags & io::kWritable) != 0) flush(c);
      break;
    case Connection::State::kClosed:
    case Connection::State::kBackoff:
      break;  // a stale event for a socket closed earlier in this batch
  }
}

// ---- bookkeeping -------------------------------------------------------------

void Worker::sample_rate() {
  if (now_ < next_sample_ns_ || draining_) return;
  const TimeNs window = now_ - (next_sample_ns_ - kRateSampleNs);
  const std::uint64_t done = result_.counters.responses - responses_at_sample_;
  result_.rate_samples.record(static_cast<std::int64_t>(static_cast<double>(done) * 1e9 / static_cast<double>(window)));
  const TimeNs mean_latency_ns = done > 0 ? window_latency_ns_ / static_cast<TimeNs>(done) : 0;
  coalesce_ns_ = stamps_seen_ ? std::min(kMaxCoalesceNs, mean_latency_ns / kCoalesceLatencyShare) : 0;
  window_latency_ns_ = 0;
  responses_at_sample_ = result_.counters.responses;
  next_sample_ns_ = now_ + kRateSampleNs;
}

void Worker::note_error(int err, const char* what) {
  if (!result_.first_error.empty()) return;
  result_.first_error = err != 0 ? fmt::format("{}: {}", what, std::strerror(err)) : std::string(what);
}

}  // namespace pacer::engine
