// See population.h. Starting reuses the spawn timers of --spawn-rate; stopping
// marks a user retiring, which ends it at its next task boundary
// (Users::task_boundary returns false, its coroutine returns, Users::resume
// calls stop_user) or at its retire time (a timer), whichever comes first.
#include "scenario/population.h"

#include <algorithm>

namespace pacer::scenario {

Population::Population(std::vector<User>& users, Agenda& agenda, UserScripts& scripts, UserTally& tally,
                       const RequestEvents& events)
    : users_(users), agenda_(agenda), scripts_(scripts), tally_(tally), events_(events) {}

void Population::prepare(Port& port, bool open_model, std::size_t typed_users, const std::vector<UserType>& types) {
  port_ = &port;
  types_ = &types;
  open_ = open_model;
  typed_users_ = typed_users;
}

void Population::start(TimeNs start_ns, const TypeCounts& want, double spawn_rate_per_s) {
  if (open_) return;
  const std::vector<int> order = spawn_order(*types_, want);
  const std::size_t first = std::min(users_.size(), order.size());
  for (std::size_t i = 0; i < first; ++i) {
    users_[i].type = static_cast<std::uint8_t>(order[i]);
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
  // The open model: every type has a fixed count and they are all running: this user has none.
  if (open_ && u.id >= typed_users_) {
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

namespace {
// A user set_target counts for its type: running (or ended, not yet stopped) or
// due to start, and not leaving.
bool holds(const User& u) {
  if (u.state == User::State::kUnborn) return u.spawn_due;
  return u.co != nullptr && !u.retiring && !u.stop_due;
}
}  // namespace

void Population::set_target(const TypeCounts& want, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns) {
  if (open_) return;  // the open model's load is its rate
  stop_timeout_ns_ = std::max<TimeNs>(stop_timeout_ns, 0);
  const auto wanted = [&](std::size_t type) { return type < want.size() ? std::max(want[type], 0) : 0; };
  staying_.fill(0);
  for (const User& u : users_) {
    if (holds(u)) ++staying_[u.type];
  }
  // Users leaving whose type is wanted again go on, the lowest index first.
  for (User& u : users_) {
    if (!(u.retiring || u.stop_due) || u.co == nullptr || staying_[u.type] >= wanted(u.type)) continue;
    u.retiring = false;  // its retire timer finds it no longer retiring
    u.stop_due = false;  // its stop timer finds it no longer due
    ++staying_[u.type];
  }
  // Types past their count, from the highest index: a user due to start no
  // longer is (its timer finds it not due), the others leave at the rate.
  int leaving = 0;
  for (int i = count() - 1; i >= 0; --i) {
    User& u = user(i);
    if (!holds(u) || staying_[u.type] <= wanted(u.type)) continue;
    --staying_[u.type];
    if (u.state == User::State::kUnborn) {
      u.spawn_due = false;
    } else {
      leave(u, leaving++, spawn_rate_per_s, now_ns);
    }
  }
  // Types short of their count: new users in the free slots, the types interleaved.
  TypeCounts need(want.size(), 0);
  for (std::size_t t = 0; t < want.size(); ++t) need[t] = std::max(wanted(t) - staying_[t], 0);
  std::size_t slot = 0;
  int arriving = 0;
  for (const int type : spawn_order(*types_, need)) {
    while (slot < users_.size() && (users_[slot].state != User::State::kUnborn || users_[slot].spawn_due)) ++slot;
    if (slot == users_.size()) break;  // no slot left: the users allocated hold the count
    arrive(users_[slot], type, arriving++, spawn_rate_per_s, now_ns);
  }
}

void Population::leave(User& u, int k, double spawn_rate_per_s, TimeNs now_ns) {
  const double at_s = spawn_rate_per_s > 0 ? static_cast<double>(k) / spawn_rate_per_s : 0.0;
  const TimeNs at_ns = now_ns + static_cast<TimeNs>(at_s * 1e9);
  if (at_ns <= now_ns) {
    u.stop_due = false;
    retire(u, now_ns + stop_timeout_ns_);
    return;
  }
  u.stop_due = true;  // a timer armed before for another time is stale: stop_ns no longer matches
  u.stop_ns = at_ns;
  agenda_.add_timer(u.index, at_ns);
}

void Population::arrive(User& u, int type, int k, double spawn_rate_per_s, TimeNs now_ns) {
  const double at_s = spawn_rate_per_s > 0 ? static_cast<double>(k) / spawn_rate_per_s : 0.0;
  u.type = static_cast<std::uint8_t>(type);
  u.spawn_due = true;
  u.wake_ns = now_ns + static_cast<TimeNs>(at_s * 1e9);
  if (u.wake_ns <= now_ns) {
    spawn(u.index, now_ns);
  } else {
    agenda_.add_timer(u.index, u.wake_ns);
  }
}

void Population::stop_timer(User& u, TimeNs at_ns) {
  u.stop_due = false;
  if (u.retiring || u.co == nullptr) return;
  retire(u, at_ns + stop_timeout_ns_);
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
  u.stop_due = false;
  if (events_.active()) events_.settle(scripts_.state(), u, tally_);  // its last request, before on_stop's
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
  if (!scripts_.has_stop() && !events_.active()) return;
  for (int i = 0; i < born_; ++i) {
    User& u = user(i);
    if (u.co == nullptr) continue;
    if (events_.active()) events_.settle(scripts_.state(), u, tally_);
    if (!scripts_.has_stop()) continue;
    u.in_task = false;
    scripts_.run_on_stop(u, "run ended");
  }
}

}  // namespace pacer::scenario
