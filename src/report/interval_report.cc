#include "report/interval_report.h"

#include "report/series_json.h"
#include "report/series_point.h"

namespace pacer::report {

std::string render_interval_ndjson(const IntervalReport& in, bool with_histogram, int shard_index, int shard_count) {
  return render_series_ndjson(make_series_point(in, shard_index, shard_count), with_histogram);
}

void add_interval_counts(IntervalReport& into, const IntervalReport& from) {
  for (const IntervalCountField& f : kIntervalCounts) into.*f.interval += from.*f.interval;
  into.errors.merge(from.errors);
  for (std::size_t code = 0; code < from.status_counts.size(); ++code) into.status_counts[code] += from.status_counts[code];
  if (from.scenario_errors) {
    if (!into.scenario_errors) into.scenario_errors.emplace();
    into.scenario_errors->merge(*from.scenario_errors);
  }
}

void add_to_run(stats::Counters& run, const IntervalReport& interval) {
  for (const IntervalCountField& f : kIntervalCounts) run.*f.run += interval.*f.interval;
  run.errors.merge(interval.errors);
  for (std::size_t code = 0; code < interval.status_counts.size(); ++code) {
    run.status_counts[code] += interval.status_counts[code];
  }
}

}  // namespace pacer::report
