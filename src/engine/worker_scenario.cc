// The worker's side of a scenario (--scenario, issue 16): the Port through which
// the users (src/scenario/users.h) open their connections and send, and the
// few calls the loop makes into them. User i owns connection i. See worker.h.
#include "engine/worker.h"

namespace pacer::engine {

class ScenarioPort final : public scenario::Port {
 public:
  explicit ScenarioPort(Worker& worker) : w_(worker) {}
  void connect(int user) override {
    Connection& c = *w_.connections_[static_cast<std::size_t>(user)];
    if (c.state != Connection::State::kClosed) return;
    if (w_.adopted_fd_.valid()) {
      w_.open_adopted(c);
    } else {
      w_.start_connect(c);
    }
  }
  void send(int user) override {
    Connection& c = *w_.connections_[static_cast<std::size_t>(user)];
    if (c.state != Connection::State::kOpen) return;  // sent once it opens (connection_ready)
    w_.scenario_send(c);
    if (c.in_flight_count() > 0) w_.flush(c);
  }
  TimeNs now() const override { return w_.now_; }
  bool recorded(TimeNs t_sched) const override { return w_.is_recorded(t_sched); }
  void give_up_task(TimeNs t_sched) override {
    if (w_.is_recorded(t_sched)) w_.give_up_arrival(t_sched);
  }

 private:
  Worker& w_;
};

Status Worker::prepare_scenario() {
  const Config& config = *shared_.config;
  // The open model's task backlog: room for 10 s of tasks at the peak rate, as for requests.
  std::size_t backlog = 0;
  if (shared_.profile != nullptr) {
    const double share = shared_.profile->peak_rate() / (shared_.worker_count * config.shard_count);
    backlog = static_cast<std::size_t>(std::clamp(share * 10.0, 1024.0, 4.0 * 1024 * 1024));
  }
  users_ = std::make_unique<scenario::Users>(config, config.shard_index * shared_.worker_count + worker_index_,
                                             shared_.worker_count * config.shard_count, connection_count_, backlog);
  users_->set_name_table(shared_.names);
  scenario_port_ = std::make_unique<ScenarioPort>(*this);
  if (Status s = users_->prepare(*scenario_port_); !s) return s;
  if (users_->captures()) {
    for (auto& c : connections_) c->http1->set_capture(&users_->user(c->index).capture);
  }
  return Ok{};
}

void Worker::scenario_turn() {
  if (is_open()) users_->expire_backlog(now_, draining_ ? 0 : backlog_limit_ns());
  users_->run_due(now_);
}

void Worker::scenario_send(Connection& c) {
  scenario::User& u = users_->user(c.index);
  if (u.state != scenario::User::State::kWantsSend || draining_ || free_capacity(c) == 0) return;
  if (send_request(c, u.mark_ns)) users_->sent(c.index);
}

void Worker::scenario_failed(Connection& c, std::uint64_t stats::ErrorCounts::*error, bool recorded) {
  const char* error_class = "error";
  for (const auto& field : stats::ErrorCounts::kFields) {
    if (field.member == error) error_class = field.name;
  }
  users_->on_failed(c.index, error_class, now_, recorded);
}

}  // namespace pacer::engine
