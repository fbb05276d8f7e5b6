// When the run's statistics start again (POST /stats/reset, issue 27): at the
// first interval boundary at least kResetLeadNs ahead (without intervals,
// kResetLeadNs ahead), as the warm-up's end starts them. The asking side (the
// web thread, through LoadControl::reset_stats) schedules under this lock; each
// worker reads reset_generation() at a wake-up (one acquire load, ResetWatch)
// and reset_at_ns() when it moved; the interval collector reads both to mark
// the interval a reset starts.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>

#include "core/clock.h"
#include "core/expected.h"

namespace pacer::engine {

class ResetSchedule {
 public:
  static constexpr TimeNs kResetLeadNs = 100 * kNsPerMs;  // every worker looks at least this often

  // The run starts at start_ns (monotonic); its statistics at record_from_ns
  // (after the warm-up); its intervals are interval_ns long from there (0: none);
  // its drain begins at end_ns. Main thread, as the clock starts.
  void started(TimeNs start_ns, TimeNs record_from_ns, TimeNs end_ns, TimeNs interval_ns);

  struct Scheduled {
    TimeNs at_ns = 0;      // when the statistics start again (monotonic)
    bool is_new = false;  // false: the one already coming (workers take one reset at a time)
  };
  // Any thread but a worker's: the next reset as of now_ns, published to the
  // workers when new. Refused (kBadArgument) before the start or when it would
  // fall at or past -d's end.
  Result<Scheduled> schedule(TimeNs now_ns);

  // Workers: the latest reset's time (monotonic; 0: none) and its generation.
  std::uint64_t reset_generation() const { return reset_generation_.load(std::memory_order_acquire); }
  TimeNs reset_at_ns() const { return reset_at_ns_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  TimeNs start_ns_ = 0;  // under mutex_, as are the three below
  TimeNs record_from_ns_ = 0;
  TimeNs end_ns_ = std::numeric_limits<TimeNs>::max();
  TimeNs interval_ns_ = 0;
  std::atomic<TimeNs> reset_at_ns_{0};  // written under mutex_ before reset_generation_
  std::atomic<std::uint64_t> reset_generation_{0};
};

}  // namespace pacer::engine
