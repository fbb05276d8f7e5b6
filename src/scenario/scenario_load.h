// Loading a scenario file (--scenario FILE) into a Lua state: the `pacer`
// table and the user API first, then the file, whose top level returns the user
// definition (or several); it is checked and made a plan (scenario_plan.h) kept in
// the registry beside the prelude's user loop. A scenario that does not load or
// whose definition is wrong is kBadInput (exit 2) naming the file.
#pragma once

#include <lua.hpp>

#include <string>
#include <vector>

#include "core/config.h"
#include "core/expected.h"
#include "scenario/scenario_plan.h"

namespace pacer::scenario {

class Users;

struct ScenarioShape {
  PlanShape plan;                   // the user types and their tasks
  bool captures = false;            // the file reads response headers or bodies
};

// Registry references load_scenario leaves in L.
struct ScenarioRefs {
  int definition = LUA_NOREF;   // the plan made of the table the file returned (scenario_plan.h)
  int user_loop = LUA_NOREF;    // function(u, plan, type): on_start, then the tasks (a coroutine's body)
  int stopper = LUA_NOREF;      // function(u, plan): on_stop of the user's task sets and type
  int user_meta = LUA_NOREF;    // the metatable of every u (u:get, u:post, ...)
  int response_meta = LUA_NOREF;
};

// users: the worker's users the API calls reach (null for the check on the main thread).
Result<ScenarioShape> load_scenario(lua_State* L, const Config& config, Users* users, ScenarioRefs& refs);

// Main thread, before anything runs: loads the file in a state of its own so a
// broken scenario exits 2 before any connection is made.
Status check_scenario(const Config& config);

// Whether the source may read a response's headers or body: it names `body`,
// `headers` or `json` as a word. A scenario that does not is given neither, and
// the parser copies nothing (the fast path of a plain run).
bool source_reads_responses(const std::string& code);

// Installs `pacer` (between, constant, random, args, url) and the user and
// response metatables (user_api.cc).
void install_api(lua_State* L, Users* users, const Config& config, ScenarioRefs& refs);
// Runs the prelude with the API's table of C functions on top of the stack
// (popped): sets refs.user_loop and refs.stopper.
void run_prelude(lua_State* L, ScenarioRefs& refs);

}  // namespace pacer::scenario
