// See lua_state.h.
#include "script/lua_state.h"

#include <cstdlib>

namespace pacer::script {

LuaStatePtr new_lua_state() {
  LuaStatePtr L(luaL_newstate());
  if (!L) std::abort();
  luaL_openlibs(L.get());
  return L;
}

std::string pop_error(lua_State* L) {
  std::string message;
  if (const char* text = lua_tostring(L, -1)) {
    message = text;
  } else {
    message = std::string("(error object is a ") + luaL_typename(L, -1) + " value)";
  }
  lua_pop(L, 1);
  return message;
}

Status protected_call(lua_State* L, int nargs, int nresults) {
  if (lua_pcall(L, nargs, nresults, 0) == 0) return Ok{};
  return runtime_error(pop_error(L));
}

namespace {

constexpr int kMaxTableDepth = 64;  // deeper (or cyclic) tables are refused

// The type name of the first value at `at` (absolute) that copy_value cannot copy.
const char* untransferable(lua_State* src, int at, int depth) {
  switch (lua_type(src, at)) {
    case LUA_TNIL:
    case LUA_TBOOLEAN:
    case LUA_TNUMBER:
    case LUA_TSTRING: return nullptr;
    case LUA_TTABLE: {
      if (depth > kMaxTableDepth) return "deeply nested table";
      lua_pushnil(src);
      while (lua_next(src, at) != 0) {
        const int top = lua_gettop(src);
        const char* bad = untransferable(src, top - 1, depth + 1);
        if (bad == nullptr) bad = untransferable(src, top, depth + 1);
        lua_pop(src, 1);
        if (bad != nullptr) {
          lua_pop(src, 1);  // the key: the traversal ends here
          return bad;
        }
      }
      return nullptr;
    }
    default: return luaL_typename(src, at);
  }
}

void copy_checked(lua_State* src, lua_State* dst, int at) {
  switch (lua_type(src, at)) {
    case LUA_TBOOLEAN: lua_pushboolean(dst, lua_toboolean(src, at)); break;
    case LUA_TNUMBER: lua_pushnumber(dst, lua_tonumber(src, at)); break;
    case LUA_TSTRING: {
      std::size_t len = 0;
      const char* text = lua_tolstring(src, at, &len);
      lua_pushlstring(dst, text, len);
      break;
    }
    case LUA_TTABLE:
      lua_newtable(dst);
      lua_pushnil(src);
      while (lua_next(src, at) != 0) {
        const int top = lua_gettop(src);
        copy_checked(src, dst, top - 1);
        copy_checked(src, dst, top);
        lua_rawset(dst, -3);
        lua_pop(src, 1);
      }
      break;
    default: lua_pushnil(dst); break;
  }
}

}  // namespace

const char* copy_value(lua_State* src, lua_State* dst, int index) {
  const int at = index < 0 ? lua_gettop(src) + index + 1 : index;  // absolute: the copy pushes
  if (const char* bad = untransferable(src, at, 0)) return bad;
  if (src == dst) {
    lua_pushvalue(src, at);  // one state: the value itself, as wrk's own thread would see
    return nullptr;
  }
  copy_checked(src, dst, at);
  return nullptr;
}

bool has_global_function(lua_State* L, const char* name) {
  lua_getglobal(L, name);
  const bool is_function = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return is_function;
}

}  // namespace pacer::script
