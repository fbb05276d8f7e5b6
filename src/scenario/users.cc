// See users.h.
#include "scenario/users.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/byte_size.h"

namespace pacer::scenario {

namespace {
constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
constexpr int kMaxStopSteps = 100;  // on_stop's requests are answered "run ended"; past this many it is dropped

proto::CaptureCap cap(std::uint64_t max, std::string reason) {
  return proto::CaptureCap{static_cast<std::size_t>(std::min<std::uint64_t>(max, SIZE_MAX)), std::move(reason)};
}
}  // namespace

Users::Users(const Config& config, int worker, int workers, int users, std::size_t backlog)
    : config_(config), worker_(worker), workers_(workers), users_(static_cast<std::size_t>(users)) {
  ready_.resize(users_.size());
  timers_.reserve(users_.size() * 2 + 1);
  free_.reserve(users_.size());
  backlog_.resize(config.is_open_model() ? std::max<std::size_t>(backlog, 1) : 0);
}

Users::~Users() = default;

Status Users::prepare(Port& port) {
  port_ = &port;
  open_ = config_.is_open_model();
  state_ = script::new_lua_state(config_.lua_memory_bytes);
  lua_State* L = state_.get();
  auto shape = load_scenario(L, config_, this, refs_);
  if (!shape) return shape.error();
  captures_ = shape->captures;
  has_stop_ = shape->plan.has_stop;
  type_of_id_ = assign_user_types(shape->plan.types, users_.size() * static_cast<std::size_t>(workers_));
  rng_ = Rng(config_.seed * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(worker_) + 1);
  stats_.active = true;
  stats_.open_model = open_;
  stats_.user_limit = users_.size();
  for (const std::string& name : shape->plan.task_names) {
    stats_.tasks.push_back(TaskRow{name});
    beat_labels_.push_back("the scenario's task '" + name + "'");
  }
  beat_labels_.push_back("the scenario's on_start, wait or on_stop");
  host_header_ = config_.target.host_header();
  name_scratch_.reserve(256);
  cookie_host_ = config_.target.host;
  for (char& c : cookie_host_) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  proto::ResponseCapture capture;
  capture.keep_body = captures_;  // the headers always: the cookie jar reads Set-Cookie
  {
    capture.max_headers = cap(config_.max_capture_headers,
                              fmt::format("more than {} response headers to capture for the scenario (--max-capture-headers)",
                                          config_.max_capture_headers));
    capture.max_header_bytes = cap(config_.max_capture_header_bytes,
                                   fmt::format("response headers over {} to capture for the scenario (--max-capture-header-bytes)",
                                               format_byte_size(config_.max_capture_header_bytes)));
    capture.max_body_bytes = cap(config_.max_capture_body_bytes,
                                 fmt::format("response body over {} to capture for the scenario (--max-capture-body)",
                                             format_byte_size(config_.max_capture_body_bytes)));
  }
  for (std::size_t i = 0; i < users_.size(); ++i) {
    User& u = users_[i];
    u.index = static_cast<int>(i);
    u.id = static_cast<std::uint32_t>(i) * static_cast<std::uint32_t>(workers_) + static_cast<std::uint32_t>(worker_);
    u.capturing = captures_;
    if (u.id < type_of_id_.size()) u.type = type_of_id_[u.id];
    u.capture.max_headers = capture.max_headers;
    u.capture.max_header_bytes = capture.max_header_bytes;
    u.capture.max_body_bytes = capture.max_body_bytes;
    u.capture.keep_body = capture.keep_body;
  }
  return Ok{};
}

std::uint32_t Users::default_name(std::string_view method, std::string_view path) {
  // Locust's grouping: the query string is left out ("GET /item?id=1" -> "GET /item").
  name_scratch_.assign(method).append(" ").append(path.substr(0, path.find('?')));
  return name_index(name_scratch_);
}

void Users::name_rows() {
  if (names_ == nullptr) return;
  for (std::size_t i = 0; i < stats_.names.size(); ++i) {
    stats_.names[i].name = stats::printable_name(names_->name(static_cast<stats::NameId>(i)));
  }
}

void Users::start(TimeNs start_ns, int users) {
  start_ns_ = start_ns;
  if (open_) return;
  const double rate = config_.spawn_rate_per_s;
  const std::size_t first = users < 0 ? users_.size() : std::min(users_.size(), static_cast<std::size_t>(users));
  for (std::size_t i = 0; i < first; ++i) {
    if (!(rate > 0)) {
      spawn(static_cast<int>(i), start_ns);
      continue;
    }
    const double at_s = static_cast<double>(users_[i].id) / rate;
    users_[i].spawn_due = true;
    users_[i].wake_ns = start_ns + static_cast<TimeNs>(at_s * 1e9);
    add_timer(static_cast<int>(i), users_[i].wake_ns);
  }
}

void Users::spawn(int index, TimeNs now_ns) {
  User& u = user(index);
  born_ = std::max(born_, index + 1);
  u.spawn_due = false;
  // Every type has a fixed count and they are all running: this user has none.
  if (u.id >= type_of_id_.size()) {
    u.state = User::State::kDead;
    return;
  }
  lua_State* L = state_.get();
  u.co = lua_newthread(L);
  u.co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_pushinteger(L, static_cast<lua_Integer>(u.id));
  lua_setfield(L, -2, "id");
  lua_rawgeti(L, LUA_REGISTRYINDEX, refs_.user_meta);
  lua_setmetatable(L, -2);
  u.table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  // The coroutine's body and its two arguments wait on its stack for the first resume.
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, refs_.user_loop);
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, u.table_ref);
  lua_rawgeti(u.co, LUA_REGISTRYINDEX, refs_.definition);
  lua_pushinteger(u.co, u.type + 1);
  u.mark_ns = now_ns;
  u.cookies.clear();  // a new user, a new session
  ++stats_.users_started;
  ++running_;
  if (open_) ++starting_;
  port_->connect(index);
  queue(u, kResumeStart);
}

