// A worker thread's load over a stretch of time (an interval, or the run): the
// wall time, the part of it spent waiting in the I/O engine's wait (or the
// loop's coalescing pause), its thread CPU time and its involuntary context
// switches, and its time queued for a CPU. Busy share: the larger of
// 1 - waited / wall and the thread's CPU over wall (io_uring does the sends and
// receives inside its wait's system call, so time in the wait is not all idle):
// a worker busy for all of an interval never waited for the network, so its rate
// and latency are the client's. The run-queue time (/proc/thread-self/schedstat)
// is kept beside it, not in it: a thread queued for a CPU is starved by the
// machine, not busy with its own work, and more threads would not help.
#pragma once

#include <cstdint>
#include <optional>

#include "core/clock.h"

namespace pacer::evidence {

// A share of wall time (busy, CPU) over a window shorter than this is no figure:
// the drain's record after -d's end lasts a few microseconds, in which a worker
// that never waited reads 100 % busy. The shortest --refresh; the time series
// writes such a share as null and the charts leave it out.
inline constexpr TimeNs kMinShareWindowNs = 10 * kNsPerMs;

struct WorkerLoad {
  TimeNs wall_ns = 0;
  TimeNs waited_ns = 0;
  TimeNs cpu_ns = 0;                        // user + system, this thread
  std::uint64_t involuntary_switches = 0;   // preempted: the CPU was wanted elsewhere
  TimeNs runnable_ns = 0;                   // runnable but waiting for a CPU (0: schedstat unreadable)

  // The share of wall time not spent waiting, or on the CPU if more, in [0, 1];
  // 0 when no time passed.
  double busy() const {
    if (wall_ns <= 0) return 0;
    const double outside_wait = 1.0 - static_cast<double>(waited_ns) / static_cast<double>(wall_ns);
    const double b = outside_wait > cpu_share() ? outside_wait : cpu_share();
    return b < 0 ? 0 : (b > 1 ? 1 : b);
  }
  // busy() over a window long enough to measure (kMinShareWindowNs), else none.
  std::optional<double> measured_busy() const {
    return wall_ns >= kMinShareWindowNs ? std::optional<double>(busy()) : std::nullopt;
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
    runnable_ns += o.runnable_ns;
  }
  // The share of wall time spent runnable but waiting for a CPU (a crowded machine).
  double runnable_share() const { return wall_ns > 0 ? static_cast<double>(runnable_ns) / static_cast<double>(wall_ns) : 0; }
};

// The calling thread's CPU time and involuntary switches so far
// (getrusage(RUSAGE_THREAD): one system call), and its run-queue time from
// `schedstat` (an open /proc/thread-self/schedstat, -1: none; one pread). Zeros
// where a read fails.
struct ThreadUsage {
  TimeNs cpu_ns = 0;
  std::uint64_t involuntary_switches = 0;
  TimeNs runnable_ns = 0;
};
ThreadUsage read_thread_usage(int schedstat_fd = -1);

// Tracks one worker's load: the loop reports each wait; at each interval's close
// (and the run's end) the recorder takes the load since the last close. Owned by
// the worker's recorder; one worker thread.
class LoadMeter {
 public:
  LoadMeter() = default;
  ~LoadMeter();
  LoadMeter(const LoadMeter&) = delete;
  LoadMeter& operator=(const LoadMeter&) = delete;
  // On the worker's thread (the schedstat opened is the calling thread's).
  void start(TimeNs now_ns);
  void waited(TimeNs ns) { waited_ns_ += ns; }
  // The load since the last take() (or start()), up to now_ns.
  WorkerLoad take(TimeNs now_ns);
  // The load since start(), up to now_ns (the run's total).
  WorkerLoad total(TimeNs now_ns) const;

 private:
  int schedstat_fd_ = -1;
  TimeNs started_ns_ = 0;
  TimeNs waited_ns_ = 0;
  ThreadUsage at_start_;
  TimeNs taken_at_ns_ = 0;
  TimeNs waited_at_take_ns_ = 0;
  ThreadUsage at_take_;
};

}  // namespace pacer::evidence
