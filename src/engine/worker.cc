// The worker's loop and the routing between its parts. See worker.h.
#include "engine/worker.h"

#include <sys/prctl.h>

#include <algorithm>

#include "engine/drive/closed_driver.h"
#include "engine/drive/open_driver.h"
#include "engine/drive/scenario_driver.h"
#include "engine/loop/doorbell.h"
#include "io/select.h"

namespace pacer::engine {

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
      stop_rules_(shared.run_end),
      writer_(exchange_, pool_, transport_),
      router_(pool_, transport_, exchange_, budget_, writer_),
      waiter_(shared) {}

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
  transport_.prepare(*engine_, router_, exchange_.tap());
  pool_.prepare(*engine_, connection_count_, address, *sessions_, &exchange_, router_);
  if (script_) script_->prepare_connections(pool_.all());
  if (Status s = make_driver(); !s) return s;
  router_.set_driver(*driver_);
  const std::size_t slots = static_cast<std::size_t>(connection_count_) * shared_.slots_per_connection;
  exchange_.prepare(*driver_, slots);
  writer_.prepare(slots, user_connections_.get());
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
    driver_ = std::make_unique<OpenDriver>(shared_, worker_index_, pool_.all().size(), request_quota_, clock_,
                                           recorder_, exchange_, std::move(source));
    return Ok{};
  }
  WorkerScript* delay_script = script_ && script_->has_delay() ? script_.get() : nullptr;
  driver_ = std::make_unique<ClosedDriver>(shared_, request_quota_, clock_, recorder_, exchange_, std::move(source),
                                           delay_script, pool_.all().size() * shared_.slots_per_connection);
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
  writer_.write_sent();
  while (interrupted() == StopReason::kRunning) {
    turn();
    if (done() != StopReason::kRunning) break;
    waiter_.wait(*engine_, *this, clock_, next_wake_ns(), !budget_.empty(), {exchange_.in_flight(), exchange_.ended()});
  }
  scenario::ScenarioStats* scenario = driver_->stop();  // users' on_stop
  // The last interval closes before the connections do, so its gauges are the
  // run's last state rather than the teardown's (closing counts nothing), and
  // after on_stop, so its script errors are in it.
  recorder_.intervals().close(clock_.now, true, [this] { return gauges(); });
  recorder_.finish(clock_.now, scenario);
  pool_.close_all();
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
  writer_.write_sent();
  expire_timeouts();
  pool_.expire_connects();
  transport_.run_timers(pool_.all());
  driver_->on_turn(TurnPhase::kBacklog);
  writer_.write_sent();
  pool_.run_reconnects();
  driver_->on_turn(TurnPhase::kDue);
  writer_.write_sent();
  if (!clock_.draining) waiter_.sample(recorder_.intervals().sample_rate(clock_.now), clock_.stamps_seen);
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
      router_.ready(*expired->connection);
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
  return std::min(next, StopRules::next_due_ns(clock_.draining, shared_.end_ns));  // the drain begins
}

void Worker::on_wake(TimeNs now_ns) {
  recorder_.waited(waiter_.waited(now_ns));  // the wait's own time, not its events'
  clock_.now = now_ns;
  if (const std::optional<TimeNs> reset_at = resets_.due(now_ns)) reset_stats(*reset_at);  // before this wake-up's events
  if (!clock_.draining) begin_drain(now_ns);
  budget_.begin(now_ns);
  // The connections left with unread bytes by earlier wake-ups, oldest first,
  // each with a fresh budget, until this wake-up's total budget is spent.
  for (std::size_t left = budget_.waiting(); left > 0 && !budget_.spent(); --left) {
    Connection& c = *budget_.oldest();
    if (transport_.read(c, 0)) router_.ready(c);  // to the back if it still has more than its share
  }
}

void Worker::begin_drain(TimeNs now_ns) {
  const std::optional<TimeNs> end_ns = stop_rules_.drain_begins(now_ns, shared_.end_ns);
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
      if (pool_.held(c)) {  // read once the start gate opens (Router::opened): the session has not started
        ReadBudget::keep(c, flags);
        break;
      }
      if ((flags & io::kReadable) != 0 && transport_.read(c, flags)) router_.ready(c);
      if (c.state == Connection::State::kOpen && c.write_blocked && (flags & io::kWritable) != 0) {
        (void)transport_.flush(c);
      }
      break;
    case Connection::State::kClosed:
    case Connection::State::kBackoff:
      break;  // a stale event for a socket closed earlier in this batch
  }
}

}  // namespace pacer::engine
