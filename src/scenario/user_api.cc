// The Lua API a scenario sees (docs/scenarios.md): `pacer` (between, constant,
// constant_pacing, constant_throughput, taskset, sequence, random, args, url),
// the methods of every virtual user u (get, post, request, sleep, fail, success,
// interrupt) and the response table. The C functions carry the worker's Users
// as an upvalue (null while the main thread only checks the file). A request
// call builds the bytes into the user's own buffer and yields; the worker sends
// them and resumes the coroutine with the response (users.cc, user_scripts.cc).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include <strings.h>

#include "proto/header_rules.h"
#include "proto/uri_reference.h"
#include "scenario/scenario_load.h"
#include "scenario/user_cookies.h"
#include "scenario/users.h"

namespace pacer::scenario {

namespace {

constexpr const char* kApiLua = R"lua(
local C, args, url = ...
package.cpath = package.cpath .. ";/usr/lib/x86_64-linux-gnu/lua/5.1/?.so;/usr/lib/aarch64-linux-gnu/lua/5.1/?.so;/usr/lib/lua/5.1/?.so"
local random = C.random or math.random
local tonumber, error, type = tonumber, error, type
pacer = {args = args, url = url, random = random}
function pacer.between(a, b)
  a, b = tonumber(a), tonumber(b)
  if not a or not b or a < 0 or b < a then error("pacer.between(a, b): needs 0 <= a <= b (seconds)", 2) end
  return function() return a + (b - a) * random() end
end
-- A request named by its response: pacer.name_from{json = "/name"} or {header = "X-Name"} as the call's name.
function pacer.name_from(t)
  if type(t) ~= "table" or (t.json == nil) == (t.header == nil) then
    error("pacer.name_from{json = '/pointer'} or pacer.name_from{header = 'Name'}: give one of them", 2)
  end
  return {json = t.json, header = t.header}
end
function pacer.constant(s)
  s = tonumber(s)
  if not s or s < 0 then error("pacer.constant(s): needs s >= 0 (seconds)", 2) end
  return function() return s end
end
-- Locust's constant_pacing: a task starts every s seconds; the wait is what the
-- task's own time (from its scheduled start to its last step's end) leaves of s.
local task_elapsed = C.task_elapsed
function pacer.constant_pacing(s)
  s = tonumber(s)
  if not s or s < 0 then error("pacer.constant_pacing(s): needs s >= 0 (seconds)", 2) end
  return function(u)
    local left = s - task_elapsed(u)
    return left > 0 and left or 0
  end
end
function pacer.constant_throughput(n)
  n = tonumber(n)
  if not n or not (n > 0) then error("pacer.constant_throughput(n): needs n > 0 (tasks per second per user)", 2) end
  return pacer.constant_pacing(1 / n)
end
-- Task sets: a table of tasks run in place of a task until u:interrupt();
-- pacer.sequence runs them in order, each entry's first field times in a row.
function pacer.taskset(t)
  if type(t) ~= "table" then error("pacer.taskset{tasks = ...}: needs a table", 2) end
  return t
end
function pacer.sequence(t)
  if type(t) ~= "table" then error("pacer.sequence{tasks = ...}: needs a table", 2) end
  t.sequential = true
  return t
end
local INTERRUPT = {}
local function interrupt(u, reschedule) error({INTERRUPT, reschedule ~= false}, 0) end
local decode
local function json(r)
  local body = r.body
  if body == nil then error("r:json(): no body (status " .. tostring(r.status) .. ")", 2) end
  if not decode then
    local ok, m = pcall(require, "cjson")
    if not ok then error("r:json() needs lua-cjson (Debian: apt-get install lua-cjson): " .. tostring(m), 2) end
    decode = m.decode
  end
  return decode(body)
end
local Response = {__index = {json = json}}
local User = {__index = {get = C.get, post = C.post, request = C.request, sleep = C.sleep, fail = C.fail,
                         success = C.success, interrupt = interrupt, cookies = C.cookies}}
return Response, User, INTERRUPT
)lua";

Users* users_of(lua_State* L) { return static_cast<Users*>(lua_touserdata(L, lua_upvalueindex(1))); }

User& running_user(lua_State* L, Users* users) {
  if (users == nullptr || users->scripts().current() == nullptr) {
    luaL_error(L, "u:get, u:post, u:request, u:sleep, u:fail and u:success work only inside on_start, a task or on_stop");
  }
  return *users->scripts().current();
}

