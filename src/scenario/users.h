// One worker's virtual users (issue 16): a LuaJIT coroutine per user, bound to
// the worker's connection of the same index, and the rules of when each runs.
//
// A user's coroutine runs the prelude's loop (scenario_load.cc) over the plan
// (scenario_plan.h): the user's type is fixed by its id; on_start, then tasks,
// each picked by weight (or in order, in a sequence), task sets entered and left
// by u:interrupt(). It gives control back only by yielding from the
// API (user_api.cc): a request (kWantsSend: the worker sends it when the
// user's connection can take it), u:sleep (kSleeping), or the end of a task
// (closed model: think time, kThinking; open model: kIdle, free for the next
// task). Events (a response, a failed request, a due timer, an arrival) never
// resume a coroutine where they happen: they queue the user (ready_), and
// run_ready() resumes the queued users in order, once per turn of the worker's
// loop, so no Lua runs inside the parser or the worker's bookkeeping.
//
// Timing (docs/scenarios.md): a step is due when the previous step finished
// (the response's receive stamp, or the failure) plus any u:sleep; a task's first
// step is due at the task's scheduled time (closed model: the end of the think
// time; open model: its arrival). Latency is measured from the due time.
//
// Per request: no C++ allocation (the request bytes go into the user's own
// buffer, capacity reused; names are indexes). Lua allocates its strings and the
// response table, as any Lua code does.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "cookie/cookie_jar.h"
#include "core/expected.h"
#include "proto/http1_parser.h"
#include "scenario/scenario_load.h"
#include "scenario/scenario_stats.h"
#include "scenario/weighted_pick.h"
#include "script/lua_state.h"
#include "watchdog/lua_watch.h"
#include "stats/name_table.h"

namespace pacer::scenario {

// What the users need from the worker (implemented by engine/drive/scenario_driver.cc).
class Port {
 public:
  virtual ~Port() = default;
  virtual void connect(int user) = 0;                 // open the user's connection (it is created)
  virtual void send(int user) = 0;                    // the user's request is ready: send it when its connection can
  virtual TimeNs now() const = 0;
  virtual bool recorded(TimeNs t_sched) const = 0;    // after the warm-up
  virtual void give_up_task(TimeNs t_sched) = 0;      // open model: a task waited too long for a user (`unsent`)
  // u:success() on the user's last response (status >= 400, recorded): the
  // recorder counts it a success, not a `status` error, under its name and in
  // the run's totals. True when it did; the users then count it so too.
  virtual bool mark_success(int user) = 0;
  // set_target stopped the user: close its connection, dropping a request in
  // flight without counting it an error (its response must not reach a user
  // started later on the same index).
  virtual void release(int user) = 0;
};

struct User {
  enum class State : std::uint8_t {
    kUnborn,     // not created yet (spawn rate, open model)
    kQueued,     // on the ready queue: its coroutine resumes at the next run_ready()
    kWantsSend,  // yielded a request, not written yet
    kInFlight,   // its request is on the wire
    kSleeping,   // u:sleep, until wake_ns
    kThinking,   // closed model: between tasks (wait), until wake_ns
    kIdle,       // open model: free for the next task
    kDead,       // its coroutine ended or the run ends
  };
  State state = State::kUnborn;
  bool in_task = false;
  bool started = false;          // through on_start (its first task boundary)
  bool last_recorded = false;    // the last response was recorded (after the warm-up)
  bool spawn_due = false;        // kUnborn: a spawn timer at wake_ns is armed (set_target may cancel it)
  bool retiring = false;         // set_target stops it at its next task boundary, or at retire_ns
  bool checked = false;          // u:fail already counted on the last request
  bool last_failed = false;      // the last request failed or had a status >= 400
  bool capturing = false;
  bool has_request = false;      // made a request yet (u:fail names it)
  bool in_ring = false;          // its index is on the ready ring (at most once)
  std::uint8_t resume_kind = 0;  // what the queued resume passes (Users::Resume)
  std::uint8_t type = 0;          // the user's type (scenario_plan.h), by its id
  std::uint32_t task_errors = 0; // failures in the running task (requests, checks, Lua errors)
  int task = -1;                 // the running task (the plan's leaf), -1 until the user loop names it
  int co_ref = LUA_NOREF;        // the coroutine, kept from the garbage collector
  int table_ref = LUA_NOREF;     // u
  lua_State* co = nullptr;
  std::uint32_t id = 0;          // u.id: unique in the run
  int index = 0;                 // in the worker's users (= its connection's index)
  std::uint32_t name = 0;        // the last request's name (ScenarioStats::names)
  bool head = false;             // the last request is HEAD
  int status = 0;                // the last response's status (0: failed)
  const char* error = nullptr;   // the last request's error class (status 0)
  TimeNs mark_ns = 0;            // the previous step's end plus sleeps: the next step's due time
  TimeNs wake_ns = 0;            // kSleeping, kThinking
  TimeNs task_start_ns = 0;      // the running task's scheduled start
  TimeNs retire_ns = 0;          // retiring: when it is stopped whatever it is doing (--stop-timeout)
  std::string request;           // the bytes of the request being sent
  proto::ResponseCapture capture;  // headers always (the jar's Set-Cookie); the body when the scenario reads it
  cookie::CookieJar cookies;        // u.cookies (scenario/user_cookies.cc); a new user starts empty
};

class Users {
 public:
  // users: this worker's share (closed: -u; open: --max-users); worker/workers:
  // for u.id; backlog: room for tasks waiting for a user (open model).
  Users(const Config& config, int worker, int workers, int users, std::size_t backlog);
  ~Users();
  Users(const Users&) = delete;
  Users& operator=(const Users&) = delete;