void Users::queue(User& u, Resume kind) {
  u.state = User::State::kQueued;
  u.resume_kind = kind;
  if (u.in_ring) return;  // already on the ring (resumed early by resume_answered, then queued again)
  u.in_ring = true;
  ready_[(ready_head_ + ready_count_) % ready_.size()] = u.index;
  ++ready_count_;
}

void Users::resume_answered(int index) {
  const User& u = user(index);
  if (u.state == User::State::kQueued && u.resume_kind == kResumeResponse) resume(index);
}

void Users::add_timer(int index, TimeNs at_ns) {
  timers_.push_back(Timer{at_ns, index});
  std::push_heap(timers_.begin(), timers_.end(), &Users::later);
}

TimeNs Users::next_due_ns() const {
  if (ready_count_ > 0) return port_->now();
  return timers_.empty() ? kNever : timers_.front().at_ns;
}

void Users::run_due(TimeNs now_ns) {
  while (!timers_.empty() && timers_.front().at_ns <= now_ns) {
    std::pop_heap(timers_.begin(), timers_.end(), &Users::later);
    const Timer t = timers_.back();
    timers_.pop_back();
    User& u = user(t.user);
    if (u.state == User::State::kUnborn) {
      if (u.spawn_due && u.wake_ns == t.at_ns) spawn(t.user, t.at_ns);
    } else if (u.retiring && u.retire_ns == t.at_ns) {
      stop_user(u);  // --stop-timeout is over
    } else if (u.wake_ns == t.at_ns) {
      wake(u);
    }
  }
  // A bounded number of resumes per turn: tasks that never wait for anything
  // (no request, no think time) must not keep the loop from its timers.
  for (std::size_t budget = 2 * users_.size() + 16; budget > 0 && ready_count_ > 0; --budget) {
    const int index = ready_[ready_head_];
    ready_head_ = (ready_head_ + 1) % ready_.size();
    --ready_count_;
    User& u = user(index);
    u.in_ring = false;
    if (u.state != User::State::kQueued) continue;  // resumed early (resume_answered)
    resume(index);
  }
}