std::string_view check_text(lua_State* L, int index, const char* what) {
  std::size_t len = 0;
  const char* text = lua_tolstring(L, index, &len);
  if (text == nullptr) luaL_error(L, "%s must be a string", what);
  const std::string_view view(text, len);
  if (!proto::is_header_value(view) || view.find('\t') != std::string_view::npos) {
    luaL_error(L, "%s holds a control character (a line break, NUL, ...)", what);
  }
  return view;
}

// The request body at `index` (its length in len), or nullptr when none is given.
const char* optional_body(lua_State* L, int index, const char* what, std::size_t& len) {
  if (lua_isnoneornil(L, index)) return nullptr;
  if (lua_type(L, index) != LUA_TSTRING) luaL_error(L, "%s must be a string", what);
  return lua_tolstring(L, index, &len);
}

void append_number(std::string& out, std::size_t value) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out.append(digits, static_cast<std::size_t>(end - digits));
}

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// Whether the call's headers table (stack index; 0: none) names `name`, without
// regard to case, as HTTP compares header names.
bool table_has(lua_State* L, int table, std::string_view name) {
  if (table == 0) return false;
  lua_pushnil(L);
  while (lua_next(L, table) != 0) {
    lua_pop(L, 1);  // the value; the key stays for lua_next
    std::size_t len = 0;
    // Only string keys: lua_tolstring would turn a number key into a string under lua_next.
    const char* key = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : nullptr;
    if (key != nullptr && same_name(std::string_view(key, len), name)) {
      lua_pop(L, 1);
      return true;
    }
  }
  return false;
}

// The request's headers are the call's table plus the -H headers it does not
// replace: whether they name `name` (proto::build_request's rule for its own).
bool request_has(lua_State* L, int table, const Config& config, std::string_view name) {
  if (table_has(L, table, name)) return true;
  return std::any_of(config.headers.begin(), config.headers.end(), [name](const Header& h) { return same_name(h.name, name); });
}

// A Lua error (the task fails: a `script` error with this message) when the
// header may not be sent. The message is on the Lua stack before the throw, so
// no C++ object is left to unwind.
void refuse_bad_header(lua_State* L, std::string_view name, std::string_view value,
                       const proto::HeaderContext& context) {
  {
    const std::string problem = proto::header_problem(name, value, context);
    if (problem.empty()) return;
    lua_pushlstring(L, problem.data(), problem.size());
  }
  lua_error(L);
}

struct RequestArgs {
  std::string_view method = "GET";
  std::string_view path;
  int headers = 0;  // stack index of the headers table, 0: none
  const char* body = nullptr;
  std::size_t body_len = 0;
  std::string_view name;  // empty: "METHOD path"
  NameFrom name_from = NameFrom::kCall;  // pacer.name_from: the response names it
  std::string_view name_where;           // ...at this JSON pointer, or in this header
};

// The path the call's request goes to: the run's base URL + a path, or an
// absolute URL of the run's origin. Anything else is a Lua error.
std::string_view request_path(lua_State* L, Users& users, const RequestArgs& a, std::uint8_t& origin) {
  if (a.path.size() + users.requests().path_prefix().size() > proto::kMaxUrlBytes) {
    luaL_error(L, "the path is longer than the URL cap (%d bytes)", static_cast<int>(proto::kMaxUrlBytes));
  }
  std::string_view path;
  origin = 0;
  if (!a.path.empty() && a.path.front() == '/') {
    path = users.requests().full_path(a.path);  // Locust's base URL + path
  } else if (proto::split_uri(a.path).has_authority) {
    const UrlPlace place = users.requests().place(a.path);  // as it is, without the URL's path
    if (!place.error.empty()) luaL_error(L, "'%s': %s", a.path.data(), place.error.data());
    path = place.path;
    origin = place.origin;  // another origin: the user's own connection to it (engine/drive/origin_links.h)
  } else {
    luaL_error(L, "the path must start with '/' or be an absolute http(s) URL (got '%s')", a.path.data());
  }
  return path;
}

