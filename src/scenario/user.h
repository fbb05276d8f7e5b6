// One virtual user's state (issue 16) and what the users need from the worker
// (Port). A User is plain data: the parts of the worker's Users (users.h) each
// change their own fields of it (the agenda its state, the tally its task's
// errors, the scripts its coroutine). One worker thread.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <string>
#include <string_view>

#include "cookie/cookie_jar.h"
#include "core/clock.h"
#include "proto/http1_parser.h"
#include "scenario/response_name.h"

namespace pacer::scenario {

// What the users need from the worker (implemented by engine/drive/user_port.h).
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
  // u:fail(message) on the user's last request, counted (recorded) as a check:
  // what else keeps the request's outcome (the per-request log) learns it.
  virtual void checked(int user, std::string_view message) = 0;
  // set_target stopped the user: close its connection, dropping a request in
  // flight without counting it an error (its response must not reach a user
  // started later on the same index).
  virtual void release(int user) = 0;
};

// What a queued user's coroutine is resumed with.
enum class Resume : std::uint8_t {
  kStart,     // its first resume: the body's arguments
  kNothing,   // a sleep is over
  kResponse,  // its request's response (or failure)
  kTask,      // a task begins (closed: the think time is over; open: a task arrived)
};

struct User {
  enum class State : std::uint8_t {
    kUnborn,     // not created yet (spawn rate, open model)
    kQueued,     // on the ready queue: its coroutine resumes at the next run_due()
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
  bool stop_due = false;         // set_target's ramp-down: a stop timer at stop_ns is armed (it then retires)
  bool checked = false;          // u:fail already counted on the last request
  bool last_failed = false;      // the last request failed or had a status >= 400
  bool capturing = false;
  bool has_request = false;      // made a request yet (u:fail names it)
  bool event_pending = false;    // on_request: the last request's event waits for its outcome (request_events.h)
  Resume resume_kind = Resume::kStart;  // what the queued resume passes
  NameFrom name_from = NameFrom::kCall;  // the last request's name: the call's, or its response's (response_name.h)
  std::uint8_t type = 0;          // the user's type (scenario_plan.h), by its id
  std::uint8_t origin = 0;        // the last request's origin (origins.h; 0: the run's URL's)
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
  TimeNs elapsed_ns = 0;         // the last request's latency: its due time to its end (r.elapsed)
  TimeNs wake_ns = 0;            // kSleeping, kThinking
  TimeNs task_start_ns = 0;      // the running task's scheduled start
  TimeNs retire_ns = 0;          // retiring: when it is stopped whatever it is doing (--stop-timeout)
  TimeNs stop_ns = 0;            // stop_due: when it begins to stop (users leave at the spawn rate)
  TimeNs event_due_ns = 0;       // event_pending: the request's due time (its latency's start)
  std::uint64_t body_bytes = 0;  // the last response's body length
  std::string check_message;     // on_request: u:fail's message on the last request
  std::string name_where;        // name_from: the JSON pointer or the header name
  std::string request;           // the bytes of the request being sent
  bool jar_cookie_line = false;  // its Cookie header is the jar's (and -H's), not the call's own
  std::string follow_up_cookie;  // a followed redirect's Cookie line (Users::on_redirect)
  proto::ResponseCapture capture;  // headers always (the jar's Set-Cookie); the body when the scenario reads it
  cookie::CookieJar cookies;        // u.cookies (scenario/user_cookies.cc); a new user starts empty
};

}  // namespace pacer::scenario
