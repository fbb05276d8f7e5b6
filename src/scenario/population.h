// Which of the worker's users exist: each is created (spawned: its coroutine,
// its connection opened, queued to start) and stopped here. The closed model
// starts its users at --spawn-rate and follows a changing user count
// (set_target: a load shape, the web view's POST /users); the open model
// creates them as its tasks need (OpenTasks). At the run's end every user
// created runs on_stop. One worker thread, between resumes (never inside a
// coroutine).
#pragma once

#include <cstddef>
#include <vector>

#include "core/clock.h"
#include "scenario/agenda.h"
#include "scenario/user.h"
#include "scenario/user_scripts.h"
#include "scenario/user_tally.h"

namespace pacer::scenario {

class Population {
 public:
  // users: the worker's users (index = connection), which the Population creates and stops.
  Population(std::vector<User>& users, Agenda& agenda, UserScripts& scripts, UserTally& tally);

  // Before the run: users whose id is typed_users or more have no type (every
  // type has a fixed count, all taken): they never start.
  void prepare(Port& port, bool open_model, std::size_t typed_users);

  // Closed model, the run starts at start_ns: the first `users` users (-1: all)
  // start, spawn_rate_per_s apart by id (0: at once). The open model starts none.
  void start(TimeNs start_ns, int users, double spawn_rate_per_s);
  // Creates user `index` at now_ns (its first step is due then) and queues its
  // first resume; false when it has no type (it is kDead, never started).
  bool spawn(int index, TimeNs now_ns);

  // Closed model, a changing user count (issue 27: a load shape, the web view's
  // POST /users), called by the engine about once a second with this worker's
  // share: users 0..users-1 run, the missing ones started at spawn_rate_per_s
  // (0: at once) from now_ns; the ones past it stop from the highest index:
  // each ends its current task (at most stop_timeout_ns; 0: at once, its task
  // cut and not counted), runs on_stop (its requests not sent), and its
  // connection is released (Port::release). A stopped user is no error, and a
  // user started again later is a new one (on_start again). users is clamped
  // to 0..count(). Call it after start().
  void set_target(int users, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns);
  // u stops now (set_target's, at its task's end or its retire time): on_stop,
  // its connection released, back to kUnborn.
  void stop_user(User& u);

  // The run ended: no user starts a task any more; on_stop for every user created.
  void stop();
  bool stopping() const { return stopping_; }

  int born() const { return born_; }        // users created so far are 0..born()-1
  int running() const { return running_; }  // users started and not stopped

 private:
  User& user(int index) { return users_[static_cast<std::size_t>(index)]; }
  int count() const { return static_cast<int>(users_.size()); }
  // set_target's: u stops at its next task boundary, or at at_ns whatever it does.
  void retire(User& u, TimeNs at_ns);

  std::vector<User>& users_;
  Agenda& agenda_;
  UserScripts& scripts_;
  UserTally& tally_;
  Port* port_ = nullptr;
  bool open_ = false;
  bool stopping_ = false;
  std::size_t typed_users_ = 0;
  int born_ = 0;
  int running_ = 0;
};

}  // namespace pacer::scenario
