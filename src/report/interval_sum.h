// Longer intervals from shorter ones, exactly: when the live view asks the engine
// for intervals of --refresh, the time series and the plain progress lines still
// come once per --interval, summed from the shorter ones (counts add, histograms
// merge, gauges are the last interval's since they are read at its end), each row
// closed on --interval's grid (IntervalGrid). Plain data and pure helpers; main
// thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/clock.h"
#include "report/interval_report.h"
#include "stats/histogram.h"

namespace pacer::report {

// How many engine intervals make one `interval_ns`, so that each is at most
// `finest_ns` long and they tile `interval_ns` to the nanosecond: the smallest
// n >= interval_ns / finest_ns that divides interval_ns (1 when finest_ns >=
// interval_ns). Both must be > 0.
std::int64_t intervals_per_interval(TimeNs interval_ns, TimeNs finest_ns);

// Where the rows of one --interval close: at the first boundary of its grid (since
// recording started) that the engine intervals summed into the row reach. They tile
// that grid, unless the controller fell behind and a worker kept accumulating into a
// longer interval (engine/record/interval.h): one that crosses a boundary ends its
// row with it, and the next row ends on the grid again.
class IntervalGrid {
 public:
  explicit IntervalGrid(TimeNs interval_ns) : interval_ns_(interval_ns), row_end_ns_(interval_ns) {}

  // Whether an engine interval ending at end_ns closes the row it was summed into.
  bool closes(TimeNs end_ns) {
    if (end_ns < row_end_ns_) return false;
    row_end_ns_ = (end_ns / interval_ns_ + 1) * interval_ns_;
    return true;
  }

 private:
  TimeNs interval_ns_;
  TimeNs row_end_ns_;
};

class IntervalSum {
 public:
  IntervalSum() = default;

  // Adds the next consecutive interval (its histogram is merged, not kept).
  void add(const IntervalReport& interval);
  bool empty() const { return added_ == 0; }
  // The sum of what was added, numbered `index`. Its latency points into this
  // object: valid until the next add() or clear().
  IntervalReport sum(std::uint64_t index) const;
  void clear();

 private:
  IntervalReport sum_;
  double target_arrivals_ = 0;  // target rate x duration, summed: the rate is re-derived
  bool has_target_ = false;
  std::uint64_t added_ = 0;
  stats::Histogram latency_ = stats::Histogram::for_latency_ns();
  stats::Histogram ttfb_ = stats::Histogram::for_latency_ns();
  stats::Histogram connect_ = stats::Histogram::for_latency_ns();
  std::vector<stats::NameIntervalCounts> names_;  // per name id; grows once, zeroed by clear()
  stats::NameHistograms latency_by_name_;         // alike
  stats::NameHistograms ttfb_by_name_;
  bool has_latency_by_name_ = false;
};

}  // namespace pacer::report
