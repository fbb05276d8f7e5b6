// See user_cookies.h.
#include "scenario/user_cookies.h"

#include <algorithm>

#include "proto/header_rules.h"
#include "scenario/users.h"

namespace pacer::scenario {

void append_cookie_line(std::string& out, const RequestContext& context, const User& u, std::string_view path,
                        std::string_view given) {
  if (u.cookies.size() == 0 && given.empty()) return;
  const std::size_t start = out.size();
  out.append("Cookie: ").append(given);
  cookie::Origin to = context.cookie_origin(u);
  to.path = path.substr(0, path.find('?'));
  const std::size_t sent = u.cookies.append_header(out, to, RequestContext::cookie_now_s(), given.empty());
  if (sent == 0 && given.empty()) {
    out.resize(start);  // no cookie goes to this path
    return;
  }
  out.append("\r\n");
}

namespace {

Users* users_of(lua_State* L) { return static_cast<Users*>(lua_touserdata(L, lua_upvalueindex(1))); }

// The running user, and the index of the first argument: u.cookies:get(x) passes the table first.
User& cookie_user(lua_State* L, int& first) {
  Users* users = users_of(L);
  if (users == nullptr || users->scripts().current() == nullptr) {
    luaL_error(L, "u.cookies works only inside on_start, a task or on_stop");
  }
  first = lua_istable(L, 1) ? 2 : 1;
  return *users->scripts().current();
}

std::string_view check_cookie_text(lua_State* L, int index, const char* what) {
  std::size_t len = 0;
  const char* text = luaL_checklstring(L, index, &len);
  const std::string_view view(text, len);
  if (!proto::is_header_value(view) || view.find(';') != std::string_view::npos ||
      view.find('\t') != std::string_view::npos) {
    luaL_error(L, "u.cookies: the %s holds a control character or ';'", what);
  }
  return view;
}

// A live cookie named `name` (any path), the one sent first to "/" when several.
const cookie::Cookie* live_named(const User& u, std::string_view name, std::int64_t now_s) {
  const cookie::Cookie* found = nullptr;
  for (std::size_t i = 0; i < u.cookies.size(); ++i) {
    const cookie::Cookie& c = u.cookies.at(i);
    if (c.name == name && c.expires_s > now_s && (found == nullptr || c.path.size() < found->path.size())) found = &c;
  }
  return found;
}

// u.cookies.get(name) -> value or nil
int cookies_get(lua_State* L) {
  int first = 1;
  const User& u = cookie_user(L, first);
  std::size_t len = 0;
  const char* name = luaL_checklstring(L, first, &len);
  const cookie::Cookie* c = live_named(u, std::string_view(name, len), RequestContext::cookie_now_s());
  if (c == nullptr) {
    lua_pushnil(L);
  } else {
    lua_pushlstring(L, c->value.data(), c->value.size());
  }
  return 1;
}

// u.cookies.set(name, value[, {path=, domain=, max_age=, secure=}]) -> true if kept
int cookies_set(lua_State* L) {
  int first = 1;
  User& u = cookie_user(L, first);
  const std::string_view name = check_cookie_text(L, first, "name");
  const std::string_view value = check_cookie_text(L, first + 1, "value");
  if (name.empty() || name.find('=') != std::string_view::npos) luaL_error(L, "u.cookies.set: a name, without '='");
  std::string_view path;
  std::string_view domain;
  lua_Integer max_age = -1;
  bool secure = false;
  const int attrs = first + 2;
  if (!lua_isnoneornil(L, attrs)) {
    luaL_checktype(L, attrs, LUA_TTABLE);
    lua_getfield(L, attrs, "path");
    if (!lua_isnil(L, -1)) path = check_cookie_text(L, -1, "path");
    lua_getfield(L, attrs, "domain");
    if (!lua_isnil(L, -1)) domain = check_cookie_text(L, -1, "domain");
    lua_getfield(L, attrs, "max_age");
    if (!lua_isnil(L, -1)) max_age = std::max<lua_Integer>(0, luaL_checkinteger(L, -1));
    lua_getfield(L, attrs, "secure");
    secure = lua_toboolean(L, -1) != 0;
    if (!path.empty() && path.front() != '/') luaL_error(L, "u.cookies.set: the path must start with '/'");
  }
  const cookie::Stored stored = u.cookies.set(name, value, users_of(L)->requests().target_cookie_origin(), domain, path,
                                              max_age, secure, RequestContext::cookie_now_s());
  lua_pushboolean(L, stored == cookie::Stored::kStored ? 1 : 0);
  return 1;
}

// u.cookies.delete(name) -> how many were removed
int cookies_delete(lua_State* L) {
  int first = 1;
  User& u = cookie_user(L, first);
  std::size_t len = 0;
  const char* name = luaL_checklstring(L, first, &len);
  lua_pushinteger(L, static_cast<lua_Integer>(u.cookies.remove(std::string_view(name, len))));
  return 1;
}

// u.cookies.clear()
int cookies_clear(lua_State* L) {
  int first = 1;
  cookie_user(L, first).cookies.clear();
  return 0;
}

// u.cookies.all() -> {name = value, ...} of the live cookies (a name set for two paths: the shorter path's)
int cookies_all(lua_State* L) {
  int first = 1;
  const User& u = cookie_user(L, first);
  const std::int64_t now_s = RequestContext::cookie_now_s();
  lua_createtable(L, 0, static_cast<int>(u.cookies.size()));
  for (std::size_t i = 0; i < u.cookies.size(); ++i) {
    const cookie::Cookie& c = u.cookies.at(i);
    if (live_named(u, c.name, now_s) != &c) continue;
    lua_pushlstring(L, c.name.data(), c.name.size());
    lua_pushlstring(L, c.value.data(), c.value.size());
    lua_rawset(L, -3);
  }
  return 1;
}

}  // namespace

void push_cookie_api(lua_State* L, Users* users) {
  const luaL_Reg functions[] = {
      {"get", &cookies_get},     {"set", &cookies_set}, {"delete", &cookies_delete},
      {"clear", &cookies_clear}, {"all", &cookies_all},
  };
  lua_newtable(L);
  for (const luaL_Reg& f : functions) {
    lua_pushlightuserdata(L, users);
    lua_pushcclosure(L, f.func, 1);
    lua_setfield(L, -2, f.name);
  }
}

}  // namespace pacer::scenario
