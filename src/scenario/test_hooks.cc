// See test_hooks.h.
#include "scenario/test_hooks.h"

#include <fmt/format.h>

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

}  // namespace

TestHooks::TestHooks(script::LuaStatePtr state, int definition_ref, std::string path)
    : state_(std::move(state)), definition_ref_(definition_ref), path_(std::move(path)) {}

Result<std::unique_ptr<TestHooks>> TestHooks::start(const Config& config) {
  script::LuaStatePtr state = script::new_lua_state();
  ScenarioRefs refs;
  auto shape = load_scenario(state.get(), config, nullptr, refs);
  if (!shape) return shape.error();
  auto hooks = std::make_unique<TestHooks>(std::move(state), refs.definition, config.scenario_path);
  if (std::string error = call_hook(hooks->state_.get(), refs.definition, "on_test_start"); !error.empty()) {
    return runtime_error(fmt::format("scenario {}: on_test_start: {}", config.scenario_path, error));
  }
  return hooks;
}

Status TestHooks::stop() {
  if (stopped_) return Ok{};
  stopped_ = true;
  if (std::string error = call_hook(state_.get(), definition_ref_, "on_test_stop"); !error.empty()) {
    return runtime_error(fmt::format("scenario {}: on_test_stop: {}", path_, error));
  }
  return Ok{};
}

}  // namespace pacer::scenario
