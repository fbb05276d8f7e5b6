// See scenario_driver.h.
#include "engine/drive/scenario_driver.h"

#include <algorithm>

#include "engine/control/load_control.h"

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
                               Exchange& exchange)
    : shared_(shared),
      worker_index_(worker_index),
      clock_(clock),
      recorder_(recorder),
      exchange_(exchange),
      arrivals_(make_arrivals(shared, worker_index, clock, recorder, quota)),
      quota_(arrivals_ ? std::nullopt : quota),
      users_(make_users(shared, worker_index, connections, arrivals_)),
      links_(shared, connections),
      source_(shared, worker_index, nullptr, users_.get(), &links_),
      last_(static_cast<std::size_t>(connections)),
      drought_(!arrivals_ && quota.has_value() && !shared.config->duration_bounds_run(),
               shared.options.connect.give_up_ns) {}

Status ScenarioDriver::prepare(ConnectionPool& pool, watchdog::LuaBeat* beat) {
  pool_ = &pool;
  exchange_.tap().hold_outcomes();  // a user's check or u:success() comes after its response
  if (Status s = users_->prepare(*this, beat); !s) return s;
  for (const auto& c : pool.all()) c->http1->set_capture(&users_->user(c->index).capture);
  return Ok{};
}

void ScenarioDriver::start(ConnectionPool& pool) {
  drought_.request(clock_.now, 0);
  if (arrivals_) arrivals_->start();
  pool.start(clock_.now, ConnectionPool::Opening::kOnDemand);
  // Each user opens its own connection when it starts.
  if (shared_.control != nullptr && !shared_.control->is_rate()) {  // the open model's users are --max-users
    const LoadControl::Target target = shared_.control->target();
    control_seen_ = target.generation;
    users_->start(clock_.now, users_share(target.users, target.per_type));
  } else {
    users_->start(clock_.now);  // every slot
  }
}

scenario::TypeCounts ScenarioDriver::users_share(int users, const scenario::TypeCounts& per_type) const {
  const LoadOptions& load = shared_.options.load;
  const int workers = shared_.worker_count * load.shard_count;
  const scenario::TypeCounts test = per_type.empty() ? scenario::counts_by_rules(users_->types(), users) : per_type;
  // Every worker's slots: its share of the ids below the ceiling (as its users were allocated).
  std::vector<int> slots(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) slots[static_cast<std::size_t>(w)] = engine::users_share(shared_.control->ceiling(), w, workers);
  return scenario::worker_share(test, load.shard_index * shared_.worker_count + worker_index_, workers, slots);
}

void ScenarioDriver::follow_control() {
  if (shared_.control == nullptr || shared_.control->is_rate() || shared_.control->generation() == control_seen_ ||
      clock_.draining) {
    return;  // a rate control's changes are the arrivals' (Arrivals::follow_control)
  }
  const LoadControl::Target target = shared_.control->target();
  control_seen_ = target.generation;
  // The spawn rate is the run's: each worker starts its share of it.
  const double workers = static_cast<double>(shared_.worker_count * shared_.options.load.shard_count);
  users_->population().set_target(users_share(target.users, target.per_type), target.spawn_rate_per_s / workers,
                                  shared_.options.load.stop_timeout_ns, clock_.now);
}

void ScenarioDriver::finish_tasks() {
  finishing_ = true;
  // Each retires at its task's end.
  users_->population().set_target({}, 0, shared_.options.load.stop_timeout_ns, clock_.now);
}

bool ScenarioDriver::still_finishing(const Connection& c) const {
  return finishing_ && users_->user(links_.user_of(c)).retiring;
}

bool ScenarioDriver::wants_connection(Connection& c) {
  if (const std::uint8_t origin = links_.origin_of(c); origin != 0) {
    // Another origin's connection opens for the request waiting for it only
    // (the user's -n reservation is on its own connection: send_request).
    const scenario::User& u = users_->user(links_.user_of(c));
    return u.state == scenario::User::State::kWantsSend && u.origin == origin && (!clock_.draining || still_finishing(c));
  }
  if (clock_.draining) return still_finishing(c);
  return arrivals_ || quota_.claim(c, clock_.now, shared_.record_from_ns);
}

