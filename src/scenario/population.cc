// See population.h. Starting reuses the spawn timers of --spawn-rate; stopping
// marks a user retiring, which ends it at its next task boundary
// (Users::task_boundary returns false, its coroutine returns, Users::resume
// calls stop_user) or at its retire time (a timer), whichever comes first.
#include "scenario/population.h"

#include <algorithm>

namespace pacer::scenario {

Population::Population(std::vector<User>& users, Agenda& agenda, UserScripts& scripts, UserTally& tally)
    : users_(users), agenda_(agenda), scripts_(scripts), tally_(tally) {}

void Population::prepare(Port& port, bool open_model, std::size_t typed_users) {
  port_ = &port;
  open_ = open_model;
  typed_users_ = typed_users;
}

void Population::start(TimeNs start_ns, int users, double spawn_rate_per_s) {
  if (open_) return;
  const std::size_t first = users < 0 ? users_.size() : std::min(users_.size(), static_cast<std::size_t>(users));
  for (std::size_t i = 0; i < first; ++i) {
    if (!(spawn_rate_per_s > 0)) {
      spawn(static_cast<int>(i), start_ns);
      continue;
    }
    const double at_s = static_cast<double>(users_[i].id) / spawn_rate_per_s;
    users_[i].spawn_due = true;
    users_[i].wake_ns = start_ns + static_cast<TimeNs>(at_s * 1e9);
    agenda_.add_timer(static_cast<int>(i), users_[i].wake_ns);
  }
}

bool Population::spawn(int index, TimeNs now_ns) {
  User& u = user(index);
  born_ = std::max(born_, index + 1);
  u.spawn_due = false;
  // Every type has a fixed count and they are all running: this user has none.
  if (u.id >= typed_users_) {
    u.state = User::State::kDead;
    return false;
  }
  scripts_.create(u);
  u.mark_ns = now_ns;
  u.cookies.clear();  // a new user, a new session
  tally_.user_started(u.type);
  ++running_;
  port_->connect(index);
  agenda_.queue(u, Resume::kStart);
  return true;
}

void Population::set_target(int users, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns) {
  if (open_) return;  // the open model's load is its rate
  const int target = std::clamp(users, 0, count());
  int started = 0;
  for (int i = 0; i < target; ++i) {
    User& u = user(i);
    if (u.retiring) {
      u.retiring = false;  // wanted again: it goes on
      continue;
    }
    if (u.state != User::State::kUnborn || u.spawn_due) continue;
    const double at_s = spawn_rate_per_s > 0 ? static_cast<double>(started++) / spawn_rate_per_s : 0.0;
    u.spawn_due = true;
    u.wake_ns = now_ns + static_cast<TimeNs>(at_s * 1e9);
    if (u.wake_ns <= now_ns) {
      spawn(i, now_ns);
    } else {
      agenda_.add_timer(i, u.wake_ns);
    }
  }
  for (int i = count() - 1; i >= target; --i) {
    User& u = user(i);
    if (u.state == User::State::kUnborn) {
      u.spawn_due = false;  // its timer finds it no longer due
    } else if (!u.retiring && u.co != nullptr) {
      retire(u, now_ns + std::max<TimeNs>(stop_timeout_ns, 0));
    }
  }
}

void Population::retire(User& u, TimeNs at_ns) {
  const bool between_tasks = !u.in_task && (u.state == User::State::kThinking || u.state == User::State::kIdle);
  if (between_tasks || u.state == User::State::kDead || at_ns <= port_->now()) {
    stop_user(u);
    return;
  }
  u.retiring = true;
  u.retire_ns = at_ns;
  agenda_.add_timer(u.index, at_ns);
}

void Population::stop_user(User& u) {
  if (u.co == nullptr) return;
  u.in_task = false;  // a task cut short is not counted (and is no error)
  u.retiring = false;
  scripts_.run_on_stop(u, "user stopped");
  scripts_.drop(u);
  u.state = User::State::kUnborn;
  u.spawn_due = false;
  u.started = false;
  u.task = -1;
  u.has_request = false;
  --running_;
  port_->release(u.index);
}

void Population::stop() {
  stopping_ = true;
  if (!scripts_.has_stop()) return;
  for (int i = 0; i < born_; ++i) {
    User& u = user(i);
    if (u.co == nullptr) continue;
    u.in_task = false;
    scripts_.run_on_stop(u, "run ended");
  }
}

}  // namespace pacer::scenario
