// See scenario_load.h. The prelude (Lua) holds the user loop every coroutine
// runs (it walks the plan, scenario_plan.h) and the on_stop runner; Lua errors
// inside on_start, a task, wait and on_stop are caught there (xpcall) and
// reported through the API's script_error, so a failing task ends and its user
// goes on. u:interrupt() is an error carrying the API's marker, caught by the
// task set it leaves.
#include "scenario/scenario_load.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "scenario/request_events.h"
#include "script/lua_state.h"

namespace pacer::scenario {

namespace {

// Called with the table of the API's C functions; returns the user loop and the
// on_stop runner.
constexpr const char* kPrelude = R"lua(
local C = ...
local xpcall, tostring, tonumber, type, random = xpcall, tostring, tonumber, type, C.random or math.random
local next_task, script_error, task_is, INTERRUPT = C.next_task, C.script_error, C.task_is, C.interrupt_marker
local function handler(e)
  if type(e) == "table" and e[1] == INTERRUPT then return e end
  if type(e) ~= "string" then return tostring(e) end
  return e
end
local function is_interrupt(e) return type(e) == "table" and e[1] == INTERRUPT end
local function message(e) return is_interrupt(e) and "u:interrupt() outside a task set" or e end
local users = setmetatable({}, {__mode = "k"})  -- u -> {type, stack of the task sets it is in}

local function pick(set, cursor)
  local entries = set.entries
  if set.sequential then
    if cursor.left == 0 then
      cursor.i = cursor.i % #entries + 1
      cursor.left = entries[cursor.i].weight
    end
    cursor.left = cursor.left - 1
    return entries[cursor.i]
  end
  local x, cum = random() * set.total, set.cum
  for i = 1, #cum do
    if x < cum[i] then return entries[i] end
  end
  return entries[#entries]
end
local function call_hook(u, f, name)
  if not f then return nil end
  local ok, err = xpcall(f, handler, u)
  if ok then return nil end
  if is_interrupt(err) then return err end
  script_error(u, err, name)
  return nil
end
local function wait_of(u, set)
  local wait = set.wait
  if type(wait) == "number" then return wait end
  if not wait then return 0 end
  local ok, v = xpcall(wait, handler, u)
  if ok then return tonumber(v) or 0 end
  script_error(u, message(v), "wait")
  return 0
end

-- on_start, then the tasks of the user's type: each picked by weight (or in
-- order in a sequence); a task set runs its own tasks until u:interrupt().
-- next_task ends a task and waits (the wait given), or returns 0 when the run ends.
local function user_loop(u, plan, k)
  local ty = plan.types[k]
  local stack = {}
  users[u] = {ty = ty, stack = stack}
  local early = call_hook(u, ty.on_start, "on_start")
  if early then script_error(u, message(early), "on_start") end
  local need, w = true, 0
  local function run_set(set, top)  -- returns reschedule (interrupted), or nil, true (the run ended)
    local cursor = {i = 0, left = 0}
    if not top then
      stack[#stack + 1] = set
      local stop = call_hook(u, set.on_start, "on_start")
      if stop then
        call_hook(u, set.on_stop, "on_stop")
        stack[#stack] = nil
        return stop[2]
      end
    end
    while true do
      if need then
        if next_task(u, w) == 0 then return nil, true end
        need = false
      end
      local e = pick(set, cursor)
      if e.set then
        local reschedule, ended = run_set(e.set, false)
        if ended then return nil, true end
        need, w = true, reschedule and 0 or wait_of(u, set)
      else
        task_is(u, e.leaf)
        local ok, err = xpcall(plan.leaves[e.leaf].fn, handler, u)
        if not ok and is_interrupt(err) and not top then
          call_hook(u, set.on_stop, "on_stop")
          stack[#stack] = nil
          return err[2]
        end
        if not ok then script_error(u, message(err), "task") end
        need, w = true, wait_of(u, set)
      end
    end
  end
  run_set(ty.root, true)
end
-- The run ended: the on_stop of the task sets the user is in (innermost first), then its type's.
local function stopper(u, plan)
  local state = users[u]
  if not state then return end
  for i = #state.stack, 1, -1 do call_hook(u, state.stack[i].on_stop, "on_stop") end
  call_hook(u, state.ty.on_stop, "on_stop")
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

}  // namespace

bool source_reads_responses(const std::string& code) {
  for (std::string_view word : {"body", "headers", "json", "name_from"}) {
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
  create_totals(L);  // pacer.totals, before the file runs (request_events.h)
  const std::string chunk = "@" + std::filesystem::path(path).filename().string();
  if (luaL_loadbuffer(L, code->data(), code->size(), chunk.c_str()) != 0) {
    return bad_input("scenario " + path + ": " + script::pop_error(L));
  }
  if (lua_pcall(L, 0, 1, 0) != 0) return bad_input("scenario " + path + ": " + script::pop_error(L));
  auto plan = build_plan(L, config);
  if (!plan) return plan.error();
  ScenarioShape shape{std::move(*plan), source_reads_responses(*code)};
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
