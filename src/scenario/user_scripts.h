// The users' Lua side: the worker's own LuaJIT state (the scenario file loaded
// in it, scenario_load.h), each user's coroutine and table, its resumes (marked
// on the watchdog's beat with the task it runs) and on_stop. Which user runs
// and when is not its business (Users, Agenda): it runs the coroutine it is
// given, with what the user's resume_kind says. One worker thread.
#pragma once

#include <lua.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/expected.h"
#include "scenario/scenario_load.h"
#include "scenario/user.h"
#include "scenario/weighted_pick.h"
#include "script/lua_state.h"
#include "watchdog/lua_watch.h"

namespace pacer::scenario {

class Users;

class UserScripts {
 public:
  // worker: the seed of pacer.random's stream (with --seed).
  UserScripts(const Config& config, int worker);
  ~UserScripts();
  UserScripts(const UserScripts&) = delete;
  UserScripts& operator=(const UserScripts&) = delete;

  // Before the run, main thread: a new state with the file loaded; api: what the
  // API's C functions act on (user_api.cc). The file's errors are kBadInput.
  Result<ScenarioShape> load(Users* api);
  // The worker's beat (watchdog/lua_watch.h; null: none): every resume marks it
  // with the task it runs, so a task that never yields can be named and left behind.
  void set_beat(watchdog::LuaBeat* beat) { beat_ = beat; }

  // u's coroutine and table (u.id set), its body's arguments waiting for the first resume.
  void create(User& u);
  enum class Outcome : std::uint8_t {
    kYielded,   // u waits for something (its state says what)
    kReturned,  // its coroutine ended
    kFailed,    // it ended with an error outside the prelude's (error_text)
  };
  // Resumes u's coroutine with what u.resume_kind says; u is kIdle unless the API's yield said otherwise.
  Outcome resume(User& u);
  // After kFailed: the error's text.
  std::string_view error_text(const User& u) const;
  // on_stop for u (if the file has one), in a coroutine of its own; its requests
  // are answered at once with status 0 and the error `why`.
  void run_on_stop(User& u, const char* why);
  // u's coroutine and table are let go (u.co null).
  void drop(User& u);

  // The user whose coroutine runs now (null outside a resume).
  User* current() const { return current_; }
  bool has_stop() const { return has_stop_; }
  // The worker's state and the plan in it (the request events, request_events.h).
  lua_State* state() const { return state_.get(); }
  int definition_ref() const { return refs_.definition; }
  // pacer.random(): the worker's stream, in [0, 1).
  double random() { return rng_.uniform(); }

 private:
  const char* beat_label(const User& u) const;

  const Config& config_;
  script::LuaStatePtr state_;
  ScenarioRefs refs_;
  watchdog::LuaBeat* beat_ = nullptr;
  std::vector<std::string> beat_labels_;  // per task "the scenario's task 'NAME'", then the hooks' label
  bool has_stop_ = false;
  Rng rng_;
  User* current_ = nullptr;
};

// Pushes u's last response (status, error, and headers and body when captured)
// as a table with the response metatable (user_api.cc).
void push_response(lua_State* L, const User& u, int response_meta_ref);

}  // namespace pacer::scenario