void Users::resume(int index) {
  User& u = user(index);
  lua_State* co = u.co;
  int nargs = 0;
  const auto kind = static_cast<Resume>(u.resume_kind);
  if (kind == kResumeStart) {
    nargs = 3;  // the body's arguments, pushed by spawn()
  } else {
    lua_settop(co, 0);
    if (kind == kResumeResponse) {
      push_response(co, u, refs_.response_meta);
      nargs = 1;
    } else if (kind == kResumeTask) {
      lua_pushinteger(co, 1);  // the task begins (0 would say the run ended)
      nargs = 1;
    }
  }
  u.state = User::State::kIdle;  // until the yield says otherwise
  current_ = &u;
  int rc = 0;
  {
    const bool in_task = u.in_task && u.task >= 0 && static_cast<std::size_t>(u.task) + 1 < beat_labels_.size();
    const watchdog::InLua in_lua(beat_, beat_labels_.empty() ? "the scenario"
                                        : beat_labels_[in_task ? static_cast<std::size_t>(u.task)
                                                               : beat_labels_.size() - 1].c_str());
    rc = lua_resume(co, nargs);
  }
  current_ = nullptr;
  if (rc == LUA_YIELD) {
    after_yield(index);
    return;
  }
  if (rc != 0) {  // an error outside the prelude's xpcall (e.g. a yield across a C call)
    const char* text = lua_tostring(co, -1);
    script_error(u, text != nullptr ? text : "error", "user");
  }
  if (u.in_task) end_task(u);
  u.state = User::State::kDead;
  if (u.retiring) stop_user(u);  // it ended its task: set_target stops it now
}

void Users::after_yield(int index) {
  User& u = user(index);
  switch (u.state) {
    case User::State::kWantsSend:
      port_->send(index);
      break;
    case User::State::kSleeping:
    case User::State::kThinking:
      if (u.wake_ns <= port_->now()) {
        wake(u);  // no think time (or a sleep already over): at once
      } else {
        add_timer(index, u.wake_ns);
      }
      break;
    default:
      break;  // kIdle (open model, free), kQueued (the next task was waiting)
  }
}

void Users::wake(User& u) {
  if (u.state == User::State::kSleeping) {
    queue(u, kResumeNothing);
  } else if (u.state == User::State::kThinking) {
    begin_task(u, u.wake_ns);
    queue(u, kResumeTask);
  }
}

bool Users::task_boundary(User& u, double wait_s) {
  if (u.in_task) end_task(u);
  const bool through_start = u.started;
  u.started = true;
  if (stopping_ || u.retiring) return false;
  if (open_) {
    if (!through_start && starting_ > 0) --starting_;  // through on_start
    if (take_backlog(u)) return true;
    u.state = User::State::kIdle;
    free_.push_back(u.index);
    return true;
  }
  u.wake_ns = u.mark_ns + static_cast<TimeNs>(std::min(wait_s, 1e9) * 1e9);
  u.state = User::State::kThinking;
  return true;
}

bool Users::take_backlog(User& u) {
  if (backlog_size_ == 0) return false;
  const TimeNs t_sched = backlog_[backlog_head_];
  backlog_head_ = (backlog_head_ + 1) % backlog_.size();
  --backlog_size_;
  begin_task(u, t_sched);
  queue(u, kResumeTask);
  return true;
}

void Users::begin_task(User& u, TimeNs t_sched) {
  u.task = -1;  // the user loop picks it (task_is)
  u.task_start_ns = t_sched;
  u.mark_ns = t_sched;
  u.in_task = true;
  u.task_errors = 0;
}

void Users::task_is(User& u, int task) {
  if (task >= 0 && static_cast<std::size_t>(task) < stats_.tasks.size()) u.task = task;
}

void Users::end_task(User& u) {
  u.in_task = false;
  // A slot whose task set was left before any of its tasks began has no row.
  if (u.task < 0 || !port_->recorded(u.task_start_ns)) return;
  TaskRow& row = stats_.tasks[static_cast<std::size_t>(u.task)];
  ++row.count;
  if (u.task_errors > 0) ++row.failures;
  row.duration.record(std::max<TimeNs>(0, u.mark_ns - u.task_start_ns));
}

