// NameRecorder and the checked merge of NameCounts. See name_stats.h.
#include "stats/name_stats.h"

#include <algorithm>

namespace pacer::stats {

std::string NameCounts::merge_checked(const NameCounts& o) {
  NameCounts sum = *this;
  for (const auto& f : kFields) {
    if (__builtin_add_overflow(this->*f.member, o.*f.member, &(sum.*f.member))) return f.name;
  }
  if (__builtin_add_overflow(body_bytes, o.body_bytes, &sum.body_bytes)) return "body_bytes";
  for (const auto& f : ErrorCounts::kFields) {
    if (__builtin_add_overflow(errors.*f.member, o.errors.*f.member, &(sum.errors.*f.member))) {
      return std::string("errors.") + f.name;
    }
  }
  // The codes' counts add as errors.status does (checked above).
  sum.status_errors.merge(o.status_errors);
  *this = sum;
  return {};
}

void NameRecorder::prepare(std::size_t count) {
  count = std::min(count, id_limit_);
  if (records_.size() < count) {
    records_.resize(count);
    at_interval_start_.resize(count);
  }
  for (std::size_t id = 0; id < count; ++id) {
    latency_histogram(records_[id].latency);
    latency_histogram(records_[id].ttfb);
  }
}

void NameRecorder::grow(NameId id) {
  // Doubling: a script adding names one by one moves the records O(log n) times.
  const std::size_t wanted = std::min(id_limit_, std::max<std::size_t>(std::size_t{id} + 1, 2 * records_.size()));
  records_.resize(wanted);
  at_interval_start_.resize(wanted);
}

void NameRecorder::unfail_status(NameId id, int status) {
  NameCounts& c = record(id).counts;
  if (c.errors.status == 0) return;
  --c.errors.status;
  c.status_errors.take_back(status);
  NameIntervalCounts& start = at_interval_start_[id];
  if (start.errors > c.errors.socket_total() + c.errors.status) --start.errors;
}

void NameRecorder::take_interval(std::vector<NameIntervalCounts>& out) {
  if (out.size() < records_.size()) out.resize(records_.size());
  for (std::size_t id = 0; id < records_.size(); ++id) {
    const NameCounts& c = records_[id].counts;
    const std::uint64_t errors = c.errors.socket_total() + c.errors.status;
    out[id].completed = c.responses - at_interval_start_[id].completed;
    out[id].errors = errors - at_interval_start_[id].errors;
    out[id].failed = c.failures() - at_interval_start_[id].failed;
    at_interval_start_[id] = NameIntervalCounts{c.responses, errors, c.failures()};
  }
}

}  // namespace pacer::stats
