// NameRecorder and the checked merge of NameCounts. See name_stats.h.
#include "stats/name_stats.h"

namespace pacer::stats {

std::string NameCounts::merge_checked(const NameCounts& o) {
  NameCounts sum = *this;
  for (const auto& f : kFields) {
    if (__builtin_add_overflow(this->*f.member, o.*f.member, &(sum.*f.member))) return f.name;
  }
  for (const auto& f : ErrorCounts::kFields) {
    if (__builtin_add_overflow(errors.*f.member, o.errors.*f.member, &(sum.errors.*f.member))) {
      return std::string("errors.") + f.name;
    }
  }
  *this = sum;
  return {};
}

NameRecorder::NameRecorder(std::size_t id_limit) : records_(id_limit), at_interval_start_(id_limit) {}

void NameRecorder::prepare(std::size_t count) {
  for (std::size_t id = 0; id < count && id < records_.size(); ++id) {
    if (!records_[id].latency) records_[id].latency = std::make_unique<Histogram>(Histogram::for_latency_ns());
    if (!records_[id].ttfb) records_[id].ttfb = std::make_unique<Histogram>(Histogram::for_latency_ns());  // wire
  }
}

void NameRecorder::take_interval(std::vector<NameIntervalCounts>& out) {
  for (std::size_t id = 0; id < records_.size() && id < out.size(); ++id) {
    const NameCounts& c = records_[id].counts;
    const std::uint64_t errors = c.errors.socket_total() + c.errors.status;
    out[id].completed = c.responses - at_interval_start_[id].completed;
    out[id].errors = errors - at_interval_start_[id].errors;
    at_interval_start_[id] = NameIntervalCounts{c.responses, errors};
  }
}

}  // namespace pacer::stats
