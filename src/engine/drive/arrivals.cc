// See arrivals.h.
#include "engine/drive/arrivals.h"

#include <algorithm>

namespace pacer::engine {

namespace {

constexpr TimeNs kArrivalSpinNs = 30 * kNsPerUs;

TimeNs limit_of(const LoadOptions& load) {
  return load.deadline_ns > 0 ? std::min(load.deadline_ns, load.timeout_ns) : load.timeout_ns;
}

// With --shard i/N, this process's workers are i*W .. i*W+W-1 of N*W: the
// shards' arrivals interleave like the workers' do.
load::ArrivalSchedule make_schedule(const SharedRun& shared, int worker_index) {
  const LoadOptions& o = shared.options.load;
  return load::ArrivalSchedule(*shared.profile, o.poisson ? load::Arrival::kPoisson : load::Arrival::kUniform,
                               o.shard_index * shared.worker_count + worker_index, shared.worker_count * o.shard_count,
                               o.seed);
}

}  // namespace

Arrivals::Arrivals(const SharedRun& shared, int worker_index, LoopClock& clock, Recorder& recorder,
                   std::optional<std::uint64_t> quota)
    : shared_(shared),
      clock_(clock),
      recorder_(recorder),
      schedule_(make_schedule(shared, worker_index)),
      quota_(quota),
      limit_ns_(limit_of(shared.options.load)) {}

std::size_t Arrivals::backlog_capacity() const {
  const double peak_share = shared_.profile->peak_rate() / (shared_.worker_count * shared_.options.load.shard_count);
  return static_cast<std::size_t>(std::clamp(peak_share * 10.0, 1024.0, 4.0 * 1024 * 1024));
}

void Arrivals::start() {
  const std::optional<TimeNs> first = schedule_.next();
  next_ns_ = first ? shared_.start_ns + *first : kNeverNs;
}

bool Arrivals::advance(TimeNs t_sched) {
  const std::optional<TimeNs> next = schedule_.next();
  next_ns_ = next ? shared_.start_ns + *next : kNeverNs;
  if (!recorder_.recorded(t_sched)) return true;
  if (quota_) {
    if (*quota_ == 0) {
      next_ns_ = kNeverNs;
      return false;
    }
    --*quota_;
  }
  recorder_.scheduled(1);
  return true;
}

void Arrivals::skip_due(TimeNs until_ns, bool stale) {
  const TimeNs first = next_ns_;
  std::uint64_t due = 1 + schedule_.skip_before(std::min(until_ns, shared_.end_ns) - shared_.start_ns);
  const bool recorded = recorder_.recorded(first);
  if (recorded && quota_) due = std::min(due, *quota_);
  const std::optional<TimeNs> next = schedule_.next();
  next_ns_ = next ? shared_.start_ns + *next : kNeverNs;
  if (!recorded) return;
  if (quota_) {
    *quota_ -= due;
    if (*quota_ == 0) next_ns_ = kNeverNs;  // -n reached
  }
  recorder_.scheduled(due);
  if (stale) {
    give_up(first, due, limit_ns_);  // each waited at least the limit
  } else {
    recorder_.count(&stats::ErrorCounts::backlog, clock_.now, due);  // as a full backlog counts them one by one
  }
}

void Arrivals::give_up(TimeNs t_sched, std::uint64_t count, TimeNs waited_ns) {
  if (!recorder_.recorded(t_sched)) return;
  const LoadOptions& o = shared_.options.load;
  if (o.deadline_ns > 0 && o.deadline_ns <= o.timeout_ns) {
    recorder_.count(&stats::ErrorCounts::deadline, clock_.now, count);  // shed: not sent, not recorded
    return;
  }
  // Never written, so not a server timeout: pacer's connections could not take
  // it within --timeout. Its true latency is at least its age (censored), like a
  // timeout's; leaving it out would make the latency look better the further the
  // run falls behind.
  recorder_.count(&stats::ErrorCounts::unsent, clock_.now, count);
  if (o.record_timeouts) {
    recorder_.censored(kUnsent, waited_ns >= 0 ? waited_ns : clock_.now - t_sched, static_cast<std::int64_t>(count));
  }
}

TimeNs Arrivals::next_due_ns() const {
  if (clock_.draining && next_ns_ >= shared_.end_ns) return kNeverNs;
  return std::min(shared_.end_ns, next_ns_ - kArrivalSpinNs);
}

}  // namespace pacer::engine
