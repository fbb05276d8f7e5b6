// See arrivals.h.
#include "engine/drive/arrivals.h"

#include <algorithm>

#include "engine/control/load_target.h"
#include "engine/control/run_end.h"

namespace pacer::engine {

namespace {

constexpr TimeNs kArrivalSpinNs = 30 * kNsPerUs;

TimeNs limit_of(const LoadOptions& load) {
  return load.deadline_ns > 0 ? std::min(load.deadline_ns, load.timeout_ns) : load.timeout_ns;
}

// With --shard i/N, this process's workers are i*W .. i*W+W-1 of N*W: the
// shards' arrivals interleave like the workers' do.
load::ArrivalSchedule make_schedule(const SharedRun& shared, const load::RateProfile& profile, int worker_index) {
  const LoadOptions& o = shared.options.load;
  return load::ArrivalSchedule(profile, o.poisson ? load::Arrival::kPoisson : load::Arrival::kUniform,
                               o.shard_index * shared.worker_count + worker_index, shared.worker_count * o.shard_count,
                               o.seed);
}

}  // namespace

Arrivals::Arrivals(const SharedRun& shared, int worker_index, LoopClock& clock, Recorder& recorder,
                   std::optional<std::uint64_t> quota)
    : shared_(shared),
      worker_index_(worker_index),
      clock_(clock),
      recorder_(recorder),
      schedule_(make_schedule(shared, *shared.profile, worker_index)),
      quota_(quota),
      limit_ns_(limit_of(shared.options.load)) {}

std::size_t Arrivals::backlog_capacity() const {
  const double peak_share = shared_.profile->peak_rate() / (shared_.worker_count * shared_.options.load.shard_count);
  return static_cast<std::size_t>(std::clamp(peak_share * 10.0, 1024.0, 4.0 * 1024 * 1024));
}

void Arrivals::start() {
  base_ns_ = shared_.start_ns;
  next_ns_ = to_absolute(schedule_.next());
  if (shared_.control != nullptr) control_seen_ = shared_.control->generation();  // the first step is the profile's
}

void Arrivals::follow_control() {
  const PublishedTarget* control = shared_.control;
  if (control == nullptr || !control->is_rate() || clock_.draining || control->generation() == control_seen_) return;
  const LoadTarget target = control->target();
  control_seen_ = target.generation;
  retarget(target.rate_per_s, clock_.now);
}

bool Arrivals::steerable() const {
  return shared_.control != nullptr && shared_.control->is_rate() && !shared_.run_end->ended();
}

void Arrivals::retarget(double rate_per_s, TimeNs now_ns) {
  if (next_ns_ == kNeverNs && quota_reached()) return;  // -n was reached: nothing more is due
  // Until the run's end, or as long as an unbounded run may go.
  const TimeNs left = shared_.end_ns == kNeverNs ? kUnboundedRunNs : std::max<TimeNs>(0, shared_.end_ns - now_ns);
  own_profile_ = load::RateProfile::constant(rate_per_s, left);
  schedule_ = make_schedule(shared_, *own_profile_, worker_index_);
  base_ns_ = now_ns;
  next_ns_ = left > 0 ? to_absolute(schedule_.next()) : kNeverNs;
}

bool Arrivals::advance(TimeNs t_sched) {
  next_ns_ = to_absolute(schedule_.next());
  if (!recorder_.recorded(t_sched)) return true;
  if (quota_) {
    if (*quota_ == 0) {
      next_ns_ = kNeverNs;
      return false;
    }
    --*quota_;
  }
  recorder_.add(&stats::Counters::scheduled, 1);
  return true;
}

void Arrivals::skip_due(TimeNs until_ns, bool stale) {
  const TimeNs first = next_ns_;
  std::uint64_t due = 1 + schedule_.skip_before(std::min(until_ns, shared_.end_ns) - base_ns_);
  const bool recorded = recorder_.recorded(first);
  if (recorded && quota_) due = std::min(due, *quota_);
  next_ns_ = to_absolute(schedule_.next());
  if (!recorded) return;
  if (quota_) {
    *quota_ -= due;
    if (*quota_ == 0) next_ns_ = kNeverNs;  // -n reached
  }
  recorder_.add(&stats::Counters::scheduled, due);
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
  // Never written within --timeout (recorder.h: record_unsent).
  record_unsent(recorder_, clock_.now, waited_ns >= 0 ? waited_ns : clock_.now - t_sched, count, o.record_timeouts);
}

TimeNs Arrivals::next_due_ns() const {
  if (clock_.draining && next_ns_ >= shared_.end_ns) return kNeverNs;
  return std::min(shared_.end_ns, next_ns_ - kArrivalSpinNs);
}

}  // namespace pacer::engine
