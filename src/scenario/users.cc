// See users.h.
#include "scenario/users.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/byte_size.h"
#include "scenario/scenario_plan.h"
#include "scenario/user_cookies.h"

namespace pacer::scenario {

namespace {
proto::CaptureCap capture_cap(std::uint64_t max, std::string reason) {
  return proto::CaptureCap{static_cast<std::size_t>(std::min<std::uint64_t>(max, SIZE_MAX)), std::move(reason)};
}
}  // namespace

Users::Users(const Config& config, int worker, int workers, int users, std::size_t backlog, stats::NameTable* names)
    : config_(config),
      worker_(worker),
      workers_(workers),
      open_(config.is_open_model()),
      users_(static_cast<std::size_t>(users)),
      requests_(config),
      scripts_(config, worker),
      tally_(names),
      agenda_(users_.size()),
      population_(users_, agenda_, scripts_, tally_, events_),
      open_tasks_(backlog, users_, agenda_, population_) {}

Users::~Users() = default;

Status Users::prepare(Port& port, watchdog::LuaBeat* beat) {
  port_ = &port;
  scripts_.set_beat(beat);
  auto shape = scripts_.load(this);
  if (!shape) return shape.error();
  types_ = shape->plan.types;
  events_.prepare(scripts_.state(), scripts_.definition_ref());
  const std::vector<std::uint8_t> type_of_id =
      assign_user_types(shape->plan.types, users_.size() * static_cast<std::size_t>(workers_));
  tally_.prepare(port, shape->plan.task_names, open_, users_.size());
  tally_.name_types(shape->plan.type_names());
  population_.prepare(port, open_, type_of_id.size(), types_);
  open_tasks_.prepare(port);
  set_up_users(shape->captures, type_of_id);
  return Ok{};
}

void Users::set_up_users(bool captures, const std::vector<std::uint8_t>& type_of_id) {
  proto::ResponseCapture capture;
  capture.keep_body = captures;  // the headers always: the cookie jar reads Set-Cookie
  capture.max_headers = capture_cap(config_.max_capture_headers,
                                    fmt::format("more than {} response headers to capture for the scenario (--max-capture-headers)",
                                                config_.max_capture_headers));
  capture.max_header_bytes = capture_cap(config_.max_capture_header_bytes,
                                         fmt::format("response headers over {} to capture for the scenario (--max-capture-header-bytes)",
                                                     format_byte_size(config_.max_capture_header_bytes)));
  capture.max_body_bytes = capture_cap(config_.max_capture_body_bytes,
                                       fmt::format("response body over {} to capture for the scenario (--max-capture-body)",
                                                   format_byte_size(config_.max_capture_body_bytes)));
  for (std::size_t i = 0; i < users_.size(); ++i) {
    User& u = users_[i];
    u.index = static_cast<int>(i);
    u.id = static_cast<std::uint32_t>(i) * static_cast<std::uint32_t>(workers_) + static_cast<std::uint32_t>(worker_);
    u.capturing = captures;
    if (u.id < type_of_id.size()) u.type = type_of_id[u.id];
    u.capture.max_headers = capture.max_headers;
    u.capture.max_header_bytes = capture.max_header_bytes;
    u.capture.max_body_bytes = capture.max_body_bytes;
    u.capture.keep_body = capture.keep_body;
  }
}

void Users::start(TimeNs start_ns, const TypeCounts& share) {
  population_.start(start_ns, share, config_.spawn_rate_per_s);
}

void Users::resume_answered(int index) {
  const User& u = user(index);
  if (u.state == User::State::kQueued && u.resume_kind == Resume::kResponse) resume(index);
}

TimeNs Users::next_due_ns() const { return agenda_.next_due_ns(port_->now()); }

void Users::run_due(TimeNs now_ns) {
  TimerHeap::Timer t{};
  while (agenda_.pop_timer(now_ns, t)) {
    User& u = user(t.user);
    // A timer whose user's due time has moved on is stale: skipped.
    if (u.state == User::State::kUnborn) {
      if (u.spawn_due && u.wake_ns == t.at_ns) population_.spawn(t.user, t.at_ns);
    } else if (u.retiring && u.retire_ns == t.at_ns) {
      population_.stop_user(u);  // --stop-timeout is over
    } else if (u.stop_due && u.stop_ns == t.at_ns) {
      population_.stop_timer(u, t.at_ns);  // its turn to leave (the ramp-down's rate)
    } else if (u.wake_ns == t.at_ns) {
      agenda_.wake(u);
    }
  }
  // A bounded number of resumes per turn: tasks that never wait for anything
  // (no request, no think time) must not keep the loop from its timers.
  for (std::size_t budget = 2 * users_.size() + 16; budget > 0 && agenda_.has_ready(); --budget) {
    const int index = agenda_.pop_ready();
    if (user(index).state != User::State::kQueued) continue;  // resumed early (resume_answered)
    resume(index);
  }
}

void Users::resume(int index) {
  User& u = user(index);
  const UserScripts::Outcome outcome = scripts_.resume(u);
  if (outcome == UserScripts::Outcome::kYielded) {
    after_yield(index);
    return;
  }
  if (outcome == UserScripts::Outcome::kFailed) {  // an error outside the prelude's xpcall (e.g. a yield across a C call)
    tally_.script_error(u, scripts_.error_text(u), "user");
  }
  if (u.in_task) tally_.end_task(u);
  u.state = User::State::kDead;
  if (u.retiring) population_.stop_user(u);  // it ended its task: set_target stops it now
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
        agenda_.wake(u);  // no think time (or a sleep already over): at once
      } else {
        agenda_.add_timer(index, u.wake_ns);
      }
      break;
    default:
      break;  // kIdle (open model, free), kQueued (the next task was waiting)
  }
}

