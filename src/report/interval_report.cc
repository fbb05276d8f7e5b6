#include "report/interval_report.h"

#include "report/series_json.h"
#include "report/series_point.h"

namespace pacer::report {

std::string render_interval_ndjson(const IntervalReport& in, bool with_histogram, int shard_index, int shard_count) {
  return render_series_ndjson(make_series_point(in, shard_index, shard_count), with_histogram);
}

}  // namespace pacer::report