  // Before the run, main thread: the worker's state, the file, the users' tables.
  Status prepare(Port& port);
  int count() const { return static_cast<int>(users_.size()); }
  User& user(int index) { return users_[static_cast<std::size_t>(index)]; }
  const User& user(int index) const { return users_[static_cast<std::size_t>(index)]; }
  // Every user's responses are captured: their headers for the cookie jar, their bodies when the file reads them.
  bool captures() const { return true; }

  // The run starts at start_ns: the closed model spawns users (--spawn-rate):
  // the first `users` of them (a load shape's or the web view's count; -1: all).
  void start(TimeNs start_ns, int users = -1);
  // Timers due (spawns, sleeps, think times), then the queued resumes.
  void run_due(TimeNs now_ns);
  TimeNs next_due_ns() const;  // INT64_MAX when nothing waits; now when users are queued
  bool has_ready() const { return ready_count_ > 0; }
  // The worker, outside the parser, right after a user's connection was read:
  // a user queued with its response resumes now, so its next request leaves in
  // this wake-up (as a script's request() would), not at the next turn.
  void resume_answered(int index);

  // The worker's events.
  std::string_view request_bytes(int index) const { return users_[static_cast<std::size_t>(index)].request; }
  void sent(int index) { user(index).state = User::State::kInFlight; }
  // done_ns: the response's receive stamp.
  void on_response(int index, int status, TimeNs done_ns, bool recorded);
  void on_failed(int index, const char* error_class, TimeNs at_ns, bool recorded);
  // Open model: a task arrives, scheduled at t_sched.
  void start_task(TimeNs t_sched);
  // Open model: tasks that waited in the backlog longer than limit_ns are given up.
  void expire_backlog(TimeNs now_ns, TimeNs limit_ns);
  bool backlog_empty() const { return backlog_size_ == 0; }
  std::size_t backlog_size() const { return backlog_size_; }
  // The run ended: on_stop for every user created (its requests are not sent).
  void stop();

  // Closed model, a changing user count (issue 27: a load shape, the web view's
  // POST /users), called by the engine about once a second with this worker's
  // share: users 0..users-1 run, the missing ones started at spawn_rate_per_s
  // (0: at once) from now_ns; the ones past it stop from the highest index:
  // each ends its current task (at most stop_timeout_ns; 0: at once, its task
  // cut and not counted), runs on_stop (its requests not sent), and its
  // connection is released (Port::release). A stopped user is no error, and a
  // user started again later is a new one (on_start again). users is clamped
  // to 0..count(). Call it after start().
  void set_target(int users, double spawn_rate_per_s, TimeNs stop_timeout_ns, TimeNs now_ns);
  int running() const { return running_; }  // users started and not stopped

  ScenarioStats& stats() { return stats_; }

