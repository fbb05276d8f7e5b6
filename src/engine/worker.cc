// The worker's loop and the routing between its parts. See worker.h.
#include "engine/worker.h"

#include <sys/prctl.h>

#include <algorithm>
#include <ctime>

#include "engine/drive/closed_driver.h"
#include "engine/drive/open_driver.h"
#include "engine/drive/scenario_driver.h"
#include "engine/loop/doorbell.h"
#include "io/select.h"

namespace pacer::engine {

namespace {

// Closed-loop coalescing (see wait_for_events): a pause of at most 1/16 of the
// mean latency and 200 us, when the last wait returned fewer than 8 events and at
// least 8 requests are in flight.
constexpr TimeNs kMaxCoalesceNs = 200 * kNsPerUs;
constexpr TimeNs kCoalesceLatencyShare = 16;
constexpr int kCoalesceBelowEvents = 8;
constexpr std::size_t kCoalesceMinInFlight = 8;

}  // namespace

Worker::Worker(const SharedRun& shared, int worker_index, int connections,
               std::optional<std::uint64_t> request_quota)
    : shared_(shared),
      worker_index_(worker_index),
      connection_count_(connections),
      request_quota_(request_quota),
      recorder_(shared),
      transport_(shared, clock_, recorder_, budget_),
      exchange_(shared, clock_, recorder_, worker_index),
      pool_(shared, worker_index, transport_, clock_, recorder_),
      resets_(shared.resets),
      stop_rules_(shared) {}

Status Worker::prepare() {
  // Readiness channels (TLS, a proxy's tunnel: conn/transport.h) read through the engine's buffer.
  auto engine = io::make_engine(shared_.io_engine,
                                io::EngineSizing{connection_count_, transport_.kind() != Transport::Kind::kQuic &&
                                                                     transport_.mode() == io::Mode::kReadiness});
  if (!engine) return engine.error();
  engine_ = std::move(*engine);
  net::Address address = shared_.address;
  if (shared_.script != nullptr) {
    script_ = std::make_unique<WorkerScript>(*shared_.script, shared_.script->thread(worker_index_),
                                             *shared_.config, *shared_.names);
    if (Status s = script_->prepare_request(); !s) return s;
    shared_.script->thread(worker_index_).set_lua_beat(&beat_);
    address = script_->address();  // setup() may send this thread elsewhere (thread.addr)
  }
  StaticRequest script_request;
  if (script_ && !script_->custom_bytes()) script_request = {script_->static_request(), script_->static_is_head()};
  sessions_ = std::make_unique<SessionFactory>(shared_, script_request);
  transport_.prepare(*engine_, *this, exchange_.tap());
  pool_.prepare(*engine_, connection_count_, address, *sessions_, &exchange_, *this);
  if (script_) script_->prepare_connections(pool_.all());
  if (Status s = make_driver(); !s) return s;
  const std::size_t slots = static_cast<std::size_t>(connection_count_) * shared_.slots_per_connection;
  exchange_.prepare(*driver_, slots);
  sent_.reserve(slots);
  // Last: the names known now (the targets', a static script's, the scenario's)
  // record without allocating.
  recorder_.prepare();
  return Ok{};
}

Status Worker::make_driver() {
  if (shared_.config->is_scenario()) {  // the users read their own settings
    user_connections_ = std::make_unique<UserConnections>(shared_, connection_count_, pool_);
    auto scenario = std::make_unique<ScenarioDriver>(shared_, worker_index_, connection_count_, request_quota_, clock_,
                                                     recorder_, exchange_, *user_connections_);
    if (Status s = scenario->prepare(&beat_); !s) return s;
    driver_ = std::move(scenario);
    return Ok{};
  }
  RequestSource source(shared_, worker_index_, script_.get(), nullptr);
  if (shared_.profile != nullptr) {
    driver_ = std::make_unique<OpenDriver>(shared_, worker_index_, request_quota_, clock_, recorder_, exchange_,
                                           std::move(source));
    return Ok{};
  }
  WorkerScript* delay_script = script_ && script_->has_delay() ? script_.get() : nullptr;
  driver_ = std::make_unique<ClosedDriver>(shared_, request_quota_, clock_, exchange_, std::move(source),
                                           delay_script);
  return Ok{};
}

void Worker::adopt_first_connection(UniqueFd fd, TimeNs connect_ns, net::TlsStream tls, TimeNs handshake_ns) {
  pool_.adopt(std::move(fd), connect_ns, std::move(tls), handshake_ns);
}

void Worker::run() {
  // Timers fire at their nanosecond, not up to 50 us late: the open model's
  // arrivals and the closed loop's coalescing pause depend on it.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  clock_.refresh();
  recorder_.start(clock_.now);
  driver_->start(pool_);
  write_sent();
  while (interrupted() == StopReason::kRunning) {
    turn();
    if (done() != StopReason::kRunning) break;
    wait_for_events();
  }
  scenario::ScenarioStats* scenario = driver_->stop();  // users' on_stop
  // The last interval closes before the connections do, so its gauges are the
  // run's last state rather than the teardown's (closing counts nothing), and
  // after on_stop, so its script errors are in it.
  recorder_.intervals().close(clock_.now, true, [this] { return gauges(); });
  recorder_.finish(clock_.now, scenario);
  for (const auto& c : pool_.all()) pool_.close(*c);
  done_.store(true, std::memory_order_release);
  if (shared_.doorbell != nullptr) shared_.doorbell->ring();
}

StopReason Worker::interrupted() {
  // In the rules' order: the give-up rule is asked last (it keeps a clock of its own).
  const bool stop_flag = shared_.stop->load(std::memory_order_relaxed);
  const bool script_stop = !stop_flag && script_ && script_->stop_requested();
  const bool gave_up = !stop_flag && !script_stop && pool_.gives_up();
  return StopRules::interrupted(stop_flag, script_stop, gave_up);
}

void Worker::turn() {
  driver_->on_turn(TurnPhase::kArrivals);
  write_sent();
  expire_timeouts();
  pool_.expire_connects();
  transport_.run_timers(pool_.all());
  driver_->on_turn(TurnPhase::kBacklog);
  write_sent();
  pool_.run_reconnects();
  driver_->on_turn(TurnPhase::kDue);
  write_sent();
  if (!clock_.draining) {
    if (const std::optional<TimeNs> mean_latency_ns = recorder_.intervals().sample_rate(clock_.now)) {
      coalesce_ns_ = clock_.stamps_seen ? std::min(kMaxCoalesceNs, *mean_latency_ns / kCoalesceLatencyShare) : 0;
    }
  }
  const IntervalRing* ring = recorder_.intervals().ring();
  const std::uint64_t published = ring != nullptr ? ring->published() : 0;
  recorder_.intervals().close(clock_.now, false, [this] { return gauges(); });
  if (ring != nullptr && ring->published() != published && shared_.doorbell != nullptr) shared_.doorbell->ring();
}

void Worker::expire_timeouts() {
  while (const std::optional<Exchange::Expired> expired = exchange_.expire_next()) {
    if (expired->reopen) {
      pool_.reopen(*expired->connection);
    } else {
      ready(*expired->connection);
    }
  }
}

void Worker::reset_stats(TimeNs at_ns) {
  recorder_.intervals().close(clock_.now, false, [this] { return gauges(); });
  recorder_.reset(at_ns, clock_.now);
  driver_->reset_stats();
}

IntervalGauges Worker::gauges() const {
  IntervalGauges g;
  g.open_connections = static_cast<std::uint64_t>(pool_.open_count());
  exchange_.gauges(shared_.options.loop.interval_ns, g);
  driver_->gauges(g);
  return g;
}

TimeNs Worker::next_wake_ns() const {
  TimeNs next = std::min({recorder_.intervals().next_due_ns(clock_.draining), exchange_.next_due_ns(),
                          pool_.next_due_ns(), transport_.next_due_ns(), driver_->next_due_ns(),
                          resets_.next_due_ns()});
  return std::min(next, stop_rules_.next_due_ns(clock_.draining));  // the drain begins
}

void Worker::wait_for_events() {
  const TimeNs wake_ns = next_wake_ns();
  idle_from_ns_ = monotonic_now_ns();  // the worker's busy share (evidence/worker_load.h): until on_wake
  if (worth_coalescing(wake_ns)) {
    // A wake-up per response costs a context switch on each side; after a short
    // pause one wake-up takes the responses that came meanwhile. Their latency
    // ends at the kernel's receive stamp, so the pause is not in it; the next
    // requests leave up to coalesce_ns_ later (at most 1/16 of a mean latency).
    engine_->submit();  // what this wake-up queued leaves now, not after the pause
    const timespec pause{0, static_cast<long>(coalesce_ns_)};
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &pause, nullptr);
    clock_.refresh();
  }
  // Bytes left unread by the last wake-up's budget: only look for new events.
  // --spin: never sleep (a thread woken by a timer can be late by milliseconds).
  const TimeNs wait = budget_.empty() && !shared_.options.loop.spin ? std::max<TimeNs>(0, wake_ns - clock_.now) : 0;
  last_events_ = engine_->wait(wait, *this);  // on_wake, then on_io per event
}