// -H's headers the call does not replace, then one Cookie header (RFC 6265
// section 5.4): -H's (and --cookie's) pairs, then the jar's; a call that gives
// its own Cookie header sends only that. The path as sent (the prefix
// included) is the cookies' path.
void append_run_headers(lua_State* L, std::string& out, Users& users, User& u, const RequestArgs& a,
                        std::string_view path, const proto::HeaderContext& context) {
  const RequestContext& requests = users.requests();
  const bool own_cookie = table_has(L, a.headers, "Cookie");
  std::string_view given_cookie;
  for (const Header& h : requests.config().headers) {
    if (table_has(L, a.headers, h.name)) continue;
    // -H's Host and Cookie are the run's host's: another origin gets its own Host and only its jar's cookies.
    if (u.origin != 0 && (same_name(h.name, "Host") || same_name(h.name, "Cookie"))) continue;
    refuse_bad_header(L, h.name, h.value, context);  // -H's Content-Length against this call's body
    if (same_name(h.name, "Cookie")) {
      given_cookie = h.value;
      continue;
    }
    out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  if (!own_cookie) append_cookie_line(out, requests, u, path, given_cookie);
  u.jar_cookie_line = !own_cookie;
}

// The call's own headers (the table at stack index `headers`, 0: none), each
// checked as -H's are; a second Host header is a Lua error.
void append_call_headers(lua_State* L, std::string& out, int headers, const proto::HeaderContext& context) {
  if (headers == 0) return;
  int hosts = 0;
  lua_pushnil(L);
  while (lua_next(L, headers) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "header names must be strings");
    if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "header values must be strings");
    std::size_t name_len = 0;
    std::size_t value_len = 0;
    const char* name_text = lua_tolstring(L, -2, &name_len);
    const char* value_text = lua_tolstring(L, -1, &value_len);
    const std::string_view name(name_text, name_len);
    const std::string_view value(value_text, value_len);
    refuse_bad_header(L, name, value, context);
    if (same_name(name, "Host") && ++hosts == 2) {
      luaL_error(L, "a second Host header: a server must answer 400 to two (RFC 9112 section 3.2); give one");
    }
    out.append(name).append(": ").append(value).append("\r\n");
    lua_pop(L, 1);
  }
}

// Builds the request into u.request, names it, and yields until its response.
int send_and_wait(lua_State* L, Users& users, User& u, const RequestArgs& a) {
  std::uint8_t origin = 0;
  const std::string_view path = request_path(L, users, a, origin);
  u.origin = origin;  // before the Cookie line: the jar sends only the origin's cookies
  if (a.method.empty() || a.method.find(' ') != std::string_view::npos) luaL_error(L, "bad method");
  const RequestContext& requests = users.requests();
  const Config& config = requests.config();
  std::string& out = u.request;
  out.clear();
  out.append(a.method).append(" ");
  // Through a forwarding proxy (--proxy on http://): the absolute form (RFC 9112 section 3.2.2).
  if (config.proxy && !config.proxy->tunnel) out.append("http://").append(requests.host_header());
  out.append(path).append(" HTTP/1.1\r\n");
  proto::HeaderContext context;  // the same rule as -H and --targets (proto/header_rules.h)
  if (a.body != nullptr) context.body_bytes = a.body_len;
  const bool own_host = origin != 0 ? table_has(L, a.headers, "Host") : request_has(L, a.headers, config, "Host");
  if (!own_host) out.append("Host: ").append(requests.host_header(origin)).append("\r\n");
  append_run_headers(L, out, users, u, a, path, context);
  append_call_headers(L, out, a.headers, context);
  if (a.body != nullptr && !request_has(L, a.headers, config, "Content-Length")) {
    out.append("Content-Length: ");
    append_number(out, a.body_len);
    out.append("\r\n");
  }
  if (!config.keep_alive && !request_has(L, a.headers, config, "Connection")) out.append("Connection: close\r\n");
  out.append("\r\n");
  if (a.body != nullptr) out.append(a.body, a.body_len);
  UserTally& tally = users.tally();
  // The path as sent is the default name's too; another origin's is the URL as given (Locust's), so its rows are its own.
  const std::string_view origin_prefix = origin == 0 ? std::string_view() : requests.origins().at(origin).prefix;
  u.name = a.name.empty() ? tally.default_name(a.method, path, requests.names_keep_query(), origin_prefix)
                          : tally.name_index(a.name);
  u.head = a.method == "HEAD";
  u.name_from = a.name_from;
  u.name_where.assign(a.name_where);
  u.has_request = true;
  u.checked = false;
  users.events().began(u);  // its event, once its outcome is final (request_events.h)
  u.state = User::State::kWantsSend;
  return lua_yield(L, 0);
}

int optional_table(lua_State* L, int index, const char* what) {
  if (lua_isnoneornil(L, index)) return 0;
  if (!lua_istable(L, index)) luaL_error(L, "%s must be a table", what);
  return index;
}

