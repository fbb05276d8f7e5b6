// See request_events.h.
#include "scenario/request_events.h"

#include <algorithm>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "script/lua_state.h"

namespace pacer::scenario {

namespace {

void set_string(lua_State* L, const char* key, std::string_view value) {
  lua_pushlstring(L, value.data(), value.size());
  lua_setfield(L, -2, key);
}

void set_number(lua_State* L, const char* key, double value) {
  lua_pushnumber(L, value);
  lua_setfield(L, -2, key);
}

// The request's method: the first word of its bytes.
std::string_view method_of(const User& u) {
  const std::string_view bytes = u.request;
  return bytes.substr(0, std::min(bytes.find(' '), bytes.size()));
}

// Pushes pacer.totals of L (nil when there is none).
void push_totals(lua_State* L) {
  lua_getglobal(L, "pacer");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "totals");
    lua_remove(L, -2);
  }
}

}  // namespace

void RequestEvents::prepare(lua_State* L, int definition_ref) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, definition_ref);
  lua_getfield(L, -1, "on_request");
  lua_remove(L, -2);
  if (lua_isfunction(L, -1)) {
    listener_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
  }
}

void RequestEvents::began(User& u) const {
  if (!active()) return;
  u.event_pending = true;
  u.event_due_ns = u.mark_ns;
  u.check_message.clear();
}

void RequestEvents::settle(lua_State* L, User& u, UserTally& tally) const {
  if (!u.event_pending) return;
  u.event_pending = false;
  // A request with no outcome (still to be sent, or in flight when its user was
  // stopped) is dropped, not counted: it has no event either.
  if (u.state == User::State::kWantsSend || u.state == User::State::kInFlight) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, listener_ref_);
  lua_createtable(L, 0, 6);
  set_string(L, "name", tally.name_text(u.name));
  set_string(L, "method", method_of(u));
  set_number(L, "status", u.status);
  set_number(L, "latency_ms", static_cast<double>(u.mark_ns - u.event_due_ns) / 1e6);
  set_number(L, "bytes", static_cast<double>(u.body_bytes));
  if (u.checked) {
    set_string(L, "error", u.check_message);
  } else if (u.error != nullptr) {
    set_string(L, "error", u.error);
  } else if (u.last_failed && u.status >= 400) {
    set_string(L, "error", fmt::format("status {}", u.status));
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, u.table_ref);
  if (lua_pcall(L, 2, 0, 0) == 0) return;
  const std::string message = script::pop_error(L);
  tally.script_error(u, message.empty() ? "error" : message, "on_request");
}

void create_totals(lua_State* L) {
  lua_getglobal(L, "pacer");
  if (lua_istable(L, -1)) {
    lua_newtable(L);
    lua_setfield(L, -2, "totals");
  }
  lua_pop(L, 1);
}

void collect_totals(lua_State* L, ScenarioStats& stats) {
  push_totals(L);
  if (lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      // Only string keys (lua_tolstring would turn a number key into a string under lua_next) and number values.
      if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TNUMBER) {
        stats.add_total(lua_tostring(L, -2), lua_tonumber(L, -1));
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
}

void publish_totals(lua_State* L, const ScenarioStats& stats) {
  push_totals(L);
  if (lua_istable(L, -1)) {
    for (const auto& [key, value] : stats.totals) {
      lua_pushnumber(L, value);
      lua_setfield(L, -2, key.c_str());
    }
  }
  lua_pop(L, 1);
}

}  // namespace pacer::scenario
