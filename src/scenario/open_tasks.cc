// See open_tasks.h.
#include "scenario/open_tasks.h"

namespace pacer::scenario {

OpenTasks::OpenTasks(std::size_t backlog, std::vector<User>& users, Agenda& agenda, Population& population)
    : users_(users), agenda_(agenda), population_(population), backlog_(backlog) {
  free_.reserve(users.size());
}

void OpenTasks::start_task(TimeNs t_sched) {
  if (!free_.empty()) {
    User& u = users_[static_cast<std::size_t>(free_.back())];
    free_.pop_back();
    agenda_.give_task(u, t_sched);
    return;
  }
  if (!backlog_.push(t_sched)) {
    port_->give_up_task(t_sched);
    return;
  }
  // A new user for each task that no user starting up will take.
  const int born = population_.born();
  if (born < static_cast<int>(users_.size()) && static_cast<std::size_t>(starting_) < backlog_.size() &&
      population_.spawn(born, port_->now())) {
    ++starting_;
  }
}

void OpenTasks::expire_backlog(TimeNs now_ns, TimeNs limit_ns) {
  TimeNs t_sched = 0;
  while (backlog_.take_expired(now_ns, limit_ns, t_sched)) port_->give_up_task(t_sched);
}

void OpenTasks::user_free(User& u, bool through_start) {
  if (!through_start && starting_ > 0) --starting_;  // through on_start
  TimeNs t_sched = 0;
  if (backlog_.take(t_sched)) {
    agenda_.give_task(u, t_sched);
    return;
  }
  u.state = User::State::kIdle;
  free_.push_back(u.index);
}

}  // namespace pacer::scenario