void ScenarioDriver::fill(Connection& c) {
  users_->resume_answered(links_.user_of(c));  // its user had a response: its next step now
  send_request(c);                   // its user's request, if it has one
}

void ScenarioDriver::send_request(Connection& c) {
  const int user = links_.user_of(c);
  scenario::User& u = users_->user(user);
  if (u.state != scenario::User::State::kWantsSend || u.origin != links_.origin_of(c) || exchange_.free_capacity(c) == 0) {
    return;
  }
  if (clock_.draining && !still_finishing(c)) return;
  Connection& own = pool_->at(user);  // the user's -n reservation is on its own connection, whichever origin it asks
  if (!arrivals_ && !quota_.claim(own, clock_.now, shared_.record_from_ns)) return;
  TimeNs t_sched = u.mark_ns;
  if (!send_from(source_, exchange_, c, t_sched)) return;
  if (!arrivals_) quota_.spend(own, recorder_.recorded(t_sched));
  drought_.request(clock_.now, users_->tasks_ended());
  users_->sent(user);
}

Connection* ScenarioDriver::connection_for(int user) {
  const scenario::User& u = users_->user(user);
  if (u.origin == 0) return &pool_->at(user);
  bool made = false;
  Connection* c = links_.connection(user, u.origin, users_->requests().origins().at(u.origin), *pool_, made);
  if (made) c->http1->set_capture(&users_->user(user).capture);  // its responses are the user's, as on its own
  if (c == nullptr) {  // its host does not resolve (the reason is the run's first error if it came first)
    recorder_.connections().note_error(0, links_.reason(u.origin).c_str());
    fail_unsent(user, &stats::ErrorCounts::connect, false);
    return nullptr;
  }
  if (c->state == Connection::State::kClosed) pool_->open(*c);
  return c;
}

void ScenarioDriver::fail_unsent(int user, ErrorField error, bool counted) {
  scenario::User& u = users_->user(user);
  if (!arrivals_) {  // a request all the same: it counts against -n
    Connection& own = pool_->at(user);
    if (!quota_.claim(own, clock_.now, shared_.record_from_ns)) return;  // -n reached: it waits, as any would
    quota_.spend(own, recorder_.recorded(u.mark_ns));
  }
  const bool recorded = recorder_.recorded(u.mark_ns);
  if (counted) {
    recorder_.failed_unsent(u.name, u.mark_ns, error);
  } else {
    recorder_.failed(u.name, u.mark_ns, error);
  }
  last_[static_cast<std::size_t>(user)].status = 0;
  last_[static_cast<std::size_t>(user)].connection = kNoRow;
  drought_.request(clock_.now, users_->tasks_ended());
  users_->sent(user);
  users_->on_failed(user, error_class_name(error), clock_.now, recorded);
}

void ScenarioDriver::forget(Connection& c) {
  const std::uint8_t origin = links_.origin_of(c);
  if (origin == 0 || closing_users_) return;
  const bool connecting = c.state == Connection::State::kConnecting;
  if (!connecting && c.state != Connection::State::kHandshaking) return;  // an open connection closes: not a set-up failure
  links_.connect_failed(c);  // its next address next time
  const int user = links_.user_of(c);
  const scenario::User& u = users_->user(user);
  if (u.state != scenario::User::State::kWantsSend || u.origin != origin) return;
  // The pool or the transport counted the failure for the run (connect, tls).
  fail_unsent(user, connecting ? &stats::ErrorCounts::connect : &stats::ErrorCounts::tls, true);
}

int ScenarioDriver::log_index(int user) const {
  const int connection = last_[static_cast<std::size_t>(user)].connection;
  return connection == -1 ? user : connection;
}