// The call's name: a string, or pacer.name_from{json = ...} / {header = ...}
// (the response's value names the request; the call's default name until then).
void optional_name(lua_State* L, int index, RequestArgs& a) {
  if (lua_isnoneornil(L, index)) return;
  if (!lua_istable(L, index)) {
    a.name = check_text(L, index, "the name");
    return;
  }
  lua_getfield(L, index, "json");
  lua_getfield(L, index, "header");
  const bool json = !lua_isnil(L, -2);
  std::string_view where = check_text(L, json ? -2 : -1, json ? "pacer.name_from's json" : "pacer.name_from's header");
  lua_pop(L, 2);  // the table still holds the strings
  if (json && !valid_json_pointer(where)) {
    luaL_error(L, "pacer.name_from{json = '%s'}: a JSON pointer is empty or starts with '/' (RFC 6901)", where.data());
  }
  if (!json && where.empty()) luaL_error(L, "pacer.name_from{header = ''}: give a header name");
  a.name_from = json ? NameFrom::kJson : NameFrom::kHeader;
  a.name_where = where;
}

// u:get(path, headers, name)
int api_get(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->settle_event(u, L);  // the last request's outcome is final now: its event
  RequestArgs a;
  a.path = check_text(L, 2, "the path");
  a.headers = optional_table(L, 3, "the headers");
  optional_name(L, 4, a);
  return send_and_wait(L, *users, u, a);
}

// u:post(path, body, headers, name)
int api_post(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->settle_event(u, L);  // the last request's outcome is final now: its event
  RequestArgs a;
  a.method = "POST";
  a.path = check_text(L, 2, "the path");
  a.body = optional_body(L, 3, "the body", a.body_len);
  if (a.body == nullptr) a.body = "";  // a POST always has a body
  a.headers = optional_table(L, 4, "the headers");
  optional_name(L, 5, a);
  return send_and_wait(L, *users, u, a);
}

// u:request{method=, path=, headers=, body=, name=}
int api_request(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->settle_event(u, L);  // the last request's outcome is final now: its event
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_getfield(L, 2, "method");  // 3
  lua_getfield(L, 2, "path");    // 4
  lua_getfield(L, 2, "headers"); // 5
  lua_getfield(L, 2, "body");    // 6
  lua_getfield(L, 2, "name");    // 7
  RequestArgs a;
  if (!lua_isnil(L, 3)) a.method = check_text(L, 3, "method");
  a.path = check_text(L, 4, "path");
  a.headers = optional_table(L, 5, "headers");
  a.body = optional_body(L, 6, "body", a.body_len);
  optional_name(L, 7, a);
  return send_and_wait(L, *users, u, a);
}

// u:sleep(seconds): the next step is due that much after the previous one ended.
int api_sleep(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->settle_event(u, L);  // the last request's outcome is final now: its event
  const double s = luaL_checknumber(L, 2);
  if (!(s >= 0)) luaL_error(L, "u:sleep(seconds): needs a number >= 0");
  constexpr double kMaxSleepNs = 1e18;  // ~31 years: longer than any run
  u.mark_ns += static_cast<TimeNs>(std::min(s * 1e9, kMaxSleepNs));
  u.wake_ns = u.mark_ns;
  u.state = User::State::kSleeping;
  return lua_yield(L, 0);
}

// u:fail(message): the last request failed (a `check` error under its name).
int api_fail(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  std::size_t len = 0;
  const char* text = luaL_optlstring(L, 2, "failed", &len);
  users->tally().fail_last(u, std::string_view(text, len));
  return 0;
}

// u:success(): the last response counts as a success, though its status said
// otherwise (Locust's catch_response and response.success()). Returns whether
// there was such a response to forgive.
int api_success(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  lua_pushboolean(L, users->tally().succeed_last(u) ? 1 : 0);
  return 1;
}

// task_is(u, leaf) (prelude): the task the user is about to run (1-based).
int api_task_is(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->tally().task_is(u, static_cast<int>(luaL_checkinteger(L, 2)) - 1);
  return 0;
}

// task_elapsed(u) (pacing waits): seconds from the task's scheduled start to its last step's end.
int api_task_elapsed(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  lua_pushnumber(L, static_cast<double>(u.mark_ns - u.task_start_ns) / 1e9);
  return 1;
}

// next_task(u, wait_seconds) (prelude): the end of on_start or a task.
int api_next_task(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  users->settle_event(u, L);  // the last request's outcome is final now: its event
  const double wait = lua_tonumber(L, 2);
  if (users->task_boundary(u, std::isfinite(wait) && wait > 0 ? wait : 0)) return lua_yield(L, 0);
  lua_pushinteger(L, 0);
  return 1;
}

