// The scripting side of one run (-s FILE): the setup/done state on the main
// thread and one ThreadScript per worker, as wrk does it. Order, as in wrk:
// load (the script runs once here), setup() per thread with its thread object,
// init(args) in each thread's state, the run, then done(summary, latency,
// requests) after the report. A runtime error during the run is reported by a
// worker through fail(), which makes every worker stop.
//
// Threads: everything but fail()/failed() runs on the main thread while no
// worker runs; fail() may be called by any worker at any time.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/expected.h"
#include "net/address.h"
#include "report/run_report.h"
#include "script/lua_state.h"
#include "script/thread_script.h"

namespace pacer::script {

class ScriptHost {
 public:
  // Loads config.script_path into the setup state. A syntax error, a runtime
  // error at the top level or an unreadable file is kBadInput (exit 2) with the
  // Lua message (file:line).
  static Result<std::unique_ptr<ScriptHost>> load(const Config& config);

  // One thread state per worker (each runs the script), setup(thread) in the
  // host state for each, then init(args). address: each thread's default
  // thread.addr. Errors are kBadInput naming the script. os.exit(n) in setup
  // or init ends the process with n.
  Status setup(int workers, const net::Address& address);

  int thread_count() const { return static_cast<int>(threads_.size()); }
  ThreadScript& thread(int index) { return *threads_[static_cast<std::size_t>(index)]; }

  // Any thread: records the first run-time script error; every worker stops.
  void fail(const std::string& message);
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  std::string failure() const;

  // done(summary, latency, requests) if the script defines it. Returns the
  // exit code os.exit(n) asked for, if it was called; an error (kRuntime) has
  // the Lua message.
  Result<std::optional<int>> done(const report::RunReport& report);

  // Main thread: the code os.exit asked for in the host state, if any.
  std::optional<int> exit_code() const { return exit_code_; }
  void set_exit_code(int code) { exit_code_ = code; }

 // Use load(). Keeps its own copy of config.
  explicit ScriptHost(const Config& config) : config_(config) {}

 private:
  void install_exit();
  // os.exit was called inside the failed call: flush and end the process.
  [[noreturn]] void exit_now() const;

  const Config config_;
  LuaStatePtr state_;
  std::vector<std::unique_ptr<ThreadScript>> threads_;
  std::optional<int> exit_code_;
  std::atomic<bool> failed_{false};
  mutable std::mutex failure_mutex_;
  std::string failure_;
};

}  // namespace pacer::script