void ScenarioDriver::naming(Connection& c, RequestSlot& slot) {
  scenario::User& u = users_->user(links_.user_of(c));
  if (u.name_from == scenario::NameFrom::kCall || u.state != scenario::User::State::kInFlight) return;
  const std::string_view name = scenario::response_name(u.capture, u.name_from, u.name_where, name_scratch_);
  if (name.empty()) return;  // the call's default name stands
  const stats::NameId named = users_->tally().name_index(name);
  recorder_.renamed(slot.name, named, slot.t_sched);  // its send, counted under the call's name
  slot.name = named;
  u.name = named;
}

void ScenarioDriver::completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) {
  const int user = links_.user_of(c);
  last_[static_cast<std::size_t>(user)] = LastResponse{slot.name, slot.t_sched, status, c.index};
  users_->on_response(user, status, done_ns, recorded, c.session->body_bytes(slot.token));
}

void ScenarioDriver::redirected(Connection& c, const RequestSlot&) {
  proto::Redirector* chain = c.http1 != nullptr ? c.http1->redirector() : nullptr;
  if (chain == nullptr) return;
  if (const std::string* line = users_->on_redirect(links_.user_of(c), chain->answered_target(), chain->target())) {
    chain->replace_cookie_line(*line);
  }
}

void ScenarioDriver::failed(Connection& c, const RequestSlot&, ErrorField error, bool recorded) {
  const int user = links_.user_of(c);
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  last.status = 0;  // no response to call a success
  last.connection = c.index;
  users_->on_failed(user, error_class_name(error), clock_.now, recorded);
}

void ScenarioDriver::on_turn(TurnPhase phase) {
  if (phase == TurnPhase::kArrivals && arrivals_) {
    // An arrival is a task, for a free user (or the users' task backlog).
    arrivals_->follow_control();  // a new rate from the shape or the web view
    arrivals_->dispatch([this](TimeNs t_sched) { users_->open_tasks().start_task(t_sched); }, [] { return false; });
  } else if (phase == TurnPhase::kDue) {
    if (clock_.draining && !finishing_ && !arrivals_ && shared_.options.load.stop_timeout_ns > 0) finish_tasks();
    if (!clock_.draining && drought_.check(clock_.now, users_->tasks_ended(), static_cast<std::uint64_t>(users_->count()),
                                           exchange_.in_flight(), shared_.config->request_count.value_or(0))) {
      recorder_.connections().note_error(0, drought_.reason().c_str());  // the report's reason (unless an error came first)
      return;  // the users run no more
    }
    follow_control();
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
                      !finishing_ || users_->population().running() == 0};
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
  closing_users_ = true;  // the worker closes every connection next
  return &users_->stats();
}

void ScenarioDriver::connect(int user) {
  Connection& c = pool_->at(user);
  if (c.state == Connection::State::kClosed) pool_->open(c);
}

void ScenarioDriver::send(int user) {
  Connection* c = connection_for(user);
  if (c == nullptr || c->state != Connection::State::kOpen) return;  // sent once it opens (fill)
  send_request(*c);  // the worker writes it
}

void ScenarioDriver::give_up_task(TimeNs t_sched) {
  if (arrivals_ && recorder_.recorded(t_sched)) arrivals_->give_up(t_sched);
}

bool ScenarioDriver::mark_success(int user) {
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  if (last.status < 400 || !recorder_.recorded(last.t_sched)) return false;
  exchange_.tap().accepted(log_index(user));  // its log row too
  recorder_.succeeded(last.name, last.status, last.t_sched);
  last.status = 0;  // once
  return true;
}

void ScenarioDriver::release(int user) {
  // A request in flight is dropped: it was written (sent), and is neither a
  // response nor an error; its answer cannot reach the next user of the index.
  closing_users_ = true;  // what was in flight or connecting is dropped, not failed
  Connection& c = pool_->at(user);
  if (c.state != Connection::State::kClosed) pool_->close(c);
  links_.each_of(user, *pool_, [this](Connection& other) {
    if (other.state != Connection::State::kClosed) pool_->close(other);
    exchange_.tap().settle(other.index);
  });
  closing_users_ = false;
  last_[static_cast<std::size_t>(user)] = LastResponse{};
  exchange_.tap().settle(user);  // its last request's outcome is final
}

}  // namespace pacer::engine
