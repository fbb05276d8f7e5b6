// See user_scripts.h.
#include "scenario/user_scripts.h"

namespace pacer::scenario {

namespace {
constexpr int kMaxStopSteps = 100;  // on_stop's requests are answered "run ended"; past this many it is dropped
}  // namespace

UserScripts::UserScripts(const Config& config, int worker)
    : config_(config), rng_(config.seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(worker) + 1) {}

UserScripts::~UserScripts() = default;

Result<ScenarioShape> UserScripts::load(Users* api) {
  state_ = script::new_lua_state(config_.lua_memory_bytes);
  auto shape = load_scenario(state_.get(), config_, api, refs_);
  if (!shape) return shape.error();
  has_stop_ = shape->plan.has_stop;
  for (const std::string& name : shape->plan.task_names) beat_labels_.push_back("the scenario's task '" + name + "'");
  beat_labels_.push_back("the scenario's on_start, wait or on_stop");
  return shape;
}

void UserScripts::create(User& u) {
  lua_State* L = state_.get();
  u.co = lua_newthread(L);
  u.co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_pushinteger(L, static_cast<lua_Integer>(u.id));
  lua_setfield(L, -2, "id");
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs_.user_meta);
  lua_setmetatable(L, -2);
  u.table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  // The coroutine's body and its arguments wait on its stack for the first resume.
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, refs_.user_loop);
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, u.table_ref);
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, refs_.definition);
  lua_pushinteger(u.co, u.type + 1);
}

const char* UserScripts::beat_label(const User& u) const {
  if (beat_labels_.empty()) return "the scenario";
  const bool in_task = u.in_task && u.task >= 0 && static_cast<std::size_t>(u.task) + 1 < beat_labels_.size();
  return beat_labels_[in_task ? static_cast<std::size_t>(u.task) : beat_labels_.size() - 1].c_str();
}

UserScripts::Outcome UserScripts::resume(User& u) {
  lua_State* co = u.co;
  int nargs = 0;
  if (u.resume_kind == Resume::kStart) {
    nargs = 3;  // the body's arguments, pushed by create()
  } else {
    lua_settop(co, 0);
    if (u.resume_kind == Resume::kResponse) {
      push_response(co, u, refs_.response_meta);
      nargs = 1;
    } else if (u.resume_kind == Resume::kTask) {
      lua_pushinteger(co, 1);  // the task begins (0 would say the run ended)
      nargs = 1;
    }
  }
  u.state = User::State::kIdle;  // until the yield says otherwise
  current_ = &u;
  int rc = 0;
  {
    const watchdog::InLua in_lua(beat_, beat_label(u));
    rc = lua_resume(co, nargs);
  }
  current_ = nullptr;
  if (rc == LUA_YIELD) return Outcome::kYielded;
  return rc == 0 ? Outcome::kReturned : Outcome::kFailed;
}

std::string_view UserScripts::error_text(const User& u) const {
  const char* text = lua_tostring(u.co, -1);
  return text != nullptr ? text : "error";
}

void UserScripts::run_on_stop(User& u, const char* why) {
  if (!has_stop_) return;
  lua_State* L = state_.get();
  lua_State* co = lua_newthread(L);
  lua_rawgeti(co, LUA_REGISTRYINDEX, refs_.stopper);
  lua_rawgeti(co, LUA_REGISTRYINDEX, u.table_ref);
  lua_rawgeti(co, LUA_REGISTRYINDEX, refs_.definition);
  int nargs = 2;
  for (int step = 0; step < kMaxStopSteps; ++step) {
    current_ = &u;
    const int rc = lua_resume(co, nargs);
    current_ = nullptr;
    if (rc != LUA_YIELD) break;
    lua_settop(co, 0);
    nargs = 0;
    if (u.state == User::State::kWantsSend) {  // not sent: the user (or the run) has ended
      u.status = 0;
      u.error = why;
      u.elapsed_ns = 0;  // never sent
      push_response(co, u, refs_.response_meta);
      nargs = 1;
    }
  }
  lua_pop(L, 1);
}

void UserScripts::drop(User& u) {
  lua_State* L = state_.get();
  luaL_unref(L, LUA_REGISTRYINDEX, u.co_ref);
  luaL_unref(L, LUA_REGISTRYINDEX, u.table_ref);
  u.co = nullptr;
  u.co_ref = LUA_NOREF;
  u.table_ref = LUA_NOREF;
}

}  // namespace pacer::scenario
