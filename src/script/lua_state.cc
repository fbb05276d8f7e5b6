// See lua_state.h.
#include "script/lua_state.h"

#include <cstdlib>
#include <cstring>

#include "core/byte_size.h"

namespace pacer::script {

namespace {

// The allocator's bookkeeping, one per state, owned by its LuaStatePtr.
struct LuaMemory {
  std::uint64_t in_use_bytes = 0;
  std::uint64_t max_bytes = 0;
  bool reached_cap = false;  // an allocation was refused since the last pop_error
};

// lua_Alloc (Lua 5.1 manual 3.7): free when new_bytes is 0; otherwise grow or
// shrink, refusing (NULL: LuaJIT raises "not enough memory") a growth past the cap.
void* capped_alloc(void* ud, void* block, std::size_t old_bytes, std::size_t new_bytes) {
  auto& memory = *static_cast<LuaMemory*>(ud);
  const std::size_t held = block != nullptr ? old_bytes : 0;  // old_bytes is a type tag when block is null
  if (new_bytes == 0) {
    std::free(block);
    memory.in_use_bytes -= held;
    return nullptr;
  }
  if (new_bytes > held && memory.in_use_bytes + (new_bytes - held) > memory.max_bytes) {
    memory.reached_cap = true;
    return nullptr;
  }
  void* grown = std::realloc(block, new_bytes);
  if (grown != nullptr) memory.in_use_bytes = memory.in_use_bytes - held + new_bytes;
  return grown;
}

LuaMemory* memory_of(lua_State* L) {
  void* ud = nullptr;
  return lua_getallocf(L, &ud) == &capped_alloc ? static_cast<LuaMemory*>(ud) : nullptr;
}

}  // namespace

void LuaCloser::operator()(lua_State* L) const {
  std::unique_ptr<LuaMemory> memory(memory_of(L));  // freed after the state that uses it
  lua_close(L);
}

LuaStatePtr new_lua_state(std::uint64_t max_bytes) {
  auto memory = std::make_unique<LuaMemory>();
  memory->max_bytes = max_bytes;
  lua_State* raw = lua_newstate(&capped_alloc, memory.get());
  if (raw == nullptr) std::abort();
  memory.release();  // owned by the state's LuaCloser from here
  LuaStatePtr L(raw);
  luaL_openlibs(L.get());
  return L;
}

std::uint64_t lua_memory_in_use(lua_State* L) {
  const LuaMemory* memory = memory_of(L);
  return memory != nullptr ? memory->in_use_bytes : 0;
}

std::string pop_error(lua_State* L) {
  std::string message;
  if (const char* text = lua_tostring(L, -1)) {
    message = text;
  } else {
    message = std::string("(error object is a ") + luaL_typename(L, -1) + " value)";
  }
  lua_pop(L, 1);
  return describe_error(L, message);
}

std::string describe_error(lua_State* L, std::string_view message) {
  std::string text(message);
  if (LuaMemory* memory = memory_of(L); memory != nullptr && memory->reached_cap) {
    memory->reached_cap = false;
    if (text == "not enough memory") {
      text += ": the Lua memory cap (" + format_byte_size(memory->max_bytes) + ", --lua-memory) is reached";
    }
  }
  return text;
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
