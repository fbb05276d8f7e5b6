// See script_host.h. os.exit in the host state does not end the process from
// inside Lua: it records the code and unwinds (a Lua error), so that done()'s
// caller flushes the report and returns the code the normal way.
#include "script/script_host.h"

#include <cstdio>
#include <cstdlib>

#include "script/done_api.h"
#include "script/wrk_api.h"

namespace pacer::script {

namespace {

constexpr double kNsPerUsDivisor = 1000.0;  // latency histograms are in ns; wrk speaks us

int host_exit(lua_State* L) {
  auto* host = static_cast<ScriptHost*>(lua_touserdata(L, lua_upvalueindex(1)));
  int code = EXIT_SUCCESS;
  if (lua_isboolean(L, 1)) {
    code = lua_toboolean(L, 1) != 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  } else if (!lua_isnoneornil(L, 1)) {
    code = static_cast<int>(luaL_checkinteger(L, 1));
  }
  host->set_exit_code(code);
  return luaL_error(L, "os.exit(%d)", code);  // unwinds to the pcall; the caller sees exit_code()
}

}  // namespace

Result<std::unique_ptr<ScriptHost>> ScriptHost::load(const Config& config) {
  auto host = std::make_unique<ScriptHost>(config);
  host->state_ = new_lua_state(config.lua_memory_bytes);
  host->install_exit();
  if (Status loaded = load_wrk_script(host->state_.get(), config); !loaded) {
    if (host->exit_code_) host->exit_now();
    return loaded.error();
  }
  return host;
}

void ScriptHost::install_exit() {
  lua_State* L = state_.get();
  lua_getglobal(L, "os");
  lua_pushlightuserdata(L, this);
  lua_pushcclosure(L, &host_exit, 1);
  lua_setfield(L, -2, "exit");
  lua_pop(L, 1);
}

void ScriptHost::exit_now() const {
  std::fflush(nullptr);
  std::exit(exit_code_.value_or(EXIT_SUCCESS));
}

Status ScriptHost::setup(int workers, const net::Address& address) {
  lua_State* L = state_.get();
  for (int i = 0; i < workers; ++i) {
    threads_.push_back(std::make_unique<ThreadScript>(i, address));
    ThreadScript& t = *threads_.back();
    if (Status loaded = t.load(config_); !loaded) return loaded;
    lua_getglobal(L, "wrk");
    lua_getfield(L, -1, "setup");
    t.push_thread_object(L);
    if (lua_pcall(L, 1, 0, 0) != 0) {
      if (exit_code_) exit_now();
      Error e = bad_input("script " + config_.script_path + ": in setup: " + pop_error(L));
      lua_pop(L, 1);
      return e;
    }
    lua_pop(L, 1);
    if (Status initialised = t.init(config_); !initialised) return initialised;
  }
  return Ok{};
}

void ScriptHost::fail(const std::string& message) {
  std::lock_guard lock(failure_mutex_);
  if (failed_.load(std::memory_order_relaxed)) return;
  failure_ = message;
  failed_.store(true, std::memory_order_relaxed);
}

std::string ScriptHost::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

Result<std::optional<int>> ScriptHost::done(const report::RunReport& report) {
  lua_State* L = state_.get();
  if (!has_global_function(L, "done")) return std::optional<int>{};
  lua_getglobal(L, "done");
  push_summary(L, report);
  push_stats(L, report.latency, kNsPerUsDivisor);
  push_stats(L, report.rate_samples, 1.0);
  if (lua_pcall(L, 3, 0, 0) != 0) {
    if (exit_code_) {
      lua_pop(L, 1);
      return exit_code_;
    }
    return runtime_error("script " + config_.script_path + ": in done: " + pop_error(L));
  }
  return std::optional<int>{};
}

}  // namespace pacer::script