void Users::on_response(int index, int status, TimeNs done_ns, bool recorded) {
  User& u = user(index);
  if (u.state != User::State::kInFlight) return;
  u.status = status;
  u.error = nullptr;
  u.mark_ns = done_ns;
  u.last_failed = status >= 400;
  u.last_recorded = recorded;
  store_cookies(u);
  if (u.last_failed && u.in_task) ++u.task_errors;
  if (recorded) {
    NameRow& row = stats_.row(u.name);
    ++row.requests;
    if (u.last_failed) ++row.failed;
  }
  queue(u, kResumeResponse);
}

void Users::on_failed(int index, const char* error_class, TimeNs at_ns, bool recorded) {
  User& u = user(index);
  if (u.state != User::State::kInFlight) return;
  u.status = 0;
  u.error = error_class;
  u.mark_ns = at_ns;
  u.last_failed = true;
  u.last_recorded = recorded;
  if (u.in_task) ++u.task_errors;
  if (recorded) {
    NameRow& row = stats_.row(u.name);
    ++row.requests;
    ++row.failed;
  }
  queue(u, kResumeResponse);
}

void Users::fail_last(User& u, std::string_view message) {
  if (u.in_task) ++u.task_errors;
  if (u.has_request && u.checked) return;  // one check failure per request
  u.checked = true;
  const std::uint32_t name = u.has_request ? u.name : name_index("(no request)");
  if (!port_->recorded(u.in_task ? u.task_start_ns : u.mark_ns)) return;
  ++stats_.check;
  if (u.has_request && u.last_failed) ++stats_.check_on_errors;
  NameRow& row = stats_.row(name);
  ++row.checks;
  if (u.has_request && u.last_failed) ++row.check_on_errors;
  stats_.note("check", names_ != nullptr ? names_->name(name) : std::string_view(row.name), message);
}

bool Users::succeed_last(User& u) {
  if (!u.has_request || !u.last_failed || u.status < 400) return false;  // no response, or not a failure
  u.last_failed = false;
  if (u.in_task && u.task_errors > 0) --u.task_errors;
  // The request's own counts move only with the run's (the recorder's), so that
  // every output says the same.
  if (u.last_recorded && port_->mark_success(u.index)) {
    NameRow& row = stats_.row(u.name);
    if (row.failed > 0) --row.failed;
  }
  return true;
}

void Users::script_error(User& u, std::string_view message, std::string_view hook) {
  const bool in_task = u.in_task && hook == "task" && u.task >= 0;
  if (u.in_task) ++u.task_errors;
  if (!port_->recorded(u.in_task ? u.task_start_ns : port_->now())) return;
  ++stats_.script;
  stats_.note("script", in_task ? std::string_view(stats_.tasks[static_cast<std::size_t>(u.task)].name) : hook, message);
}

void Users::start_task(TimeNs t_sched) {
  if (!free_.empty()) {
    User& u = user(free_.back());
    free_.pop_back();
    begin_task(u, t_sched);
    queue(u, kResumeTask);
    return;
  }
  if (backlog_size_ == backlog_.size()) {
    port_->give_up_task(t_sched);
    return;
  }
  backlog_[(backlog_head_ + backlog_size_) % backlog_.size()] = t_sched;
  ++backlog_size_;
  // A new user for each task that no user starting up will take.
  if (born_ < count() && static_cast<std::size_t>(starting_) < backlog_size_) spawn(born_, port_->now());
}

void Users::expire_backlog(TimeNs now_ns, TimeNs limit_ns) {
  while (backlog_size_ > 0 && now_ns - backlog_[backlog_head_] >= limit_ns) {
    const TimeNs t = backlog_[backlog_head_];
    backlog_head_ = (backlog_head_ + 1) % backlog_.size();
    --backlog_size_;
    port_->give_up_task(t);
  }
}

void Users::stop() {
  stopping_ = true;
  if (!has_stop_) return;
  for (int i = 0; i < born_; ++i) {
    User& u = user(i);
    if (u.co == nullptr) continue;
    u.in_task = false;
    run_on_stop(u, "run ended");
  }
}

void Users::run_on_stop(User& u, const char* why) {
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
      push_response(co, u, refs_.response_meta);
      nargs = 1;
    }
  }
  lua_pop(L, 1);
}

}  // namespace pacer::scenario
