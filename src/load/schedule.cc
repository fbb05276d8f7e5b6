// Rate profiles and per-worker arrival schedules (DESIGN.md section 3).
// The profile is immutable after construction; every arrival time is computed
// from its global index (or, for Poisson, from a cumulative position) by
// inverting N(t) segment by segment in closed form, so nothing accumulates.
// next() runs on the owning worker's thread and never allocates.
#include "load/schedule.h"

#include <algorithm>
#include <cmath>

namespace pacer::load {
namespace {

constexpr double kNsPerSDouble = 1e9;

double to_seconds(TimeNs ns) { return static_cast<double>(ns) / kNsPerSDouble; }

// Expected arrivals over a whole segment: the area of its trapezoid. Both
// arrivals_before() and time_of() sum these in the same order, so a position
// below total_arrivals() always finds its segment.
double segment_arrivals(const RateSegment& seg) {
  return 0.5 * (seg.start_rate_per_s + seg.end_rate_per_s) * to_seconds(seg.duration_ns);
}

// Arrivals in the first elapsed_s seconds of a segment: a*τ + (b-a)*τ²/(2L).
double partial_arrivals(const RateSegment& seg, double elapsed_s) {
  const double a = seg.start_rate_per_s;
  const double b = seg.end_rate_per_s;
  return a * elapsed_s + (b - a) * elapsed_s * elapsed_s / (2.0 * to_seconds(seg.duration_ns));
}

// Seconds into the segment at which y arrivals have accumulated: the root of
// a*τ + s*τ²/2 = y. Written as 2y / (a + sqrt(a² + 2sy)) rather than the
// textbook (-a + sqrt(...)) / s, which cancels catastrophically when s is small
// and divides by zero when the segment holds its rate. Valid for a = 0, s > 0.
double solve_in_segment(const RateSegment& seg, double y) {
  if (y <= 0) return 0;
  const double length_s = to_seconds(seg.duration_ns);
  const double a = seg.start_rate_per_s;
  const double slope = (seg.end_rate_per_s - a) / length_s;  // per second²
  double tau_s = 0;
  if (slope == 0) {
    tau_s = y / a;
  } else {
    // Rounding can push the discriminant a hair below 0 at the end of a
    // ramp down to zero, where it is exactly 0 in exact arithmetic.
    const double discriminant = std::max(0.0, a * a + 2.0 * slope * y);
    tau_s = 2.0 * y / (a + std::sqrt(discriminant));
  }
  return std::clamp(tau_s, 0.0, length_s);
}

TimeNs round_to_ns(double seconds) { return static_cast<TimeNs>(std::llround(seconds * kNsPerSDouble)); }

// splitmix64 (Steele, Lea, Flood): spreads nearby (seed, worker) pairs over
// the whole state space before they seed the Mersenne Twister.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::uint64_t worker_seed(std::uint64_t seed, int worker_index) {
  const auto w = static_cast<std::uint64_t>(worker_index);
  return splitmix64(seed ^ (0x9E3779B97F4A7C15ULL * (w + 1)));
}

}  // namespace

RateProfile RateProfile::constant(double rate_per_s, TimeNs duration_ns) {
  return ramp(rate_per_s, rate_per_s, duration_ns);
}

RateProfile RateProfile::ramp(double from_rate_per_s, double to_rate_per_s, TimeNs duration_ns) {
  RateProfile profile;
  profile.segments_.push_back({duration_ns, from_rate_per_s, to_rate_per_s});
  return profile;
}

RateProfile RateProfile::stages(const std::vector<Stage>& stages) {
  RateProfile profile;
  profile.segments_.reserve(stages.size());
  double previous_rate_per_s = 0;  // k6: the first stage ramps up from 0
  for (const Stage& stage : stages) {
    profile.segments_.push_back({stage.duration_ns, previous_rate_per_s, stage.target_rate_per_s});
    previous_rate_per_s = stage.target_rate_per_s;
  }
  return profile;
}

RateProfile RateProfile::with_warmup(TimeNs warmup_ns) const {
  if (warmup_ns <= 0) return *this;
  const double start_rate_per_s = segments_.empty() ? 0.0 : segments_.front().start_rate_per_s;
  RateProfile profile;
  profile.segments_.reserve(segments_.size() + 1);
  profile.segments_.push_back({warmup_ns, start_rate_per_s, start_rate_per_s});
  profile.segments_.insert(profile.segments_.end(), segments_.begin(), segments_.end());
  return profile;
}

TimeNs RateProfile::total_ns() const {
  TimeNs total = 0;
  for (const RateSegment& seg : segments_) total += seg.duration_ns;
  return total;
}