// script_error(u, message, hook) (prelude).
int api_script_error(lua_State* L) {
  Users* users = users_of(L);
  User& u = running_user(L, users);
  std::size_t len = 0;
  const char* text = lua_tolstring(L, 2, &len);
  const char* hook = luaL_optstring(L, 3, "task");
  // "not enough memory" names the --lua-memory cap when the cap refused it.
  const std::string message = script::describe_error(L, text != nullptr ? std::string_view(text, len) : "error");
  users->tally().script_error(u, message, hook);
  return 0;
}

int api_random(lua_State* L) {
  lua_pushnumber(L, users_of(L)->scripts().random());
  return 1;
}

void push_api_functions(lua_State* L, Users* users) {
  const luaL_Reg functions[] = {
      {"get", &api_get},           {"post", &api_post},   {"request", &api_request},
      {"sleep", &api_sleep},       {"fail", &api_fail},   {"next_task", &api_next_task},
      {"script_error", &api_script_error}, {"success", &api_success}, {"task_is", &api_task_is},
      {"task_elapsed", &api_task_elapsed},
  };
  lua_newtable(L);
  for (const luaL_Reg& f : functions) {
    lua_pushlightuserdata(L, users);
    lua_pushcclosure(L, f.func, 1);
    lua_setfield(L, -2, f.name);
  }
  push_cookie_api(L, users);
  lua_setfield(L, -2, "cookies");
  if (users != nullptr) {
    lua_pushlightuserdata(L, users);
    lua_pushcclosure(L, &api_random, 1);
    lua_setfield(L, -2, "random");
  }
}

}  // namespace

void install_api(lua_State* L, Users* users, const Config& config, ScenarioRefs& refs) {
  push_api_functions(L, users);
  if (luaL_loadbuffer(L, kApiLua, std::strlen(kApiLua), "=pacer-api") != 0) std::abort();
  lua_insert(L, -2);  // chunk, C
  lua_createtable(L, static_cast<int>(config.scenario_args.size()), 1);
  lua_pushstring(L, config.target.url.c_str());
  lua_rawseti(L, -2, 0);
  for (std::size_t i = 0; i < config.scenario_args.size(); ++i) {
    lua_pushstring(L, config.scenario_args[i].c_str());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_pushstring(L, config.target.url.c_str());
  if (lua_pcall(L, 3, 3, 0) != 0) std::abort();
  const int marker = luaL_ref(L, LUA_REGISTRYINDEX);  // u:interrupt()'s, which the prelude catches
  refs.user_meta = luaL_ref(L, LUA_REGISTRYINDEX);
  refs.response_meta = luaL_ref(L, LUA_REGISTRYINDEX);
  push_api_functions(L, users);
  lua_rawgeti(L, LUA_REGISTRYINDEX, marker);
  lua_setfield(L, -2, "interrupt_marker");
  luaL_unref(L, LUA_REGISTRYINDEX, marker);
  run_prelude(L, refs);
}

void push_response(lua_State* L, const User& u, int response_meta_ref) {
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, u.status);
  lua_setfield(L, -2, "status");
  // Locust's response.elapsed, in seconds: the latency the report records for it.
  lua_pushnumber(L, static_cast<double>(u.elapsed_ns) / 1e9);
  lua_setfield(L, -2, "elapsed");
  if (u.error != nullptr) {
    lua_pushstring(L, u.error);
    lua_setfield(L, -2, "error");
  }
  if (u.capturing && u.status != 0) {
    lua_createtable(L, 0, static_cast<int>(u.capture.header_count));
    char lower[256];
    proto::for_each_captured_field(u.capture.fields, [&](std::string_view name, std::string_view value) {
      const std::size_t n = std::min(name.size(), sizeof lower);
      for (std::size_t i = 0; i < n; ++i) {
        const char c = name[i];
        lower[i] = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
      }
      lua_pushlstring(L, lower, n);
      lua_pushlstring(L, value.data(), value.size());
      lua_rawset(L, -3);
      return true;
    });
    lua_setfield(L, -2, "headers");
    lua_pushlstring(L, u.capture.body.data(), u.capture.body.size());
    lua_setfield(L, -2, "body");
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, response_meta_ref);
  lua_setmetatable(L, -2);
}

}  // namespace pacer::scenario
