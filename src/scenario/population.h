// Which of the worker's users exist: each is created (spawned: its coroutine,
// its connection opened, queued to start) and stopped here. The closed model
// starts its users at --spawn-rate and follows a changing user count
// (set_target: a load shape, the web view's POST /users); the open model
// creates them as its tasks need (OpenTasks). At the run's end every user
// created runs on_stop. One worker thread, between resumes (never inside a
// coroutine).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "core/clock.h"
#include "scenario/agenda.h"
#include "scenario/request_events.h"
#include "scenario/type_mix.h"
#include "scenario/user.h"
#include "scenario/user_scripts.h"
#include "scenario/user_tally.h"

namespace pacer::scenario {

class Population {
 public:
  // users: the worker's users (index = connection), which the Population creates and stops.
  // events: a stopped user's last request gets its event before on_stop.
  Population(std::vector<User>& users, Agenda& agenda, UserScripts& scripts, UserTally& tally,
             const RequestEvents& events);

  // Before the run: users whose id is typed_users or more have no type (every
  // type has a fixed count, all taken): they never start.
  // types: the file's user types (the order new users of several types start in).
  void prepare(Port& port, bool open_model, std::size_t typed_users, const std::vector<UserType>& types);

  // Closed model, the run starts at start_ns: this worker's share of each type
  // (type_mix.h) starts in the first slots, the types interleaved, spawn_rate_per_s
  // apart by id (0: at once). The open model starts none.
  void start(TimeNs start_ns, const TypeCounts& want, double spawn_rate_per_s);
  // Creates user `index` at now_ns (its first step is due then) and queues its
  // first resume; false when it has no type (it is kDead, never started).
  bool spawn(int index, TimeNs now_ns);

  // Closed model, a changing user count (issue 27: a load shape, the web view's
  // POST /users), called by the engine when it changes, with this worker's
  // share of each type (want[t]; a type past its end: none). A type short of
  // its count gets new users in the free slots (the lowest first), the types
  // interleaved, started at spawn_rate_per_s (0: at once) from now_ns; a user
  // leaving whose type is wanted again goes on. A type past its count loses
  // users from the highest index at the same rate (as Locust stops them: the
  // k-th at now_ns + k / rate): each then ends its current task (at most
  // stop_timeout_ns; 0: at once, its task cut and not counted), runs on_stop
  // (its requests not sent), and its connection is released (Port::release).
  // A stopped user is no error, and a user started again later is a new one
  // (on_start again). More users than the slots are held at the slots. Call it
  // after start().
  void set_target(const TypeCounts& want, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns);
  // u's stop timer (set_target's ramp-down) at at_ns: it begins to stop.
  void stop_timer(User& u, TimeNs at_ns);
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
  // set_target's: u leaves k-th of this change (at now_ns + k / rate).
  void leave(User& u, int k, double spawn_rate_per_s, TimeNs now_ns);
  // set_target's: a free slot becomes a user of type `type`, started k-th.
  void arrive(User& u, int type, int k, double spawn_rate_per_s, TimeNs now_ns);

  std::vector<User>& users_;
  Agenda& agenda_;
  UserScripts& scripts_;
  UserTally& tally_;
  const RequestEvents& events_;
  Port* port_ = nullptr;
  bool open_ = false;
  bool stopping_ = false;
  std::size_t typed_users_ = 0;
  const std::vector<UserType>* types_ = nullptr;
  TimeNs stop_timeout_ns_ = 0;  // the latest set_target's
  std::array<int, 256> staying_{};  // set_target's: users per type running or due, not leaving
  int born_ = 0;
  int running_ = 0;
};

}  // namespace pacer::scenario
