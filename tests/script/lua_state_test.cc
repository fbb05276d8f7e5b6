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

}  // namespace
}  // namespace pacer::script