bool Worker::worth_coalescing(TimeNs wake_ns) const {
  // Not in the open model (arrivals are timed), nor without receive stamps (the
  // pause would be in the latency), nor when events come in batches already or
  // too few requests are in flight for a batch to form. --spin never sleeps, so
  // it never pauses either.
  return coalesce_ns_ > 0 && shared_.profile == nullptr && !shared_.options.loop.spin && budget_.empty() &&
         last_events_ > 0 && last_events_ < kCoalesceBelowEvents && exchange_.in_flight() >= kCoalesceMinInFlight &&
         wake_ns - clock_.now > coalesce_ns_;
}

void Worker::on_wake(TimeNs now_ns) {
  recorder_.waited(std::max<TimeNs>(0, now_ns - idle_from_ns_));  // the wait's own time, not its events'
  clock_.now = now_ns;
  if (const std::optional<TimeNs> reset_at = resets_.due(now_ns)) reset_stats(*reset_at);  // before this wake-up's events
  if (!clock_.draining) begin_drain(now_ns);
  budget_.begin(now_ns);
  // The connections left with unread bytes by earlier wake-ups, oldest first,
  // each with a fresh budget, until this wake-up's total budget is spent.
  for (std::size_t left = budget_.waiting(); left > 0 && !budget_.spent(); --left) {
    Connection& c = *budget_.oldest();
    if (transport_.read(c, 0)) ready(c);  // to the back if it still has more than its share
  }
}

