// RAII for a LuaJIT state, plus the small helpers every script file shares: a
// fresh state with the standard libraries, protected calls that turn a Lua error
// into a message ("file.lua:12: attempt to index a nil value"), and values
// copied between two states (thread:get/thread:set). A state is used by one
// thread at a time; copying between states needs both idle (setup and done).
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/expected.h"

namespace pacer::script {

// Closes the state, then frees its allocator's bookkeeping (lua_state.cc).
struct LuaCloser {
  void operator()(lua_State* L) const;
};
using LuaStatePtr = std::unique_ptr<lua_State, LuaCloser>;

// A new state with the standard libraries open, whose allocator refuses to hold
// more than max_bytes (--lua-memory: per state; a scenario's or a -s script's,
// one per worker thread, one more on the main thread) (LuaJIT then raises "not enough memory", which pop_error
// words as the cap). LuaJIT 2.1 with GC64 (Debian's x86_64 and arm64 builds)
// takes a custom allocator for every GC object; only its machine code (at most
// 512 KiB by default) lives outside it. Aborts only if LuaJIT cannot allocate
// its first page (out of memory before the run starts).
LuaStatePtr new_lua_state(std::uint64_t max_bytes = kDefaultLuaMemoryBytes);

// The error message on top of the stack (or a description of a non-string
// error value); pops it. A memory error of a state that reached its cap says so
// ("not enough memory: the Lua memory cap (256 MiB, --lua-memory) is reached").
std::string pop_error(lua_State* L);
// The same wording for a message already taken off the stack (a scenario's
// xpcall hands it over as an argument).
std::string describe_error(lua_State* L, std::string_view message);

// Bytes the state's allocator holds now (for tests and messages).
std::uint64_t lua_memory_in_use(lua_State* L);

// lua_pcall with a traceback-free handler; on failure the message is returned
// and the stack is left as before the function and its nargs arguments.
Status protected_call(lua_State* L, int nargs, int nresults);

// Pushes onto dst a copy of the value at `index` in src: nil, booleans, numbers,
// strings and tables of them (recursively). Returns nullptr, or (pushing
// nothing) the Lua type name of the first value that cannot be copied, so the
// caller can raise the error in the state that is running ("cannot transfer
// 'function' to thread", as wrk says). src and dst may be the same state.
const char* copy_value(lua_State* src, lua_State* dst, int index);

// True if the global `name` is a function.
bool has_global_function(lua_State* L, const char* name);

}  // namespace pacer::script
