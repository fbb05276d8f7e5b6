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
      source_(shared, worker_index, nullptr, users_.get()),
      last_(static_cast<std::size_t>(connections)) {}

Status ScenarioDriver::prepare(ConnectionPool& pool, watchdog::LuaBeat* beat) {
  pool_ = &pool;
  exchange_.tap().hold_outcomes();  // a user's check or u:success() comes after its response
  if (Status s = users_->prepare(*this, beat); !s) return s;
  for (const auto& c : pool.all()) c->http1->set_capture(&users_->user(c->index).capture);
  return Ok{};
}

void ScenarioDriver::start(ConnectionPool& pool) {
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
  return finishing_ && users_->user(c.index).retiring;
}

bool ScenarioDriver::wants_connection(Connection& c) {
  if (clock_.draining) return still_finishing(c);
  return arrivals_ || quota_.claim(c, clock_.now, shared_.record_from_ns);
}

void ScenarioDriver::fill(Connection& c) {
  users_->resume_answered(c.index);  // its user had a response: its next step now
  send_request(c);                   // its user's request, if it has one
}

void ScenarioDriver::send_request(Connection& c) {
  scenario::User& u = users_->user(c.index);
  if (u.state != scenario::User::State::kWantsSend || exchange_.free_capacity(c) == 0) return;
  if (clock_.draining && !still_finishing(c)) return;
  if (!arrivals_ && !quota_.claim(c, clock_.now, shared_.record_from_ns)) return;
  TimeNs t_sched = u.mark_ns;
  if (!send_from(source_, exchange_, c, t_sched)) return;
  if (!arrivals_) quota_.spend(c, recorder_.recorded(t_sched));
  users_->sent(c.index);
}

void ScenarioDriver::naming(Connection& c, RequestSlot& slot) {
  scenario::User& u = users_->user(c.index);
  if (u.name_from == scenario::NameFrom::kCall || u.state != scenario::User::State::kInFlight) return;
  const std::string_view name = scenario::response_name(u.capture, u.name_from, u.name_where, name_scratch_);
  if (name.empty()) return;  // the call's default name stands
  const stats::NameId named = users_->tally().name_index(name);
  recorder_.renamed(slot.name, named, slot.t_sched);  // its send, counted under the call's name
  slot.name = named;
  u.name = named;
}

void ScenarioDriver::completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) {
  last_[static_cast<std::size_t>(c.index)] = LastResponse{slot.name, slot.t_sched, status};
  users_->on_response(c.index, status, done_ns, recorded, c.session->body_bytes(slot.token));
}

void ScenarioDriver::redirected(Connection& c, const RequestSlot&) {
  proto::Redirector* chain = c.http1 != nullptr ? c.http1->redirector() : nullptr;
  if (chain == nullptr) return;
  if (const std::string* line = users_->on_redirect(c.index, chain->answered_target(), chain->target())) {
    chain->replace_cookie_line(*line);
  }
}

void ScenarioDriver::failed(Connection& c, const RequestSlot&, ErrorField error, bool recorded) {
  last_[static_cast<std::size_t>(c.index)].status = 0;  // no response to call a success
  users_->on_failed(c.index, error_class_name(error), clock_.now, recorded);
}

void ScenarioDriver::on_turn(TurnPhase phase) {
  if (phase == TurnPhase::kArrivals && arrivals_) {
    // An arrival is a task, for a free user (or the users' task backlog).
    arrivals_->follow_control();  // a new rate from the shape or the web view
    arrivals_->dispatch([this](TimeNs t_sched) { users_->open_tasks().start_task(t_sched); }, [] { return false; });
  } else if (phase == TurnPhase::kDue) {
    if (clock_.draining && !finishing_ && !arrivals_ && shared_.options.load.stop_timeout_ns > 0) finish_tasks();
    follow_control();
    if (arrivals_) users_->open_tasks().expire_backlog(clock_.now, clock_.draining ? 0 : arrivals_->limit_ns());
    users_->run_due(clock_.now);
  }
}

TimeNs ScenarioDriver::next_due_ns() const {
  const TimeNs users = users_->next_due_ns();
  return arrivals_ ? std::min(users, arrivals_->next_due_ns()) : users;
}

LoadProgress ScenarioDriver::progress() const {
  if (arrivals_) return LoadProgress{arrivals_->all_arrived(), arrivals_->drained()};
  // -n reached; in the drain, the users' last tasks ended, or were cut.
  return LoadProgress{quota_.used_up() && clock_.now >= shared_.record_from_ns,
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
  return &users_->stats();
}

void ScenarioDriver::connect(int user) {
  Connection& c = pool_->at(user);
  if (c.state == Connection::State::kClosed) pool_->open(c);
}

void ScenarioDriver::send(int user) {
  Connection& c = pool_->at(user);
  if (c.state != Connection::State::kOpen) return;  // sent once it opens (fill)
  send_request(c);  // the worker writes it
}

void ScenarioDriver::give_up_task(TimeNs t_sched) {
  if (arrivals_ && recorder_.recorded(t_sched)) arrivals_->give_up(t_sched);
}

bool ScenarioDriver::mark_success(int user) {
  LastResponse& last = last_[static_cast<std::size_t>(user)];
  if (last.status < 400 || !recorder_.recorded(last.t_sched)) return false;
  exchange_.tap().accepted(user);  // its log row too
  recorder_.succeeded(last.name, last.status, last.t_sched);
  last.status = 0;  // once
  return true;
}

void ScenarioDriver::release(int user) {
  // A request in flight is dropped: it was written (sent), and is neither a
  // response nor an error; its answer cannot reach the next user of the index.
  Connection& c = pool_->at(user);
  if (c.state != Connection::State::kClosed) pool_->close(c);
  last_[static_cast<std::size_t>(user)] = LastResponse{};
  exchange_.tap().settle(user);  // its last request's outcome is final
}

}  // namespace pacer::engine
