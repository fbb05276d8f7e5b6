// What a run's load control changed, in order (issue 27): for the report
// (report::LoadChangeReport: "at 12.0 s: users 50 -> 200, by the shape") and
// the web view, and a rate control's rates over time, from which the rate the
// run asked for over an interval is drawn. The control writes (one writer at a
// time, the main or the web thread); the web thread, the interval collector
// and the report read, any time: every call takes this log's lock.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "load/schedule.h"
#include "report/run_report.h"

namespace pacer::engine {

class LoadChangeLog {
 public:
  // The run starts at start_ns (monotonic): changes are timed from it (before
  // it, at 0 s). Main thread, as the clock starts.
  void started(TimeNs start_ns);
  TimeNs start_ns() const;  // 0 before the start

  // A change at now_ns, by whom and why (note), with nothing changed yet: the
  // caller fills in what it changes, then adds it.
  report::LoadChangeReport make(std::string_view by, std::string note, TimeNs now_ns) const;
  void add(report::LoadChangeReport change);
  // Whether the last change said `note` already (a shape's clamp is said once).
  bool last_note_is(const std::string& note) const;
  // A rate control's new rate from now_ns: timed as the workers take it, from
  // the start (before it, the first step's rate is the run's profile already).
  void add_rate(double rate_per_s, TimeNs now_ns);

  // After the run (or during it, for the web view): the changes in order.
  std::vector<report::LoadChangeReport> changes() const;
  // The rate asked for over [from_ns, to_ns) (offsets from the run's start): the
  // run's profile until the first rate change, then each change's rate.
  double mean_rate_per_s(const load::RateProfile& profile, TimeNs from_ns, TimeNs to_ns) const;

 private:
  // Arrivals expected in [0, t_ns) (offset) with the rate changes so far (under mutex_).
  double arrivals_before(const load::RateProfile& profile, TimeNs t_ns) const;

  struct RateChange {
    TimeNs at_ns = 0;  // offset from the start
    double rate_per_s = 0;
  };
  mutable std::mutex mutex_;
  TimeNs start_ns_ = 0;
  std::vector<report::LoadChangeReport> changes_;
  std::vector<RateChange> rate_changes_;
};

// The rate a run asked for over [from_ns, to_ns) (offsets from its start): its
// profile's, with a rate control's changes when it has a log (null: none).
double planned_rate_per_s(const load::RateProfile& profile, const LoadChangeLog* log, TimeNs from_ns, TimeNs to_ns);

}  // namespace pacer::engine
