// See worker_load.h.
#include "evidence/worker_load.h"

#include <sys/resource.h>

namespace pacer::evidence {

ThreadUsage read_thread_usage() {
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) != 0) return {};
  const auto ns = [](const timeval& t) { return static_cast<TimeNs>(t.tv_sec) * kNsPerS + static_cast<TimeNs>(t.tv_usec) * 1000; };
  return {ns(u.ru_utime) + ns(u.ru_stime), static_cast<std::uint64_t>(u.ru_nivcsw)};
}

void LoadMeter::start(TimeNs now_ns) {
  started_ns_ = taken_at_ns_ = now_ns;
  at_start_ = at_take_ = read_thread_usage();
  waited_ns_ = waited_at_take_ns_ = 0;
}

WorkerLoad LoadMeter::take(TimeNs now_ns) {
  const ThreadUsage now = read_thread_usage();
  WorkerLoad out{now_ns - taken_at_ns_, waited_ns_ - waited_at_take_ns_, now.cpu_ns - at_take_.cpu_ns,
                 now.involuntary_switches - at_take_.involuntary_switches};
  taken_at_ns_ = now_ns;
  waited_at_take_ns_ = waited_ns_;
  at_take_ = now;
  return out;
}

WorkerLoad LoadMeter::total(TimeNs now_ns) const {
  const ThreadUsage now = read_thread_usage();
  return {now_ns - started_ns_, waited_ns_, now.cpu_ns - at_start_.cpu_ns,
          now.involuntary_switches - at_start_.involuntary_switches};
}

}  // namespace pacer::evidence
