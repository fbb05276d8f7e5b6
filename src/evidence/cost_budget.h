// How often an occasional measurement may run so that it costs at most a share of
// one CPU (issue 46): the evidence's port count (evidence/sock_diag.h) costs the
// kernel about 2 us per matching socket, so at -c10000 (20,000 sockets with the
// TIME_WAIT ones) one count takes 20-30 ms of CPU, a few percent of the run's CPU
// when taken every interval. After a measurement that took `cost` of the calling
// thread's CPU (evidence/worker_load.h read_thread_usage), the next one is due no sooner than cost / share later; a cheap one
// (a few hundred sockets) is due again at once, so a small run counts every
// interval as before. Any thread; no clock of its own (the caller passes the time).
#pragma once

#include "core/clock.h"

namespace pacer::evidence {

class CostBudget {
 public:
  // share: of one CPU, in (0, 1].
  explicit CostBudget(double share) : share_(share) {}

  bool due(TimeNs now_ns) const { return now_ns >= next_ns_; }
  // A measurement started at now_ns and took cost_ns of CPU.
  void spent(TimeNs now_ns, TimeNs cost_ns) {
    next_ns_ = now_ns + static_cast<TimeNs>(static_cast<double>(cost_ns) / share_);
  }

 private:
  double share_;
  TimeNs next_ns_ = 0;
};

}  // namespace pacer::evidence
