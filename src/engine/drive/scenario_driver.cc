// See scenario_driver.h.
#include "engine/drive/scenario_driver.h"

#include <algorithm>


namespace pacer::engine {

namespace {

std::unique_ptr<scenario::Users> make_users(const SharedRun& shared, int worker_index, int connections,
                                            const std::optional<Arrivals>& arrivals) {
  const Config& config = *shared.config;
  // The open model's task backlog: room for 10 s of tasks at the peak rate, as for requests.
  const std::size_t backlog = arrivals ? arrivals->backlog_capacity() : 0;
  const LoadOptions& load = shared.options.load;
  return std::make_unique<scenario::Users>(config, load.shard_index * shared.worker_count + worker_index,
                                           shared.worker_count * load.shard_count, connections, backlog, shared.names);
}

std::optional<Arrivals> make_arrivals(const SharedRun& shared, int worker_index, LoopClock& clock, Recorder& recorder,
                                      std::optional<std::uint64_t> quota) {
  if (shared.profile == nullptr) return std::nullopt;
  return std::optional<Arrivals>(std::in_place, shared, worker_index, clock, recorder, quota);
}

}  // namespace

ScenarioDriver::ScenarioDriver(const SharedRun& shared, int worker_index, int connections,
                               std::optional<std::uint64_t> quota, LoopClock& clock, Recorder& recorder,
                               Exchange& exchange, UserConnections& user_connections)
    : shared_(shared),
      clock_(clock),
      recorder_(recorder),
      exchange_(exchange),
      connections_(user_connections),
      arrivals_(make_arrivals(shared, worker_index, clock, recorder, quota)),
      quota_(arrivals_ ? std::nullopt : quota),
      users_(make_users(shared, worker_index, connections, arrivals_)),
      source_(shared, worker_index, nullptr, users_.get(), &user_connections.links()),
      drought_(!arrivals_ && quota.has_value() && !shared.config->duration_bounds_run(),
               shared.options.connect.give_up_ns),
      outcomes_(recorder, exchange.tap(), connections),
      load_(shared, worker_index, clock, *users_),
      port_(UserPort::Parts{shared, clock, recorder, exchange, user_connections, arrivals_, quota_, drought_, source_,
                            outcomes_, load_},
            *users_) {}

Status ScenarioDriver::prepare(watchdog::LuaBeat* beat) {
  exchange_.tap().hold_outcomes();  // a user's check or u:success() comes after its response
  if (Status s = users_->prepare(port_, beat); !s) return s;
  connections_.prepare(*users_);
  return Ok{};
}

void ScenarioDriver::start(ConnectionPool&) {
  drought_.request(clock_.now, 0);
  if (arrivals_) arrivals_->start();
  connections_.start(clock_.now);  // each user opens its own connection when it starts
  load_.start();
}

bool ScenarioDriver::wants_connection(Connection& c) {
  const int user = connections_.user_of(c);
  if (const std::uint8_t origin = connections_.origin_of(c); origin != 0) {
    // Another origin's connection opens for the request waiting for it only
    // (the user's -n reservation is on its own connection: UserPort::send_request).
    const scenario::User& u = users_->user(user);
    return u.state == scenario::User::State::kWantsSend && u.origin == origin &&
           (!clock_.draining || load_.still_finishing(user));
  }
  if (clock_.draining) return load_.still_finishing(user);
  return arrivals_ || quota_.claim(c, clock_.now, shared_.record_from_ns);
}

void ScenarioDriver::fill(Connection& c) {
  users_->resume_answered(connections_.user_of(c));  // its user had a response: its next step now
  if (connections_.usable(c)) port_.send_request(c);  // its user's request, if it has one
}

void ScenarioDriver::forget(Connection& c) {
  const std::uint8_t origin = connections_.origin_of(c);
  if (origin == 0 || connections_.releasing()) return;
  const bool connecting = c.state == Connection::State::kConnecting;
  if (!connecting && c.state != Connection::State::kHandshaking) return;  // an open connection closes: not a set-up failure
  connections_.connect_failed(c);  // its next address next time
  const int user = connections_.user_of(c);
  const scenario::User& u = users_->user(user);
  if (u.state != scenario::User::State::kWantsSend || u.origin != origin) return;
  // The pool or the transport counted the failure for the run (connect, tls).
  port_.fail_unsent(user, connecting ? &stats::ErrorCounts::connect : &stats::ErrorCounts::tls, true);
}

void ScenarioDriver::naming(Connection& c, RequestSlot& slot) {
  scenario::User& u = users_->user(connections_.user_of(c));
  if (u.name_from == scenario::NameFrom::kCall || u.state != scenario::User::State::kInFlight) return;
  const std::string_view name = scenario::response_name(u.capture, u.name_from, u.name_where, name_scratch_);
  if (name.empty()) return;  // the call's default name stands
  const stats::NameId named = users_->tally().name_index(name);
  recorder_.renamed(slot.name, named, slot.t_sched);  // its send, counted under the call's name
  slot.name = named;
  u.name = named;
}

void ScenarioDriver::completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) {
  const int user = connections_.user_of(c);
  outcomes_.completed(user, slot, status, c.index);
  users_->on_response(user, status, done_ns, recorded, c.session->body_bytes(slot.token));
}

