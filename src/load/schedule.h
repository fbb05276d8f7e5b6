// Open-model arrival schedules (DESIGN.md section 3): pure, closed-form functions
// of the arrival index, so no error accumulates over a long run. Built on the
// main thread; each worker owns one ArrivalSchedule and calls next() on its own
// thread. No allocation after construction.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "core/clock.h"

namespace pacer::load {

// A piece of a piecewise-linear rate profile: the rate moves linearly from
// start_rate_per_s to end_rate_per_s over duration_ns.
struct RateSegment {
  TimeNs duration_ns = 0;
  double start_rate_per_s = 0;
  double end_rate_per_s = 0;
};

// One `--stages` entry: ramp linearly from the previous target (0 for the first
// stage, as in k6) to target_rate_per_s over duration_ns.
struct Stage {
  TimeNs duration_ns = 0;
  double target_rate_per_s = 0;
};

// The total request rate of a run as a function of time since the run started.
class RateProfile {
 public:
  static RateProfile constant(double rate_per_s, TimeNs duration_ns);
  static RateProfile ramp(double from_rate_per_s, double to_rate_per_s, TimeNs duration_ns);
  static RateProfile stages(const std::vector<Stage>& stages);

  // The same profile preceded by warmup_ns at its starting rate.
  RateProfile with_warmup(TimeNs warmup_ns) const;

  const std::vector<RateSegment>& segments() const { return segments_; }
  TimeNs total_ns() const;
  double rate_at(TimeNs t_ns) const;             // 0 outside [0, total)
  double peak_rate() const;
  // N(t): expected arrivals in [0, t), the integral of the rate.
  double arrivals_before(TimeNs t_ns) const;
  double total_arrivals() const { return arrivals_before(total_ns()); }
  // The mean rate over [from, to) (0 for an empty window): what a run's target
  // is over a window. A profile ending at rate 0 has its last arrival before its
  // end, so only the profile's own length gives its mean (1s:100,1s:0 -> 50/s).
  double mean_rate_per_s(TimeNs from_ns, TimeNs to_ns) const;
  // The inverse of N: the earliest t with N(t) = x, for 0 <= x < total_arrivals();
  // nullopt when x >= total_arrivals() (the profile has ended). Solves each
  // segment's quadratic in closed form.
  std::optional<TimeNs> time_of(double x) const;

 private:
  std::vector<RateSegment> segments_;
};

enum class Arrival { kUniform, kPoisson };

// One worker's share of a run's arrivals. With W workers, worker w takes every
// W-th arrival of the run's schedule (uniform: the arrival with global index
// k*W + w), so the workers' arrivals interleave instead of firing together.
// Poisson: each worker draws exponential gaps (mean W arrivals of the global
// profile) from its own generator seeded by (seed, w); the union of the workers'
// streams is a Poisson process with the profile's rate. Same seed, same times.
class ArrivalSchedule {
 public:
  ArrivalSchedule(const RateProfile& profile, Arrival arrival, int worker_index, int worker_count,
                  std::uint64_t seed);

  // Offset from the run's start of this worker's next arrival (non-decreasing);
  // nullopt once the profile has ended (and forever after).
  std::optional<TimeNs> next();
  // Passes over this worker's arrivals due before t_ns (offset from the run's start)
  // without computing their times, and returns how many: for a worker that cannot
  // take them (its backlog is full). O(1). Uniform: exactly those next() would have
  // returned below t_ns; Poisson: their expected number, and the next one is drawn
  // from t_ns on (the process has no memory).
  std::uint64_t skip_before(TimeNs t_ns);
  std::uint64_t arrivals_taken() const { return taken_; }

 private:
  const RateProfile* profile_;  // not owned: the run's profile outlives every schedule
  Arrival arrival_;
  int worker_index_;
  int worker_count_;
  std::uint64_t taken_ = 0;
  double poisson_position_ = 0;  // cumulative global-arrival count reached so far
  std::mt19937_64 rng_;
  bool ended_ = false;
  TimeNs last_ns_ = 0;  // the latest time returned, so next() never steps backwards
};

}  // namespace pacer::load
