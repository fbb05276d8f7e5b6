// See thread_script.h. The thread object is a userdata holding a ThreadScript*;
// the ThreadScript outlives every state that can see it (the host owns both).
#include "script/thread_script.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "proto/http1_parser.h"
#include "script/wrk_api.h"

namespace pacer::script {

namespace {

constexpr const char* kThreadType = "wrk.thread";

ThreadScript& check_thread(lua_State* L) {
  return **static_cast<ThreadScript**>(luaL_checkudata(L, 1, kThreadType));
}

// thread:get(name): a copy of the thread state's global `name`.
int thread_get(lua_State* L) {
  ThreadScript& t = check_thread(L);
  const char* name = luaL_checkstring(L, 2);
  lua_State* from = t.state();
  lua_getglobal(from, name);
  const char* bad = copy_value(from, L, -1);
  lua_pop(from, 1);
  if (bad != nullptr) return luaL_error(L, "cannot transfer '%s' from thread", bad);
  return 1;
}

// thread:set(name, value): sets the thread state's global `name` to a copy.
int thread_set(lua_State* L) {
  ThreadScript& t = check_thread(L);
  const char* name = luaL_checkstring(L, 2);
  lua_settop(L, 3);
  lua_State* to = t.state();
  if (const char* bad = copy_value(L, to, 3)) return luaL_error(L, "cannot transfer '%s' to thread", bad);
  lua_setglobal(to, name);
  return 0;
}

// thread:stop(): that thread ends its run after the current wake-up.
int thread_stop(lua_State* L) {
  check_thread(L).request_stop();
  return 0;
}

int thread_index(lua_State* L) {
  ThreadScript& t = check_thread(L);
  const char* key = luaL_checkstring(L, 2);
  if (std::strcmp(key, "get") == 0) {
    lua_pushcfunction(L, &thread_get);
  } else if (std::strcmp(key, "set") == 0) {
    lua_pushcfunction(L, &thread_set);
  } else if (std::strcmp(key, "stop") == 0) {
    lua_pushcfunction(L, &thread_stop);
  } else if (std::strcmp(key, "addr") == 0) {
    push_address(L, t.address());
  } else if (std::strcmp(key, "id") == 0) {
    lua_pushinteger(L, t.index());  // pacer: 0-based thread number
  } else {
    lua_pushnil(L);
  }
  return 1;
}

int thread_newindex(lua_State* L) {
  ThreadScript& t = check_thread(L);
  const char* key = luaL_checkstring(L, 2);
  if (std::strcmp(key, "addr") != 0) return luaL_error(L, "cannot set '%s' on thread", key);
  t.set_address(check_address(L, 3));
  return 0;
}

// os.exit in a worker's state ends the process at once, as in wrk; what was
// printed so far is flushed first.
int exit_now(lua_State* L) {
  int code = EXIT_SUCCESS;
  if (lua_isboolean(L, 1)) {
    code = lua_toboolean(L, 1) != 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } else if (!lua_isnoneornil(L, 1)) {
    code = static_cast<int>(luaL_checkinteger(L, 1));
  }
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

ThreadScript::ThreadScript(int index, const net::Address& address) : index_(index), address_(address) {}

Status ThreadScript::load(const Config& config) {
  state_ = new_lua_state(config.lua_memory_bytes);
  lua_State* L = state_.get();
  if (Status loaded = load_wrk_script(L, config); !loaded) return loaded;
  lua_getglobal(L, "wrk");
  push_thread_object(L);
  lua_setfield(L, -2, "thread");
  lua_pop(L, 1);
  lua_getglobal(L, "os");
  lua_pushcfunction(L, &exit_now);
  lua_setfield(L, -2, "exit");
  lua_pop(L, 1);
  return Ok{};
}

Status ThreadScript::init(const Config& config) {
  lua_State* L = state_.get();
  lua_getglobal(L, "wrk");
  lua_getfield(L, -1, "init");
  lua_createtable(L, static_cast<int>(config.script_args.size()), 1);
  lua_pushstring(L, config.target.url.c_str());
  lua_rawseti(L, -2, 0);
  for (std::size_t i = 0; i < config.script_args.size(); ++i) {
    lua_pushstring(L, config.script_args[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  if (lua_pcall(L, 1, 0, 0) != 0) {
    Error e = bad_input("script " + config.script_path + ": in init: " + pop_error(L));
    lua_pop(L, 1);
    return e;
  }
  lua_getfield(L, -1, "request");
  if (lua_pcall(L, 0, 1, 0) != 0) {
    Error e = bad_input("script " + config.script_path + ": building the request: " + pop_error(L));
    lua_pop(L, 1);
    return e;
  }
  std::size_t len = 0;
  const char* bytes = lua_tolstring(L, -1, &len);
  if (bytes != nullptr) static_request_.assign(bytes, len);
  lua_pop(L, 2);
  has_request_ = has_global_function(L, "request");
  has_response_ = has_global_function(L, "response");
  has_delay_ = has_global_function(L, "delay");
  return Ok{};
}

int ThreadScript::new_connection_table() {
  lua_State* L = state_.get();
  lua_newtable(L);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

Status ThreadScript::request(int connection_ref, std::string& out, std::string* name) {
  lua_State* L = state_.get();
  lua_getglobal(L, "request");
  lua_rawgeti(L, LUA_REGISTRYINDEX, connection_ref);
  {
    const watchdog::InLua in_lua(beat_, "the script's request()");
    if (Status called = protected_call(L, 1, 2); !called) return called;
  }
  std::size_t len = 0;
  const char* bytes = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : nullptr;
  if (bytes == nullptr) {
    Error e = runtime_error(std::string("request() must return a string, got ") + luaL_typename(L, -2));
    lua_pop(L, 2);
    return e;
  }
  // The second value names the request (the report's Endpoints); nil: unnamed.
  const int name_type = lua_type(L, -1);
  if (name_type != LUA_TNIL && name_type != LUA_TSTRING) {
    Error e = runtime_error(std::string("request()'s second value (the request's name) must be a string or nil, got ") +
                            luaL_typename(L, -1));
    lua_pop(L, 2);
    return e;
  }
  out.assign(bytes, len);
  if (name != nullptr) {
    std::size_t name_len = 0;
    const char* text = name_type == LUA_TSTRING ? lua_tolstring(L, -1, &name_len) : nullptr;
    if (text != nullptr) {
      name->assign(text, name_len);
    } else {
      name->clear();
    }
  }
  lua_pop(L, 2);
  return Ok{};
}

Status ThreadScript::response(int status, std::string_view fields, std::string_view body, int connection_ref) {
  lua_State* L = state_.get();
  lua_getglobal(L, "response");
  lua_pushinteger(L, status);
  lua_createtable(L, 0, 8);
  proto::for_each_captured_field(fields, [L](std::string_view name, std::string_view value) {
    lua_pushlstring(L, name.data(), name.size());
    lua_pushlstring(L, value.data(), value.size());
    lua_settable(L, -3);
    return true;
  });
  lua_pushlstring(L, body.data(), body.size());
  lua_rawgeti(L, LUA_REGISTRYINDEX, connection_ref);
  const watchdog::InLua in_lua(beat_, "the script's response()");
  return protected_call(L, 4, 0);
}

Result<TimeNs> ThreadScript::delay() {
  lua_State* L = state_.get();
  lua_getglobal(L, "delay");
  {
    const watchdog::InLua in_lua(beat_, "the script's delay()");
    if (Status called = protected_call(L, 0, 1); !called) return called.error();
  }
  const double ms = lua_tonumber(L, -1);
  lua_pop(L, 1);
  // Longer than any run (146 years), and far enough from INT64_MAX that the
  // worker's now + delay cannot overflow; a huge or infinite delay() is that.
  constexpr TimeNs kMaxDelayNs = TimeNs{1} << 62;
  if (!(ms > 0)) return TimeNs{0};  // also NaN
  const double ns = ms * static_cast<double>(kNsPerMs);
  return ns >= static_cast<double>(kMaxDelayNs) ? kMaxDelayNs : static_cast<TimeNs>(ns);
}

void ThreadScript::push_thread_object(lua_State* L) {
  auto* slot = static_cast<ThreadScript**>(lua_newuserdata(L, sizeof(ThreadScript*)));
  *slot = this;
  if (luaL_newmetatable(L, kThreadType) != 0) {
    lua_pushcfunction(L, &thread_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, &thread_newindex);
    lua_setfield(L, -2, "__newindex");
  }
  lua_setmetatable(L, -2);
}

}  // namespace pacer::script
