// See test_hooks.h.
#include "scenario/test_hooks.h"

#include <cmath>

#include <fmt/format.h>

#include "core/clock.h"
#include "scenario/request_events.h"
#include "scenario/scenario_load.h"

namespace pacer::scenario {
namespace {

// Calls plan[hook]() if the file gave it; its error message, or empty.
std::string call_hook(lua_State* L, int definition_ref, const char* hook) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, definition_ref);
  lua_getfield(L, -1, hook);
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    return {};
  }
  if (lua_pcall(L, 0, 0, 0) == 0) return {};
  std::string message = script::pop_error(L);
  return message.empty() ? "error" : message;
}

// A shape must answer at once: the main thread waits on it, and nothing else
// would end a shape that never returns. The count hook (the hooks' state runs
// without the JIT, whose compiled loops skip hooks) checks the deadline kept in
// the registry.
constexpr TimeNs kShapeBudgetNs = kNsPerS;
constexpr const char* kDeadlineKey = "pacer.shape_deadline";

void shape_deadline_hook(lua_State* L, lua_Debug*) {
  lua_getfield(L, LUA_REGISTRYINDEX, kDeadlineKey);
  const auto deadline = static_cast<TimeNs>(lua_tonumber(L, -1));
  lua_pop(L, 1);
  if (monotonic_now_ns() > deadline) luaL_error(L, "it ran for more than 1 s (a shape must return at once)");
}

}  // namespace

TestHooks::TestHooks(script::LuaStatePtr state, int definition_ref, std::string path, PlanShape plan)
    : state_(std::move(state)),
      definition_ref_(definition_ref),
      path_(std::move(path)),
      has_shape_(plan.has_load_shape),
      types_(std::move(plan.types)) {}

Result<std::unique_ptr<TestHooks>> TestHooks::start(const Config& config) {
  script::LuaStatePtr state = script::new_lua_state();
  luaJIT_setmode(state.get(), 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);  // so the shape's deadline hook runs
  ScenarioRefs refs;
  auto shape = load_scenario(state.get(), config, nullptr, refs);
  if (!shape) return shape.error();
  auto hooks = std::make_unique<TestHooks>(std::move(state), refs.definition, config.scenario_path,
                                           std::move(shape->plan));
  if (std::string error = call_hook(hooks->state_.get(), refs.definition, "on_test_start"); !error.empty()) {
    return runtime_error(fmt::format("scenario {}: on_test_start: {}", config.scenario_path, error));
  }
  return hooks;
}

Status TestHooks::stop(const ScenarioStats* run) {
  if (stopped_) return Ok{};
  stopped_ = true;
  if (run != nullptr) publish_totals(state_.get(), *run);  // what the users added up
  if (std::string error = call_hook(state_.get(), definition_ref_, "on_test_stop"); !error.empty()) {
    return runtime_error(fmt::format("scenario {}: on_test_stop: {}", path_, error));
  }
  return Ok{};
}

Result<std::optional<ShapeStep>> TestHooks::shape_at(double run_s, bool rate) {
  lua_State* L = state_.get();
  const int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, definition_ref_);
  lua_getfield(L, -1, "shape");
  lua_remove(L, -2);
  if (!lua_isfunction(L, -1)) {
    lua_settop(L, top);
    return std::optional<ShapeStep>{};
  }
  lua_pushnumber(L, static_cast<double>(monotonic_now_ns() + kShapeBudgetNs));
  lua_setfield(L, LUA_REGISTRYINDEX, kDeadlineKey);
  lua_sethook(L, shape_deadline_hook, LUA_MASKCOUNT, 10000);
  lua_pushnumber(L, run_s);
  const int failed = lua_pcall(L, 1, 3, 0);
  lua_sethook(L, nullptr, 0, 0);
  if (failed != 0) {
    std::string message = script::pop_error(L);
    lua_settop(L, top);
    return runtime_error(fmt::format("at {:.1f} s: {}", run_s, message.empty() ? "error" : message));
  }
  const auto bad = [&](std::string_view what) {
    lua_settop(L, top);
    return runtime_error(fmt::format(
        "at {:.1f} s it returned {}: the shape returns {}, or nil to end the run", run_s, what,
        rate ? "a rate of tasks per second >= 0 (the open model, -R)"
             : "a whole number of users >= 0 or a count per type ({A = n, ...}), and a spawn rate >= 0 and a list "
               "of the types the number is for, each optional"));
  };
  // The results: value (-3), spawn rate (-2), types (-1).
  if (lua_isnil(L, -3)) {
    lua_settop(L, top);
    return std::optional<ShapeStep>{};
  }
  const auto whole_users = [](double n) { return n >= 0 && n <= 1e9 && n == std::floor(n); };
  ShapeStep step;
  if (lua_istable(L, -3) && !rate) {
    // A count per type: {A = 10, B = 40}.
    lua_pushnil(L);
    while (lua_next(L, -4) != 0) {
      if (lua_type(L, -2) != LUA_TSTRING) return bad("a table whose keys are not user type names");
      const double n = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
      if (!whole_users(n)) return bad(fmt::format("a count for '{}' that is not a whole number >= 0", lua_tostring(L, -2)));
      step.counts.emplace_back(lua_tostring(L, -2), static_cast<int>(n));
      step.users = static_cast<int>(std::min(static_cast<double>(step.users) + n, 1e9));
      lua_pop(L, 1);
    }
    if (!lua_isnil(L, -1)) return bad("counts per type and a list of types (give one of them)");
  } else {
    if (lua_type(L, -3) != LUA_TNUMBER) return bad(fmt::format("a {}", luaL_typename(L, -3)));
    const double users = lua_tonumber(L, -3);
    if (rate) {
      if (!(users >= 0 && std::isfinite(users))) return bad(fmt::format("a rate of {}", users));
      lua_settop(L, top);
      step.rate_per_s = users;
      return std::optional<ShapeStep>{std::move(step)};
    }
    if (!whole_users(users)) return bad(fmt::format("{} users", users));
    step.users = static_cast<int>(users);
    if (!lua_isnil(L, -1)) {  // Locust's user_classes: the types the count is for
      if (!lua_istable(L, -1) || lua_objlen(L, -1) == 0) return bad("types that are not a list of user type names");
      for (int i = 1; i <= static_cast<int>(lua_objlen(L, -1)); ++i) {
        lua_rawgeti(L, -1, i);
        if (lua_type(L, -1) != LUA_TSTRING) return bad("types that are not a list of user type names");
        step.types.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
      }
    }
  }
  if (!lua_isnil(L, -2)) {
    if (lua_type(L, -2) != LUA_TNUMBER) return bad(fmt::format("a spawn rate that is a {}", luaL_typename(L, -2)));
    const double spawn_rate = lua_tonumber(L, -2);
    if (!(spawn_rate >= 0 && std::isfinite(spawn_rate))) return bad(fmt::format("a spawn rate of {}", spawn_rate));
    step.spawn_rate_per_s = spawn_rate;
  }
  lua_settop(L, top);
  return std::optional<ShapeStep>{std::move(step)};
}

}  // namespace pacer::scenario