void Worker::begin_drain(TimeNs now_ns) {
  const std::optional<TimeNs> end_ns = stop_rules_.drain_begins(now_ns);
  if (!end_ns) return;
  clock_.draining = true;  // the wait never sleeps past it
  // The interval it falls in ends there, before this wake-up's events: what they
  // send (a freed connection takes a due arrival) belongs to the drain.
  recorder_.cut_interval(*end_ns, now_ns, [this] { return gauges(); });
}

void Worker::on_io(io::Channel& channel, std::uint32_t flags, int err) {
  auto& c = static_cast<Connection&>(channel);
  switch (c.state) {
    case Connection::State::kConnecting:
      if ((flags & io::kConnected) != 0) pool_.on_connected(c, err);
      break;
    case Connection::State::kHandshaking:
      transport_.handshake_io(c, flags);
      break;
    case Connection::State::kOpen:
      if (pool_.held(c)) {  // read once the start gate opens (opened below): the session has not started
        c.unread_events |= flags & (io::kReadable | io::kPeerClosing);
        break;
      }
      if ((flags & io::kReadable) != 0 && transport_.read(c, flags)) ready(c);
      if (c.state == Connection::State::kOpen && c.write_blocked && (flags & io::kWritable) != 0) {
        (void)transport_.flush(c);
      }
      break;
    case Connection::State::kClosed:
    case Connection::State::kBackoff:
      break;  // a stale event for a socket closed earlier in this batch
  }
}

void Worker::ready(Connection& c) {
  if (c.state != Connection::State::kOpen || pool_.held(c)) return;
  driver_->fill(c);
  if (user_connections_) user_connections_->close_released();  // a user it stopped: not inside fill
  // c first: what the read left to send too (HTTP/2's acknowledgements).
  const bool written = transport_.flush(c);
  write_sent(&c);  // another connection a resumed user sent on
  if (!written) return;  // it failed and is reconnecting
  if (c.state == Connection::State::kOpen && exchange_.takes_no_more(c) && c.in_flight_count() == 0) {
    pool_.reopen(c);  // `Connection: close`, a GOAWAY, or --disable-keepalive
  }
}

void Worker::write_sent(const Connection* written) {
  // A scenario's stopped users' connections close after the driver's call, before the writes.
  if (user_connections_) user_connections_->close_released();
  if (writing_) return;  // the outer call takes what a write's reopen sent
  writing_ = true;
  while (exchange_.has_sent()) {
    if (!exchange_.take_sent(sent_)) {
      for (const auto& c : pool_.all()) {
        if (c->state == Connection::State::kOpen && !pool_.held(*c)) (void)transport_.flush(*c);
      }
      continue;
    }
    for (Connection* c : sent_) {
      // One that failed since it was given its request is reconnecting: nothing to write.
      if (c != written && c->state == Connection::State::kOpen) (void)transport_.flush(*c);
    }
    written = nullptr;  // a second pass: c may have been given another request
  }
  writing_ = false;
}

void Worker::opened(Connection& c) {
  exchange_.opened(c);
  ready(c);
  // What the server sent while the start gate held c (HTTP/2's SETTINGS, a server
  // that speaks first), read after the session's start as it would have been.
  if (c.state == Connection::State::kOpen && c.unread_events != 0 && transport_.read(c, 0)) ready(c);
}

void Worker::closing(Connection& c) {
  exchange_.abandon(c);
  driver_->forget(c);
  budget_.forget(c);
}

}  // namespace pacer::engine
