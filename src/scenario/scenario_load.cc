// See scenario_load.h. The prelude (Lua) holds the user loop every coroutine
// runs and the on_stop runner; Lua errors inside on_start, a task, wait and
// on_stop are caught there (xpcall) and reported through the API's
// script_error, so a failing task ends and its user goes on.
#include "scenario/scenario_load.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "script/lua_state.h"

namespace pacer::scenario {

namespace {

// Called with the table of the API's C functions; returns the user loop and the
// on_stop runner.
constexpr const char* kPrelude = R"lua(
local C = ...
local xpcall, tostring, tonumber, type = xpcall, tostring, tonumber, type
local next_task, script_error = C.next_task, C.script_error
local function handler(e)
  if type(e) ~= "string" then return tostring(e) end
  return e
end
local function user_loop(u, def)
  local tasks, wait = def.tasks, def.wait
  if def.on_start then
    local ok, err = xpcall(def.on_start, handler, u)
    if not ok then script_error(u, err, "on_start") end
  end
  local w = 0
  while true do
    local i = next_task(u, w)
    if i == 0 then return end
    local ok, err = xpcall(tasks[i][2], handler, u)
    if not ok then script_error(u, err, "task") end
    w = 0
    if type(wait) == "number" then
      w = wait
    elseif wait then
      local okw, v = xpcall(wait, handler, u)
      if okw then w = tonumber(v) or 0 else script_error(u, v, "wait") end
    end
  end
end
local function stopper(u, def)
  if def.on_stop then
    local ok, err = xpcall(def.on_stop, handler, u)
    if not ok then script_error(u, err, "on_stop") end
  end
end
return user_loop, stopper
)lua";

Result<std::string> read_source(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return bad_input("scenario " + path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return bad_input("scenario " + path + ": cannot open: " + std::strerror(errno));
  std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (code.starts_with("#")) code.replace(0, code.find('\n') == std::string::npos ? code.size() : code.find('\n'), "");
  return code;
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The task at the top of the stack (an entry of def.tasks, number i): its weight
// and name, or why it is not one.
Result<std::pair<double, std::string>> check_task(lua_State* L, int i, const std::string& file) {
  if (!lua_istable(L, -1)) {
    return bad_input(fmt::format("scenario {}: tasks[{}] is a {}, not {{weight, function}}", file, i, luaL_typename(L, -1)));
  }
  lua_rawgeti(L, -1, 1);
  const bool is_number = lua_type(L, -1) == LUA_TNUMBER;
  const double weight = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (!is_number || !(weight > 0) || !std::isfinite(weight)) {
    return bad_input(fmt::format("scenario {}: tasks[{}]: the weight (first field) must be a positive number", file, i));
  }
  lua_rawgeti(L, -1, 2);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1);
    return bad_input(fmt::format("scenario {}: tasks[{}]: the second field must be a function", file, i));
  }
  lua_Debug ar{};
  lua_getinfo(L, ">S", &ar);  // pops the function
  std::string name = fmt::format("{}:{}", ar.short_src, ar.linedefined);
  lua_rawgeti(L, -1, 3);
  if (lua_type(L, -1) == LUA_TSTRING) name = lua_tostring(L, -1);
  lua_pop(L, 1);
  return std::make_pair(weight, name);
}

Status check_optional_function(lua_State* L, const char* field, const std::string& file) {
  lua_getfield(L, -1, field);
  const bool ok = lua_isnil(L, -1) || lua_isfunction(L, -1);
  lua_pop(L, 1);
  if (!ok) return bad_input(fmt::format("scenario {}: user.{} must be a function", file, field));
  return Ok{};
}

// The definition at the top of the stack.
Result<ScenarioShape> check_definition(lua_State* L, const std::string& file) {
  if (!lua_istable(L, -1)) {
    return bad_input(fmt::format("scenario {}: the file must return the user definition (a table), not a {}", file,
                                 luaL_typename(L, -1)));
  }
  ScenarioShape shape;
  lua_getfield(L, -1, "tasks");
  const int count = lua_istable(L, -1) ? static_cast<int>(lua_objlen(L, -1)) : 0;
  if (count == 0) {
    lua_pop(L, 1);
    return bad_input(fmt::format("scenario {}: user.tasks is missing or empty (a list of {{weight, function}})", file));
  }
  for (int i = 1; i <= count; ++i) {
    lua_rawgeti(L, -1, i);
    auto task = check_task(L, i, file);
    lua_pop(L, 1);
    if (!task) {
      lua_pop(L, 1);
      return task.error();
    }
    shape.weights.push_back(task->first);
    shape.names.push_back(task->second);
  }
  lua_pop(L, 1);
  for (const char* hook : {"on_start", "on_stop"}) {
    if (Status s = check_optional_function(L, hook, file); !s) return s.error();
  }
  lua_getfield(L, -1, "wait");
  const bool wait_ok = lua_isnil(L, -1) || lua_isfunction(L, -1) || (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 0);
  lua_pop(L, 1);
  if (!wait_ok) {
    return bad_input(fmt::format("scenario {}: user.wait must be pacer.between(a, b), pacer.constant(s), a function "
                                 "or a number of seconds", file));
  }
  return shape;
}

}  // namespace

bool source_reads_responses(const std::string& code) {
  for (std::string_view word : {"body", "headers", "json"}) {
    for (std::size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
      const bool starts = at == 0 || !is_word_char(code[at - 1]);
      const bool ends = at + word.size() == code.size() || !is_word_char(code[at + word.size()]);
      if (starts && ends) return true;
    }
  }
  return false;
}

Result<ScenarioShape> load_scenario(lua_State* L, const Config& config, Users* users, ScenarioRefs& refs) {
  const std::string& path = config.scenario_path;
  auto code = read_source(path);
  if (!code) return code.error();
  install_api(L, users, config, refs);
  const std::string chunk = "@" + std::filesystem::path(path).filename().string();
  if (luaL_loadbuffer(L, code->data(), code->size(), chunk.c_str()) != 0) {
    return bad_input("scenario " + path + ": " + script::pop_error(L));
  }
  if (lua_pcall(L, 0, 1, 0) != 0) return bad_input("scenario " + path + ": " + script::pop_error(L));
  auto shape = check_definition(L, path);
  if (!shape) {
    lua_pop(L, 1);
    return shape.error();
  }
  shape->captures = source_reads_responses(*code);
  refs.definition = luaL_ref(L, LUA_REGISTRYINDEX);
  return shape;
}

Status check_scenario(const Config& config) {
  script::LuaStatePtr state = script::new_lua_state(config.lua_memory_bytes);
  ScenarioRefs refs;
  auto shape = load_scenario(state.get(), config, nullptr, refs);
  if (!shape) return shape.error();
  return Ok{};
}

// Runs the prelude with the API table on top of the stack (user_api.cc calls it).
void run_prelude(lua_State* L, ScenarioRefs& refs) {
  if (luaL_loadbuffer(L, kPrelude, std::strlen(kPrelude), "=pacer-scenario") != 0) std::abort();
  lua_insert(L, -2);
  if (lua_pcall(L, 1, 2, 0) != 0) std::abort();
  refs.stopper = luaL_ref(L, LUA_REGISTRYINDEX);
  refs.user_loop = luaL_ref(L, LUA_REGISTRYINDEX);
}

}  // namespace pacer::scenario
