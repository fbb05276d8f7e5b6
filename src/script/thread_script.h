// One worker thread's Lua state (wrk's one-state-per-thread model) and the
// thread object scripts see (wrk.thread, and setup's argument): thread.addr,
// thread:get, thread:set, thread:stop. Built and set up on the main thread
// before the run (ScriptHost), then used only by its worker's thread; stop is
// the one field another thread reads (atomic).
//
// Per-request cost: nothing unless request(), response() or delay() is defined
// (the worker asks has_request() and friends once). The calls below allocate
// only inside Lua (strings and tables the script makes).
#pragma once

#include <lua.hpp>

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"
#include "net/address.h"
#include "script/lua_state.h"
#include "watchdog/lua_watch.h"

namespace pacer::script {

class ThreadScript {
 public:
  ThreadScript(int index, const net::Address& address);
  ThreadScript(const ThreadScript&) = delete;
  ThreadScript& operator=(const ThreadScript&) = delete;

  // Main thread: loads the script into this thread's state and sets wrk.thread.
  Status load(const Config& config);
  // Main thread, after setup(thread): init(args) (args[0] is the URL, as in
  // wrk), then the request built once; notes which hooks the script defines.
  Status init(const Config& config);

  lua_State* state() const { return state_.get(); }
  int index() const { return index_; }
  const net::Address& address() const { return address_; }
  void set_address(const net::Address& address) { address_ = address; }

  bool has_request() const { return has_request_; }
  bool has_response() const { return has_response_; }
  bool has_delay() const { return has_delay_; }
  // The request(s) wrk.request() returned after init: what every connection
  // sends when request() is not defined.
  const std::string& static_request() const { return static_request_; }

  // A new per-connection table (pacer's extension); returns its registry ref.
  int new_connection_table();

  // request(conn): copies the bytes to send into out (its capacity is reused),
  // and its second value, the request's name (nil: none), into *name (cleared
  // when absent) when name is not null.
  Status request(int connection_ref, std::string& out, std::string* name = nullptr);
  // response(status, headers, body, conn). fields: "name\0value\0..." as the
  // parser captured them.
  Status response(int status, std::string_view fields, std::string_view body, int connection_ref);
  // delay(): milliseconds before the next request, as nanoseconds.
  Result<TimeNs> delay();

  // thread:stop() was called (from any state). Relaxed: a hint polled per wake-up.
  bool stop_requested() const { return stop_.load(std::memory_order_relaxed); }
  void request_stop() { stop_.store(true, std::memory_order_relaxed); }

  // Pushes the thread object onto L (any state; the object refers to this).
  void push_thread_object(lua_State* L);

  // The worker's beat (watchdog/lua_watch.h; null: none): request(), response()
  // and delay() mark it, so a call that never returns can be told from a slow one.
  void set_lua_beat(watchdog::LuaBeat* beat) { beat_ = beat; }

 private:
  LuaStatePtr state_;
  watchdog::LuaBeat* beat_ = nullptr;
  int index_;
  net::Address address_;
  std::atomic<bool> stop_{false};
  bool has_request_ = false;
  bool has_response_ = false;
  bool has_delay_ = false;
  std::string static_request_;
};

}  // namespace pacer::script
