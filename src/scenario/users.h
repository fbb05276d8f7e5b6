// One worker's virtual users (issue 16): a LuaJIT coroutine per user, bound to
// the worker's connection of the same index, and the rules of when each runs.
// Users composes the parts and is what the engine's ScenarioDriver (and its UserPort)
// and the API's C functions (user_api.cc) hold:
//   user.h          a user's state, the Port
//   user_scripts.h  the Lua state, each user's coroutine, its resumes, on_stop
//   agenda.h        when each runs next: the ready queue and the timers
//   population.h    who exists: spawns, --spawn-rate, set_target, stops
//   open_tasks.h    the open model: tasks to free users, or the task backlog
//   user_tally.h    the counts: request names, tasks, checks, script errors
//   request_context.h  what requests are built against (Host, cookie origin)
//
// A user's coroutine runs the prelude's loop (scenario_load.cc) over the plan
// (scenario_plan.h): the user's type is fixed by its id; on_start, then tasks,
// each picked by weight (or in order, in a sequence), task sets entered and left
// by u:interrupt(). It gives control back only by yielding from the
// API (user_api.cc): a request (kWantsSend: the worker sends it when the
// user's connection can take it), u:sleep (kSleeping), or the end of a task
// (closed model: think time, kThinking; open model: kIdle, free for the next
// task). Events (a response, a failed request, a due timer, an arrival) never
// resume a coroutine where they happen: they queue the user (Agenda), and
// run_due() resumes the queued users in order, once per turn of the worker's
// loop, so no Lua runs inside the parser or the worker's bookkeeping.
//
// Timing (docs/scenarios.md): a step is due when the previous step finished
// (the response's receive stamp, or the failure) plus any u:sleep; a task's first
// step is due at the task's scheduled time (closed model: the end of the think
// time; open model: its arrival). Latency is measured from the due time.
//
// Per request: no C++ allocation (the request bytes go into the user's own
// buffer, capacity reused; names are indexes). Lua allocates its strings and the
// response table, as any Lua code does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"
#include "scenario/agenda.h"
#include "scenario/open_tasks.h"
#include "scenario/population.h"
#include "scenario/request_context.h"
#include "scenario/request_events.h"
#include "scenario/scenario_stats.h"
#include "scenario/user.h"
#include "scenario/user_scripts.h"
#include "scenario/user_tally.h"
#include "stats/name_table.h"
#include "watchdog/lua_watch.h"

namespace pacer::scenario {

class Users {
 public:
  // users: this worker's share (closed: -u; open: --max-users); worker/workers:
  // for u.id; backlog: room for tasks waiting for a user (open model); names:
  // the run's name table (request names; --max-names caps them), null: the
  // users' own (tests).
  Users(const Config& config, int worker, int workers, int users, std::size_t backlog,
        stats::NameTable* names = nullptr);
  ~Users();
  Users(const Users&) = delete;
  Users& operator=(const Users&) = delete;

  // Before the run, main thread: the file, the users' tables and response
  // captures (headers always, for the cookie jar; bodies when the file reads
  // them). beat: where their Lua calls are marked for the watchdog (null: none).
  Status prepare(Port& port, watchdog::LuaBeat* beat = nullptr);
  int count() const { return static_cast<int>(users_.size()); }
  User& user(int index) { return users_[static_cast<std::size_t>(index)]; }
  const User& user(int index) const { return users_[static_cast<std::size_t>(index)]; }

  // The run starts at start_ns: the closed model spawns users (--spawn-rate):
  // this worker's share of each type (engine::UserLoad's of a load
  // shape's or the web view's count); by default, every slot by the types' rules.
  void start(TimeNs start_ns, const TypeCounts& share);
  void start(TimeNs start_ns) { start(start_ns, counts_by_rules(types_, count())); }
  // The file's user types (after --tags), in plan order.
  const std::vector<UserType>& types() const { return types_; }
  // Timers due (spawns, sleeps, think times, retirements), then the queued resumes.
  void run_due(TimeNs now_ns);
  TimeNs next_due_ns() const;  // INT64_MAX when nothing waits; now when users are queued
  // The worker, outside the parser, right after a user's connection was read:
  // a user queued with its response resumes now, so its next request leaves in
  // this wake-up (as a script's request() would), not at the next turn.
  void resume_answered(int index);

  // The worker's events.
  std::string_view request_bytes(int index) const { return user(index).request; }
  void sent(int index) { user(index).state = User::State::kInFlight; }
  // done_ns: the response's receive stamp.
  // body_bytes: its body's length (the request's event, request_events.h).
  void on_response(int index, int status, TimeNs done_ns, bool recorded, std::uint64_t body_bytes = 0);
  void on_failed(int index, const char* error_class, TimeNs at_ns, bool recorded);
  // A redirect to the user's request is followed (RFC 6265 stores each hop's
  // cookies): its Set-Cookie headers go into the jar (as from answered_target), and
  // the Cookie line for next_target is returned ("" for none); null when the user's
  // request gave its own Cookie header (kept as it is).
  const std::string* on_redirect(int index, std::string_view answered_target, std::string_view next_target);
  // The run ended: on_stop for every user created (its requests are not sent);
  // the name rows get their text.
  void stop();
  ScenarioStats& stats() { return tally_.stats(); }

  // The end of on_start or of a task (next_task in the prelude, user_api.cc):
  // true if the coroutine yields (its next task comes later), false if it ends
  // (the run ends, or set_target stops the user).
  bool task_boundary(User& u, double wait_s);
  // Tasks ended so far (recorded or not): the engine's -n give-up asks whether
  // whole tasks went by without a request.
  std::uint64_t tasks_ended() const { return tasks_ended_; }

  // The parts, for the engine (population: set_target, running; open_tasks:
  // arrivals, the backlog) and the API (scripts: the running user, random;
  // tally: names, checks, errors; requests: Host, cookies).
  Population& population() { return population_; }
  OpenTasks& open_tasks() { return open_tasks_; }
  UserTally& tally() { return tally_; }
  UserScripts& scripts() { return scripts_; }
  // The request events (on_request): u's last request is final now, in L (its coroutine).
  void settle_event(User& u, lua_State* L) {
    if (events_.active()) events_.settle(L, u, tally_);  // no call per request without a listener
  }
  const RequestEvents& events() const { return events_; }
  const RequestContext& requests() const { return requests_; }
  RequestContext& requests() { return requests_; }

 private:
  void resume(int index);
  void after_yield(int index);  // the coroutine yielded: what its state asks for
  void set_up_users(bool captures, const std::vector<std::uint8_t>& type_of_id);

  const Config& config_;
  const int worker_;
  const int workers_;
  const bool open_;
  Port* port_ = nullptr;
  std::vector<User> users_;
  std::vector<UserType> types_;
  RequestContext requests_;
  UserScripts scripts_;
  UserTally tally_;
  RequestEvents events_;
  Agenda agenda_;
  Population population_;
  OpenTasks open_tasks_;
  std::uint64_t tasks_ended_ = 0;
};

}  // namespace pacer::scenario