double RateProfile::rate_at(TimeNs t_ns) const {
  if (t_ns < 0) return 0;
  TimeNs seg_start_ns = 0;
  for (const RateSegment& seg : segments_) {
    const TimeNs into_ns = t_ns - seg_start_ns;
    if (into_ns < seg.duration_ns) {
      const double fraction = static_cast<double>(into_ns) / static_cast<double>(seg.duration_ns);
      return seg.start_rate_per_s + (seg.end_rate_per_s - seg.start_rate_per_s) * fraction;
    }
    seg_start_ns += seg.duration_ns;
  }
  return 0;
}

double RateProfile::peak_rate() const {
  double peak = 0;
  for (const RateSegment& seg : segments_) peak = std::max({peak, seg.start_rate_per_s, seg.end_rate_per_s});
  return peak;
}

double RateProfile::arrivals_before(TimeNs t_ns) const {
  if (t_ns <= 0) return 0;
  double count = 0;
  TimeNs seg_start_ns = 0;
  for (const RateSegment& seg : segments_) {
    const TimeNs into_ns = t_ns - seg_start_ns;
    if (into_ns < seg.duration_ns) return count + partial_arrivals(seg, to_seconds(into_ns));
    count += segment_arrivals(seg);
    seg_start_ns += seg.duration_ns;
  }
  return count;
}

double RateProfile::mean_rate_per_s(TimeNs from_ns, TimeNs to_ns) const {
  if (to_ns <= from_ns) return 0;
  return (arrivals_before(to_ns) - arrivals_before(from_ns)) * 1e9 / static_cast<double>(to_ns - from_ns);
}

std::optional<TimeNs> RateProfile::time_of(double x) const {
  x = std::max(x, 0.0);
  double count_at_start = 0;
  TimeNs seg_start_ns = 0;
  for (const RateSegment& seg : segments_) {
    const double count_at_end = count_at_start + segment_arrivals(seg);
    // A segment with no arrivals (zero rate throughout, or zero length) never
    // satisfies this, so it is skipped and its time simply passes.
    if (x < count_at_end) return seg_start_ns + round_to_ns(solve_in_segment(seg, x - count_at_start));
    count_at_start = count_at_end;
    seg_start_ns += seg.duration_ns;
  }
  return std::nullopt;
}

ArrivalSchedule::ArrivalSchedule(const RateProfile& profile, Arrival arrival, int worker_index,
                                 int worker_count, std::uint64_t seed)
    : profile_(&profile),
      arrival_(arrival),
      worker_index_(worker_index),
      worker_count_(std::max(1, worker_count)),
      rng_(worker_seed(seed, worker_index)) {}

std::optional<TimeNs> ArrivalSchedule::next() {
  if (ended_) return std::nullopt;
  const auto workers = static_cast<std::uint64_t>(worker_count_);
  double position = 0;
  if (arrival_ == Arrival::kUniform) {
    position = static_cast<double>(taken_ * workers + static_cast<std::uint64_t>(worker_index_));
  } else {
    // Exp(1) by inversion from a 53-bit uniform in [0, 1): fully specified, so
    // a seed gives the same times with any standard library.
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    poisson_position_ += static_cast<double>(workers) * -std::log1p(-u);
    position = poisson_position_;
  }
  const std::optional<TimeNs> t_ns = profile_->time_of(position);
  if (!t_ns) {
    ended_ = true;
    return std::nullopt;
  }
  // Positions only grow, but the closed form may round a hair backwards
  // between two very close positions; the contract is non-decreasing.
  last_ns_ = std::max(last_ns_, *t_ns);
  ++taken_;
  return last_ns_;
}

std::uint64_t ArrivalSchedule::skip_before(TimeNs t_ns) {
  if (ended_) return 0;
  const double due = profile_->arrivals_before(t_ns);  // global positions below this are due
  const auto workers = static_cast<double>(worker_count_);
  std::uint64_t skipped = 0;
  if (arrival_ == Arrival::kUniform) {
    // The first k whose position k*W + w is not below `due`.
    const double first_kept = std::ceil((due - worker_index_) / workers);
    if (first_kept <= static_cast<double>(taken_)) return 0;
    skipped = static_cast<std::uint64_t>(first_kept) - taken_;
  } else {
    if (due <= poisson_position_) return 0;
    skipped = static_cast<std::uint64_t>(std::llround((due - poisson_position_) / workers));
    poisson_position_ = due;
  }
  taken_ += skipped;
  last_ns_ = std::max(last_ns_, t_ns);
  return skipped;
}

}  // namespace pacer::load
