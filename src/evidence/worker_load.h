// A worker thread's load over a stretch of time (an interval, or the run): the
// wall time, the part of it spent waiting in the I/O engine's wait (or the
// loop's coalescing pause), its thread CPU time and its involuntary context
// switches. Busy share = 1 - waited / wall: a worker busy for all of an interval
// never waited for the network, so the interval's rate and latency are the
// client's. Plain data; the thread usage is read by the worker itself
// (RUSAGE_THREAD names the calling thread), once per interval.
#pragma once

#include <cstdint>

#include "core/clock.h"

namespace pacer::evidence {

struct WorkerLoad {
  TimeNs wall_ns = 0;
  TimeNs waited_ns = 0;
  TimeNs cpu_ns = 0;                        // user + system, this thread
  std::uint64_t involuntary_switches = 0;   // preempted: the CPU was wanted elsewhere

  // The share of wall time not spent waiting, in [0, 1]; 0 when no time passed.
  double busy() const {
    if (wall_ns <= 0) return 0;
    const double b = 1.0 - static_cast<double>(waited_ns) / static_cast<double>(wall_ns);
    return b < 0 ? 0 : (b > 1 ? 1 : b);
  }
  // Thread CPU over wall time (can pass 1 only by clock granularity; clamped).
  double cpu_share() const {
    if (wall_ns <= 0) return 0;
    const double c = static_cast<double>(cpu_ns) / static_cast<double>(wall_ns);
    return c > 1 ? 1 : c;
  }
  void add(const WorkerLoad& o) {
    wall_ns += o.wall_ns;
    waited_ns += o.waited_ns;
    cpu_ns += o.cpu_ns;
    involuntary_switches += o.involuntary_switches;
  }
};

// The calling thread's CPU time and involuntary switches so far
// (getrusage(RUSAGE_THREAD): one system call). Zeros if it fails.
struct ThreadUsage {
  TimeNs cpu_ns = 0;
  std::uint64_t involuntary_switches = 0;
};
ThreadUsage read_thread_usage();

// Tracks one worker's load: the loop reports each wait; at each interval's close
// (and the run's end) the recorder takes the load since the last close. Owned by
// the worker's recorder; one worker thread.
class LoadMeter {
 public:
  void start(TimeNs now_ns);
  void waited(TimeNs ns) { waited_ns_ += ns; }
  // The load since the last take() (or start()), up to now_ns.
  WorkerLoad take(TimeNs now_ns);
  // The load since start(), up to now_ns (the run's total).
  WorkerLoad total(TimeNs now_ns) const;

 private:
  TimeNs started_ns_ = 0;
  TimeNs waited_ns_ = 0;
  ThreadUsage at_start_;
  TimeNs taken_at_ns_ = 0;
  TimeNs waited_at_take_ns_ = 0;
  ThreadUsage at_take_;
};

}  // namespace pacer::evidence
