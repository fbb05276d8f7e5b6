#include "report/run_report.h"

namespace pacer::report {

// 1 to 10^10 requests/second at 3 significant digits.
stats::Histogram make_rate_histogram() { return stats::Histogram(1, 10'000'000'000, 3); }

std::string body_hint(const RunReport& r) {
  // -b sends the bytes as given; a JSON API refuses a body whose type it is not told.
  if (!r.body_without_content_type || r.counters.status_counts[415] == 0) return "";
  return "the body went with no Content-Type: use --json or -H to set one";
}

ShardShare shard_share(const RunReport& r) {
  ShardShare s;
  s.count = r.shard_count;
  s.index = r.shard_index;
  s.covered = r.shards_covered;
  if (r.merge) s.missing = r.merge->missing_shards;
  s.connections = r.connections;
  s.test_connections = r.test_connections;
  s.requests = r.request_count;
  s.test_requests = r.test_request_count;
  s.load_model = r.load_model;
  s.test_rate_per_s = r.rate_per_s;
  s.test_rate_end_per_s = r.rate_end_per_s;
  return s;
}

}  // namespace pacer::report
