#include "report/interval_sum.h"

#include <algorithm>

namespace pacer::report {

std::int64_t intervals_per_interval(TimeNs interval_ns, TimeNs finest_ns) {
  if (finest_ns >= interval_ns) return 1;
  const std::int64_t at_least = (interval_ns + finest_ns - 1) / finest_ns;
  // A divisor near the ratio almost always exists (intervals are whole
  // milliseconds or microseconds); the search is bounded all the same.
  for (std::int64_t n = at_least; n <= at_least * 4 && n <= interval_ns; ++n) {
    if (interval_ns % n == 0) return n;
  }
  return interval_ns;  // 1 ns intervals: absurd but exact
}

void IntervalSum::add(const IntervalReport& in) {
  if (added_ == 0) {
    sum_ = IntervalReport{};
    sum_.start_ns = in.start_ns;
    sum_.start_unix_ns = in.start_unix_ns;
  }
  sum_.stats_reset = sum_.stats_reset || in.stats_reset;  // a reset falls on the first one's start
  sum_.duration_ns += in.duration_ns;
  sum_.drain_ns += in.drain_ns;
  add_interval_counts(sum_, in);
  if (in.target_rate_per_s) {
    has_target_ = true;
    target_arrivals_ += *in.target_rate_per_s * static_cast<double>(in.duration_ns) / 1e9;
  }
  if (in.latency != nullptr) latency_.merge(*in.latency);
  if (in.latency_by_name != nullptr) {
    latency_by_name_.merge(*in.latency_by_name);
    has_latency_by_name_ = true;
  }
  if (in.ttfb != nullptr) ttfb_.merge(*in.ttfb);
  if (in.ttfb_by_name != nullptr) ttfb_by_name_.merge(*in.ttfb_by_name);
  if (in.connect != nullptr) connect_.merge(*in.connect);
  sum_.open_connections = in.open_connections;
  sum_.backlog = in.backlog;
  sum_.schedule_lag_ns = in.schedule_lag_ns;
  sum_.in_flight = in.in_flight;
  sum_.oldest_in_flight_ns = in.oldest_in_flight_ns;
  sum_.in_flight_over_interval = in.in_flight_over_interval;
  sum_.users = in.users;  // a gauge: the last interval's
  sum_.service_ns_sum += in.service_ns_sum;
  if (sum_.workers.size() < in.workers.size()) sum_.workers.resize(in.workers.size());
  for (std::size_t i = 0; i < in.workers.size(); ++i) sum_.workers[i].add(in.workers[i]);
  // Per request name: counts add, id by id.
  if (names_.size() < in.names.size()) names_.resize(in.names.size());
  for (std::size_t id = 0; id < in.names.size(); ++id) names_[id].merge(in.names[id]);
  if (in.name_table != nullptr) sum_.name_table = in.name_table;
  ++added_;
}

IntervalReport IntervalSum::sum(std::uint64_t index) const {
  IntervalReport out = sum_;
  out.index = index;
  out.latency = &latency_;
  out.ttfb = &ttfb_;
  out.connect = &connect_;
  out.names = names_;
  out.latency_by_name = has_latency_by_name_ ? &latency_by_name_ : nullptr;
  out.ttfb_by_name = has_latency_by_name_ ? &ttfb_by_name_ : nullptr;
  if (has_target_) {
    out.target_rate_per_s = out.duration_ns > 0 ? target_arrivals_ * 1e9 / static_cast<double>(out.duration_ns) : 0.0;
  }
  return out;
}

void IntervalSum::clear() {
  sum_ = IntervalReport{};
  target_arrivals_ = 0;
  has_target_ = false;
  added_ = 0;
  latency_.reset();
  latency_by_name_.reset();
  ttfb_by_name_.reset();
  has_latency_by_name_ = false;
  ttfb_.reset();
  connect_.reset();
  std::fill(names_.begin(), names_.end(), stats::NameIntervalCounts{});
}

}  // namespace pacer::report
