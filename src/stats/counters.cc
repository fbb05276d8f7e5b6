// Counters::merge_checked: the overflow-checked sum `pacer merge` uses (counts
// read from files can be anything up to 2^64 - 1). Walks the field lists in
// counters.h, so a new counter is checked as soon as it is listed there.
#include "stats/counters.h"

namespace pacer::stats {
namespace {

bool add_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& sum) { return __builtin_add_overflow(a, b, &sum); }

}  // namespace

std::string Counters::merge_checked(const Counters& o) {
  Counters sum = *this;
  for (const auto& f : kFields) {
    if (add_overflows(this->*f.member, o.*f.member, sum.*f.member)) return std::string("counts.") + f.name;
  }
  for (const auto& f : ErrorCounts::kFields) {
    if (add_overflows(errors.*f.member, o.errors.*f.member, sum.errors.*f.member)) {
      return std::string("errors.") + f.name;
    }
  }
  for (std::size_t i = 0; i < status_counts.size(); ++i) {
    if (add_overflows(status_counts[i], o.status_counts[i], sum.status_counts[i])) {
      return "status_codes." + std::to_string(i);
    }
  }
  // The reports add failures to responses ("finished" requests, error rates).
  std::uint64_t failures = 0;
  for (const auto& f : ErrorCounts::kFields) {
    if (f.member == &ErrorCounts::status) continue;
    if (add_overflows(failures, sum.errors.*f.member, failures)) return std::string("errors.") + f.name;
  }
  std::uint64_t finished = 0;
  if (add_overflows(sum.responses, failures, finished)) return "errors (responses plus failures)";
  *this = sum;
  return {};
}

}  // namespace pacer::stats
