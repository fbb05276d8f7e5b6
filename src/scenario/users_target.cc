// Users::set_target: the closed model's changing user count (see users.h).
// Starting reuses the spawn timers of --spawn-rate; stopping marks a user
// retiring, which ends it at its next task boundary (task_boundary returns
// false, its coroutine returns, resume() calls stop_user) or at its retire time
// (a timer), whichever comes first. Worker thread, between resumes (never
// inside a coroutine: the engine calls it from its loop).
#include <algorithm>

#include "scenario/users.h"

namespace pacer::scenario {

void Users::set_target(int users, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns) {
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
      add_timer(i, u.wake_ns);
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

void Users::retire(User& u, TimeNs at_ns) {
  const bool between_tasks = !u.in_task && (u.state == User::State::kThinking || u.state == User::State::kIdle);
  if (between_tasks || u.state == User::State::kDead || at_ns <= port_->now()) {
    stop_user(u);
    return;
  }
  u.retiring = true;
  u.retire_ns = at_ns;
  add_timer(u.index, at_ns);
}

void Users::stop_user(User& u) {
  if (u.co == nullptr) return;
  u.in_task = false;  // a task cut short is not counted (and is no error)
  u.retiring = false;
  run_on_stop(u, "user stopped");
  lua_State* L = state_.get();
  luaL_unref(L, LUA_REGISTRYINDEX, u.co_ref);
  luaL_unref(L, LUA_REGISTRYINDEX, u.table_ref);
  u.co = nullptr;
  u.co_ref = LUA_NOREF;
  u.table_ref = LUA_NOREF;
  u.state = User::State::kUnborn;
  u.spawn_due = false;
  u.started = false;
  u.task = -1;
  u.has_request = false;
  --running_;
  port_->release(u.index);
}

}  // namespace pacer::scenario
