// A scenario's per-request event and the totals its users add up (issue 42,
// Locust's `events.request` listener and a test_stop that prints what they
// counted). `on_request = function(r, u)` in the returned list is called once
// per request of every user, when the request's outcome is final: at the
// user's next step (a request, u:sleep), the end of its task, or its stop, so a
// u:fail or u:success on the response is in it, as the per-request log has it.
// r = {name, method, status (0: no response), latency_ms (from the step's due
// time, the figure of the Endpoints table), bytes (the body's length), error
// (nil, the error class, "status N", or u:fail's message)}. It runs in the
// user's worker, in its Lua state: no lock. `pacer.totals` is each worker's own
// table; after the run its numbers are summed by key across the workers (and
// shards, by pacer merge), given to on_test_stop as its `pacer.totals` and kept
// in the report (scenario.totals). One worker thread.
#pragma once

#include <lua.hpp>


#include "scenario/scenario_stats.h"
#include "scenario/user.h"
#include "scenario/user_tally.h"

namespace pacer::scenario {

class RequestEvents {
 public:
  // Before the run: the plan's on_request (at the top of nothing: the plan by its registry reference).
  void prepare(lua_State* L, int definition_ref);
  bool active() const { return listener_ref_ != LUA_NOREF; }

  // u's request was made (its due time u.mark_ns): its event waits for its outcome.
  void began(User& u) const;
  // u's last request is final: the listener is called in L (u's coroutine while it
  // runs, else the worker's state) with its event; an error in it is a `script`
  // error of the hook "on_request" (tally).
  void settle(lua_State* L, User& u, UserTally& tally) const;

 private:
  int listener_ref_ = LUA_NOREF;
};

// Creates `pacer.totals` (an empty table) in L: before the scenario file runs.
void create_totals(lua_State* L);
// The number fields of L's `pacer.totals`, added to stats.totals by key.
void collect_totals(lua_State* L, ScenarioStats& stats);
// Sets L's `pacer.totals` fields to the run's totals (on_test_stop's state).
void publish_totals(lua_State* L, const ScenarioStats& stats);

}  // namespace pacer::scenario