bool Users::task_boundary(User& u, double wait_s) {
  if (u.in_task) {
    tally_.end_task(u);
    ++tasks_ended_;
  }
  const bool through_start = u.started;
  u.started = true;
  if (population_.stopping() || u.retiring) return false;
  if (open_) {
    open_tasks_.user_free(u, through_start);
    return true;
  }
  u.wake_ns = u.mark_ns + static_cast<TimeNs>(std::min(wait_s, 1e9) * 1e9);
  u.state = User::State::kThinking;
  return true;
}

void Users::on_response(int index, int status, TimeNs done_ns, bool recorded, std::uint64_t body_bytes) {
  User& u = user(index);
  if (u.state != User::State::kInFlight) return;
  u.status = status;
  u.body_bytes = body_bytes;
  u.error = nullptr;
  u.elapsed_ns = done_ns - u.mark_ns;  // mark_ns was the request's due time
  u.mark_ns = done_ns;
  u.last_failed = status >= 400;
  u.last_recorded = recorded;
  requests_.store_cookies(u);
  tally_.count_request(u);
  agenda_.queue(u, Resume::kResponse);
}

const std::string* Users::on_redirect(int index, std::string_view answered_target, std::string_view next_target) {
  User& u = user(index);
  if (u.state != User::State::kInFlight) return nullptr;
  requests_.store_cookies(u, answered_target);
  if (!u.jar_cookie_line) return nullptr;
  u.follow_up_cookie.clear();
  // -H's (and --cookie's) pairs are the run's host's, not another origin's.
  append_cookie_line(u.follow_up_cookie, requests_, u, next_target, u.origin == 0 ? requests_.given_cookie() : "");
  return &u.follow_up_cookie;
}

void Users::on_failed(int index, const char* error_class, TimeNs at_ns, bool recorded) {
  User& u = user(index);
  if (u.state != User::State::kInFlight) return;
  u.status = 0;
  u.body_bytes = 0;
  u.error = error_class;
  u.elapsed_ns = at_ns - u.mark_ns;
  u.mark_ns = at_ns;
  u.last_failed = true;
  u.last_recorded = recorded;
  tally_.count_request(u);
  agenda_.queue(u, Resume::kResponse);
}

void Users::stop() {
  population_.stop();
  collect_totals(scripts_.state(), tally_.stats());  // pacer.totals: the users' own (request_events.h)
  tally_.name_rows();
}

}  // namespace pacer::scenario
