// A scenario's -n give-up (issue 42): with -n and no -d (closed model), tasks
// that send no request would never reach the count and the run would never end.
// When no user has made a request for --give-up and whole tasks ended meanwhile
// without one (more than there are users: each user's task in progress at the
// last request may end after it, so a long u:sleep inside a task or a long think
// time after a task that sent is no reason), the worker's users end there and the
// report says why (its first error). One worker thread; no allocation per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "report/units.h"

namespace pacer::engine {

class RequestDrought {
 public:
  // active: -n bounds the run and -d does not; period_ns: --give-up.
  RequestDrought(bool active, TimeNs period_ns) : active_(active), period_ns_(period_ns) {}

  // The run starts, or a user made a request (sent, or failed before it) at
  // now_ns, when tasks_ended tasks had ended.
  void request(TimeNs now_ns, std::uint64_t tasks_ended) {
    last_request_ns_ = now_ns;
    tasks_at_request_ = tasks_ended;
  }
  // True once the users are to end (then reason() says why). in_flight: requests on the wire.
  bool check(TimeNs now_ns, std::uint64_t tasks_ended, std::uint64_t users, std::size_t in_flight,
             std::uint64_t request_count) {
    if (gave_up_ || !active_) return gave_up_;
    if (now_ns - last_request_ns_ < period_ns_ || in_flight > 0 || tasks_ended - tasks_at_request_ <= users) return false;
    gave_up_ = true;
    reason_ = fmt::format("scenario: no user made a request for {} (--give-up), so -n {} cannot be reached; "
                          "do its tasks send any?",
                          report::format_duration_short(period_ns_), request_count);
    return true;
  }
  bool gave_up() const { return gave_up_; }
  const std::string& reason() const { return reason_; }
  // When check() may first say so (kNeverNs: not active, or already past: the
  // users' own wake-ups bring the next checks).
  TimeNs next_due_ns(TimeNs now_ns) const {
    const TimeNs at = last_request_ns_ + period_ns_;
    return active_ && !gave_up_ && at > now_ns ? at : kNeverNs;
  }

 private:
  const bool active_;
  const TimeNs period_ns_;
  TimeNs last_request_ns_ = 0;
  std::uint64_t tasks_at_request_ = 0;
  bool gave_up_ = false;
  std::string reason_;
};

}  // namespace pacer::engine
