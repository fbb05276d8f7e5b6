// See worker_load.h.
#include "evidence/worker_load.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

namespace pacer::evidence {

ThreadUsage read_thread_usage(int schedstat_fd) {
  ThreadUsage out;
  rusage u{};
  if (getrusage(RUSAGE_THREAD, &u) == 0) {
    const auto ns = [](const timeval& t) { return static_cast<TimeNs>(t.tv_sec) * kNsPerS + static_cast<TimeNs>(t.tv_usec) * 1000; };
    out.cpu_ns = ns(u.ru_utime) + ns(u.ru_stime);
    out.involuntary_switches = static_cast<std::uint64_t>(u.ru_nivcsw);
  }
  // "on-CPU ns, run-queue ns, timeslices"
  char text[96];
  const ssize_t n = schedstat_fd >= 0 ? ::pread(schedstat_fd, text, sizeof text - 1, 0) : -1;
  if (n > 0) {
    const char* end = text + n;
    const char* space = std::find(static_cast<const char*>(text), end, ' ');
    if (space != end) (void)std::from_chars(space + 1, end, out.runnable_ns);
  }
  return out;
}

LoadMeter::~LoadMeter() {
  if (schedstat_fd_ >= 0) ::close(schedstat_fd_);
}

void LoadMeter::start(TimeNs now_ns) {
  if (schedstat_fd_ < 0) schedstat_fd_ = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  started_ns_ = taken_at_ns_ = now_ns;
  at_start_ = at_take_ = read_thread_usage(schedstat_fd_);
  waited_ns_ = waited_at_take_ns_ = 0;
}

WorkerLoad LoadMeter::take(TimeNs now_ns) {
  const ThreadUsage now = read_thread_usage(schedstat_fd_);
  WorkerLoad out{now_ns - taken_at_ns_, waited_ns_ - waited_at_take_ns_, now.cpu_ns - at_take_.cpu_ns,
                 now.involuntary_switches - at_take_.involuntary_switches, now.runnable_ns - at_take_.runnable_ns};
  taken_at_ns_ = now_ns;
  waited_at_take_ns_ = waited_ns_;
  at_take_ = now;
  return out;
}

WorkerLoad LoadMeter::total(TimeNs now_ns) const {
  const ThreadUsage now = read_thread_usage(schedstat_fd_);
  return {now_ns - started_ns_, waited_ns_, now.cpu_ns - at_start_.cpu_ns,
          now.involuntary_switches - at_start_.involuntary_switches, now.runnable_ns - at_start_.runnable_ns};
}

}  // namespace pacer::evidence
