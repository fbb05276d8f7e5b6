// How many scenario users this worker runs (issue 45): its share of the run's
// user count per type, at the start and whenever the load shape or the web view
// (POST /users) publishes a new target (LoadControl's generation, read once per
// turn), at the spawn rate's share; and the run's end with --stop-timeout in
// the closed model, when every user ends its current task and starts none.
// A rate control's changes are the arrivals' (Arrivals::follow_control), not
// these. One worker thread.
#pragma once

#include <cstdint>

#include "engine/loop/clock.h"
#include "engine/run_plan.h"
#include "scenario/users.h"

namespace pacer::engine {

class UserLoad {
 public:
  UserLoad(const SharedRun& shared, int worker_index, LoopClock& clock, scenario::Users& users);

  // The run starts: the control's users (the open model's are --max-users), or every slot.
  void start();
  // A new user count from the load shape or the web view, if one was published.
  void follow_control();
  // The run's end with --stop-timeout (closed model): each user retires at its
  // task's end, for at most that long; finishing() from then.
  void finish_tasks();
  bool finishing() const { return finishing_; }
  // After the run's end, user `user` is still ending its task: it may send and reconnect.
  bool still_finishing(int user) const { return finishing_ && users_.user(user).retiring; }

 private:
  // This worker's share of each user type of a run's target: `users` by the
  // types' rules, or per_type when given (scenario/type_mix.h).
  scenario::TypeCounts users_share(int users, const scenario::TypeCounts& per_type) const;

  const SharedRun& shared_;
  const int worker_index_;
  LoopClock& clock_;
  scenario::Users& users_;
  std::uint64_t control_seen_ = 0;  // the LoadControl generation taken
  bool finishing_ = false;          // the run ended: users end their tasks (--stop-timeout)
};

}  // namespace pacer::engine