void ScenarioDriver::redirected(Connection& c, const RequestSlot&) {
  proto::Redirector* chain = c.http1 != nullptr ? c.http1->redirector() : nullptr;
  if (chain == nullptr) return;
  if (const std::string* line = users_->on_redirect(connections_.user_of(c), chain->answered_target(), chain->target())) {
    chain->replace_cookie_line(*line);
  }
}

void ScenarioDriver::failed(Connection& c, const RequestSlot&, ErrorField error, bool recorded) {
  const int user = connections_.user_of(c);
  outcomes_.failed(user, c.index);
  users_->on_failed(user, error_class_name(error), clock_.now, recorded);
}

void ScenarioDriver::on_turn(TurnPhase phase) {
  if (phase == TurnPhase::kArrivals && arrivals_) {
    // An arrival is a task, for a free user (or the users' task backlog).
    arrivals_->follow_control();  // a new rate from the shape or the web view
    arrivals_->dispatch([this](TimeNs t_sched) { users_->open_tasks().start_task(t_sched); }, [] { return false; });
  } else if (phase == TurnPhase::kDue) {
    if (clock_.draining && !load_.finishing() && !arrivals_ && shared_.options.load.stop_timeout_ns > 0) {
      load_.finish_tasks();
    }
    if (!clock_.draining && drought_.check(clock_.now, users_->tasks_ended(), static_cast<std::uint64_t>(users_->count()),
                                           exchange_.in_flight(), shared_.config->request_count.value_or(0))) {
      recorder_.connections().note_error(0, drought_.reason().c_str());  // the report's reason (unless an error came first)
      return;  // the users run no more
    }
    load_.follow_control();
    if (arrivals_) users_->open_tasks().expire_backlog(clock_.now, clock_.draining ? 0 : arrivals_->limit_ns());
    users_->run_due(clock_.now);
  }
}

TimeNs ScenarioDriver::next_due_ns() const {
  const TimeNs users = std::min(users_->next_due_ns(), drought_.next_due_ns(clock_.now));
  return arrivals_ ? std::min(users, arrivals_->next_due_ns()) : users;
}

LoadProgress ScenarioDriver::progress() const {
  if (arrivals_) return LoadProgress{arrivals_->all_arrived(), arrivals_->drained()};
  // -n reached (or its users make no request: request_drought.h); in the drain,
  // the users' last tasks ended, or were cut.
  return LoadProgress{(quota_.used_up() && clock_.now >= shared_.record_from_ns) || drought_.gave_up(),
                      !load_.finishing() || users_->population().running() == 0};
}

void ScenarioDriver::reset_stats() { users_->stats().reset_counts(); }

void ScenarioDriver::gauges(IntervalGauges& out) const {
  out.backlog = users_->open_tasks().backlog_size();  // tasks waiting for a user
  out.users = static_cast<std::uint64_t>(users_->population().running());
  const scenario::ScenarioStats& s = users_->stats();
  out.scenario_totals = stats::ScenarioErrorCounts{s.check, s.script, s.check_on_errors};
}

scenario::ScenarioStats* ScenarioDriver::stop() {
  users_->stop();  // on_stop, the name rows' text
  connections_.end();  // the worker closes every connection next
  return &users_->stats();
}

}  // namespace pacer::engine