  // The API's side (user_api.cc): the running user and what its calls do.
  User* current() { return current_; }
  std::string_view host_header() const { return host_header_; }
  // Where u's requests go, for its cookie jar (the path of its last request), and the time for expiries.
  cookie::Origin cookie_origin(const User& u) const;
  static std::int64_t cookie_now_s();
  const Config& config() const { return config_; }
  // A request name's id: the run's name table's (targets), or the users' own without one (tests).
  std::uint32_t name_index(std::string_view name) {
    return names_ != nullptr ? names_->intern(name) : stats_.name_index(name);
  }
  // Before prepare(): the run's name table (request names; --max-names caps them).
  void set_name_table(stats::NameTable* names) { names_ = names; }
  // The worker's beat (watchdog/lua_watch.h; null: none): every resume marks it
  // with the task it runs, so a task that never yields can be named and left behind.
  void set_lua_beat(watchdog::LuaBeat* beat) { beat_ = beat; }
  // After the run: the name rows get their text from the table.
  void name_rows();
  // "METHOD path": the name of a request that was given none.
  std::uint32_t default_name(std::string_view method, std::string_view path);
  // The end of on_start or of a task (next_task in the prelude): true if the
  // coroutine yields (its next task comes later), false if it ends (the run ends).
  bool task_boundary(User& u, double wait_s);
  void fail_last(User& u, std::string_view message);
  // u:success(): the last response (status >= 400) is not a failure; false when there is none.
  bool succeed_last(User& u);
  // The user loop names the task it runs (a leaf of the plan, 0-based).
  void task_is(User& u, int task);
  void script_error(User& u, std::string_view message, std::string_view hook);
  double random() { return rng_.uniform(); }
  bool stopping() const { return stopping_; }

  enum Resume : std::uint8_t { kResumeStart, kResumeNothing, kResumeResponse, kResumeTask };

 private:
  struct Timer {
    TimeNs at_ns;
    int user;
  };
  static bool later(const Timer& a, const Timer& b) { return a.at_ns > b.at_ns; }
  void spawn(int index, TimeNs now_ns);
  void queue(User& u, Resume kind);
  void wake(User& u);  // a sleep or think time is over
  void resume(int index);
  void after_yield(int index);
  void end_task(User& u);
  void begin_task(User& u, TimeNs t_sched);
  void add_timer(int index, TimeNs at_ns);
  bool take_backlog(User& u);
  void run_on_stop(User& u, const char* why);
  void stop_user(User& u);       // set_target's: on_stop, release, back to kUnborn
  void retire(User& u, TimeNs at_ns);
  void store_cookies(User& u);   // the last response's Set-Cookie headers into u's jar

  const Config& config_;
  const int worker_;
  const int workers_;
  Port* port_ = nullptr;
  script::LuaStatePtr state_;
  ScenarioRefs refs_;
  stats::NameTable* names_ = nullptr;
  std::string name_scratch_;      // default_name's key (capacity reused)
  watchdog::LuaBeat* beat_ = nullptr;
  std::vector<std::string> beat_labels_;  // per task "the scenario's task 'NAME'", then the hooks' label
  std::string host_header_;
  std::string cookie_host_;       // the target's host, lower case (the cookie jars' origin)
  bool captures_ = false;
  bool open_ = false;
  bool stopping_ = false;
  Rng rng_;
  std::vector<std::uint8_t> type_of_id_;  // user id -> its type (assign_user_types); ids past it start no user
  bool has_stop_ = false;
  std::vector<User> users_;
  int born_ = 0;                  // users created so far (indexes 0..born_-1)
  int running_ = 0;               // spawned and not stopped by set_target
  int free_count_ = 0;
  std::vector<int> free_;         // open model: idle users (a stack)
  int starting_ = 0;              // open model: created users not yet through on_start
  std::vector<int> ready_;        // ring of queued users
  std::size_t ready_head_ = 0;
  std::size_t ready_count_ = 0;
  std::vector<Timer> timers_;     // min-heap; stale entries are skipped
  std::vector<TimeNs> backlog_;   // ring of waiting tasks' scheduled times
  std::size_t backlog_head_ = 0;
  std::size_t backlog_size_ = 0;
  TimeNs start_ns_ = 0;
  TimeNs spawn_gap_ns_ = 0;       // closed model with --spawn-rate: between two users of the run
  User* current_ = nullptr;
  ScenarioStats stats_;
};

// Pushes u's last response (status, error, and headers and body when captured)
// as a table with the response metatable (user_api.cc).
void push_response(lua_State* L, const User& u, int response_meta_ref);

}  // namespace pacer::scenario
