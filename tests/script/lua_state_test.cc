// copy_value between states (thread:get/thread:set) and protected calls.
#include "script/lua_state.h"

#include <gtest/gtest.h>

namespace pacer::script {
namespace {

void run(lua_State* L, const char* code) {
  ASSERT_EQ(luaL_dostring(L, code), 0) << lua_tostring(L, -1);
}

TEST(LuaState, CopyValueCopiesNestedTablesIntoAnotherState) {
  LuaStatePtr a = new_lua_state();
  LuaStatePtr b = new_lua_state();
  run(a.get(), "v = { n = 1.5, s = 'x\\0y', flag = true, list = { 10, 20, { deep = 'yes' } } }");
  lua_getglobal(a.get(), "v");
  ASSERT_EQ(copy_value(a.get(), b.get(), -1), nullptr);
  lua_pop(a.get(), 1);
  lua_setglobal(b.get(), "v");
  run(b.get(), "assert(v.n == 1.5 and v.s == 'x\\0y' and v.flag == true and #v.list == 3)");
  run(b.get(), "assert(v.list[3].deep == 'yes')");
  EXPECT_EQ(lua_gettop(a.get()), 0);
}

TEST(LuaState, CopyValueNamesTheTypeItCannotCopyAndPushesNothing) {
  LuaStatePtr a = new_lua_state();
  LuaStatePtr b = new_lua_state();
  run(a.get(), "v = { ok = 1, bad = { print } }");
  lua_getglobal(a.get(), "v");
  EXPECT_STREQ(copy_value(a.get(), b.get(), -1), "function");
  EXPECT_EQ(lua_gettop(b.get()), 0);
  EXPECT_EQ(lua_gettop(a.get()), 1);
}

TEST(LuaState, CopyValueRefusesACycle) {
  LuaStatePtr a = new_lua_state();
  LuaStatePtr b = new_lua_state();
  run(a.get(), "v = {}; v.self = v");
  lua_getglobal(a.get(), "v");
  EXPECT_NE(copy_value(a.get(), b.get(), -1), nullptr);
}

TEST(LuaState, ProtectedCallReturnsTheMessage) {
  LuaStatePtr a = new_lua_state();
  ASSERT_EQ(luaL_loadstring(a.get(), "error('boom', 0)"), 0);
  const Status s = protected_call(a.get(), 0, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "boom");
  EXPECT_EQ(lua_gettop(a.get()), 0);
}

TEST(LuaState, AllocationsPastTheCapFailWithAMessageNamingIt) {
  constexpr std::uint64_t kCap = 8ULL << 20;
  LuaStatePtr L = new_lua_state(kCap);
  const std::uint64_t at_start = lua_memory_in_use(L.get());
  EXPECT_GT(at_start, 0u);  // the libraries, through the capped allocator
  ASSERT_EQ(luaL_loadstring(L.get(), "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end"), 0);
  const Status ran = protected_call(L.get(), 0, 0);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.error().message, "not enough memory: the Lua memory cap (8 MiB, --lua-memory) is reached");
  EXPECT_LE(lua_memory_in_use(L.get()), kCap);
  lua_gc(L.get(), LUA_GCCOLLECT, 0);
  EXPECT_LT(lua_memory_in_use(L.get()), kCap / 2);  // the garbage is freed: the state goes on
  run(L.get(), "assert(string.rep('y', 1000):len() == 1000)");
}

TEST(LuaState, AnOrdinaryErrorIsNotMistakenForTheCap) {
  LuaStatePtr L = new_lua_state(8ULL << 20);
  ASSERT_EQ(luaL_loadstring(L.get(), "error('not enough memory', 0)"), 0);
  const Status ran = protected_call(L.get(), 0, 0);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.error().message, "not enough memory");
}

}  // namespace
}  // namespace pacer::script
