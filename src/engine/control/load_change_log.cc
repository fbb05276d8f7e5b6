// See load_change_log.h.
#include "engine/control/load_change_log.h"

#include <algorithm>
#include <utility>

namespace pacer::engine {

void LoadChangeLog::started(TimeNs start_ns) {
  std::lock_guard lock(mutex_);
  start_ns_ = start_ns;
}

TimeNs LoadChangeLog::start_ns() const {
  std::lock_guard lock(mutex_);
  return start_ns_;
}

report::LoadChangeReport LoadChangeLog::make(std::string_view by, std::string note, TimeNs now_ns) const {
  std::lock_guard lock(mutex_);
  report::LoadChangeReport c;
  c.at_s = start_ns_ > 0 ? static_cast<double>(std::max<TimeNs>(0, now_ns - start_ns_)) / 1e9 : 0.0;  // 0: before the start
  c.by = std::string(by);
  c.note = std::move(note);
  return c;
}

void LoadChangeLog::add(report::LoadChangeReport change) {
  std::lock_guard lock(mutex_);
  changes_.push_back(std::move(change));
}

bool LoadChangeLog::last_note_is(const std::string& note) const {
  std::lock_guard lock(mutex_);
  return !changes_.empty() && changes_.back().note == note;
}

void LoadChangeLog::add_rate(double rate_per_s, TimeNs now_ns) {
  std::lock_guard lock(mutex_);
  rate_changes_.push_back(RateChange{start_ns_ > 0 ? std::max<TimeNs>(0, now_ns - start_ns_) : 0, rate_per_s});
}

std::vector<report::LoadChangeReport> LoadChangeLog::changes() const {
  std::lock_guard lock(mutex_);
  return changes_;
}

double LoadChangeLog::arrivals_before(const load::RateProfile& profile, TimeNs t_ns) const {
  if (rate_changes_.empty() || t_ns <= rate_changes_.front().at_ns) return profile.arrivals_before(t_ns);
  double arrivals = profile.arrivals_before(rate_changes_.front().at_ns);
  for (std::size_t i = 0; i < rate_changes_.size() && rate_changes_[i].at_ns < t_ns; ++i) {
    const TimeNs until = i + 1 < rate_changes_.size() ? std::min(t_ns, rate_changes_[i + 1].at_ns) : t_ns;
    arrivals += rate_changes_[i].rate_per_s * static_cast<double>(until - rate_changes_[i].at_ns) / 1e9;
  }
  return arrivals;
}

double LoadChangeLog::mean_rate_per_s(const load::RateProfile& profile, TimeNs from_ns, TimeNs to_ns) const {
  std::lock_guard lock(mutex_);
  if (rate_changes_.empty() || to_ns <= rate_changes_.front().at_ns) return profile.mean_rate_per_s(from_ns, to_ns);
  if (to_ns <= from_ns) return 0;
  return (arrivals_before(profile, to_ns) - arrivals_before(profile, from_ns)) / (static_cast<double>(to_ns - from_ns) / 1e9);
}

double planned_rate_per_s(const load::RateProfile& profile, const LoadChangeLog* log, TimeNs from_ns, TimeNs to_ns) {
  if (log == nullptr) return profile.mean_rate_per_s(from_ns, to_ns);
  return log->mean_rate_per_s(profile, from_ns, to_ns);
}

}  // namespace pacer::engine
