// See load_control.h.
#include "engine/control/load_control.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pacer::engine {

namespace {
constexpr TimeNs kShapePeriodNs = kNsPerS;  // Locust asks its LoadTestShape every second

// Counts per type held to `most` users in all: the last types give up theirs first.
void trim_to(scenario::TypeCounts& counts, int most) {
  int over = scenario::total_users(counts) - most;
  for (std::size_t t = counts.size(); t-- > 0 && over > 0;) {
    const int taken = std::min(counts[t], over);
    counts[t] -= taken;
    over -= taken;
  }
}
}  // namespace

LoadControl::LoadControl(int users, int ceiling, double spawn_rate_per_s)
    : kind_(Kind::kUsers), ceiling_(ceiling), default_spawn_rate_(spawn_rate_per_s), max_rate_(0) {
  target_.users = std::clamp(users, 0, ceiling);
  target_.spawn_rate_per_s = spawn_rate_per_s;
}

LoadControl::LoadControl(RateControl rate)
    : kind_(Kind::kRate), ceiling_(0), default_spawn_rate_(0), max_rate_(rate.max_rate_per_s) {
  target_.rate_per_s = std::clamp(rate.rate_per_s, 0.0, max_rate_);
}

LoadControl::LoadControl(FixedLoad) : kind_(Kind::kFixed), ceiling_(0), default_spawn_rate_(0), max_rate_(0) {}

void LoadControl::started(TimeNs start_ns, TimeNs record_from_ns, TimeNs end_ns, TimeNs interval_ns) {
  std::lock_guard lock(mutex_);
  start_ns_ = start_ns;
  record_from_ns_ = std::max(record_from_ns, start_ns);
  end_ns_ = end_ns;
  interval_ns_ = interval_ns;
  next_tick_ns_ = start_ns + kShapePeriodNs;
}

Status LoadControl::set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s,
                              std::string_view by, TimeNs now_ns) {
  if (kind_ != Kind::kUsers) {
    return bad_argument(is_rate() ? "users: this run's load is a rate (the open model): change it with POST /rate"
                                  : "users: this run's load is its connections (-c), which do not change");
  }
  if (ended()) return bad_argument("the run is ending: its load no longer changes");
  if (users.users < 0) return bad_argument(fmt::format("users: {} is negative", users.users));
  auto per_type = counts_for(users);
  if (!per_type) return bad_argument("users: " + per_type.error().message);
  const int total = per_type->empty() ? users.users : scenario::total_users(*per_type);
  if (total > ceiling_) {
    return bad_argument(fmt::format("users: {} is more than this run's ceiling of {} (the users allocated: "
                                    "--max-users, else -u)",
                                    total, ceiling_));
  }
  if (spawn_rate_per_s && !(*spawn_rate_per_s >= 0 && std::isfinite(*spawn_rate_per_s))) {
    return bad_argument("spawn rate: must be a number of users per second, 0 or more");
  }
  change(total, std::move(*per_type), spawn_rate_per_s.value_or(default_spawn_rate_), by, {}, now_ns);
  return Ok{};
}

Status LoadControl::set_rate(double rate_per_s, std::string_view by, TimeNs now_ns) {
  if (!is_rate()) {
    return bad_argument("rate: this run's load is its users or connections (the closed model), not a rate");
  }
  if (ended()) return bad_argument("the run is ending: its load no longer changes");
  if (!(rate_per_s >= 0 && std::isfinite(rate_per_s))) {
    return bad_argument("rate: must be a number of requests per second, 0 or more");
  }
  if (rate_per_s > max_rate_) {
    return bad_argument(fmt::format("rate: {:g}/s is more than pacer can schedule here: at most {:g}/s", rate_per_s,
                                    max_rate_));
  }
  change_rate(rate_per_s, by, {}, now_ns);
  return Ok{};
}

void LoadControl::change(int users, scenario::TypeCounts per_type, double spawn_rate_per_s, std::string_view by,
                         std::string note, TimeNs now_ns) {
  std::lock_guard lock(mutex_);
  if (users == target_.users && per_type == target_.per_type && spawn_rate_per_s == target_.spawn_rate_per_s &&
      note.empty()) {
    return;
  }
  report::LoadChangeReport& c = record(by, std::move(note), now_ns);
  c.users_to = users;
  c.spawn_rate_per_s = spawn_rate_per_s;
  for (std::size_t t = 0; t < per_type.size() && t < types_.size(); ++t) {
    if (per_type[t] > 0) c.users_by_type.emplace_back(types_[t].name, per_type[t]);
  }
  target_.users = users;
  target_.per_type = std::move(per_type);
  target_.spawn_rate_per_s = spawn_rate_per_s;
  publish();
}

Result<scenario::TypeCounts> LoadControl::counts_for(const scenario::MixRequest& mix) const {
  if (!mix.by_type()) return scenario::TypeCounts{};
  if (types_.empty()) return bad_argument("this run's user types are not known here");
  return scenario::resolve_mix(types_, mix);
}

Result<scenario::TypeCounts> LoadControl::counts_within_ceiling(scenario::MixRequest mix) const {
  if (mix.counts.empty()) mix.users = std::clamp(mix.users, 0, ceiling_);  // the rules, over the users allowed
  auto counts = counts_for(mix);
  if (counts) trim_to(*counts, ceiling_);
  return counts;
}

void LoadControl::change_rate(double rate_per_s, std::string_view by, std::string note, TimeNs now_ns) {
  std::lock_guard lock(mutex_);
  if (rate_per_s == target_.rate_per_s && note.empty()) return;
  record(by, std::move(note), now_ns).rate_to_per_s = rate_per_s;
  target_.rate_per_s = rate_per_s;
  // Timed as the workers take it: from the start (before it, the first step's
  // rate is the run's profile already).
  rate_changes_.push_back(RateChange{start_ns_ > 0 ? std::max<TimeNs>(0, now_ns - start_ns_) : 0, rate_per_s});
  publish();
}

Result<TimeNs> LoadControl::reset_stats(std::string_view by, TimeNs now_ns) {
  if (ended()) return bad_argument("the run is ending: its statistics are final");
  std::lock_guard lock(mutex_);
  if (start_ns_ == 0) return bad_argument("the run has not started: its statistics start with it");
  // One already coming: the same (the workers take one reset at a time).
  if (const TimeNs pending = reset_at_ns_.load(std::memory_order_relaxed); pending > now_ns) return pending;
  TimeNs at = std::max(now_ns + kResetLeadNs, record_from_ns_);
  if (interval_ns_ > 0 && at > record_from_ns_) {
    const TimeNs steps = (at - record_from_ns_ + interval_ns_ - 1) / interval_ns_;  // the next boundary
    at = record_from_ns_ + steps * interval_ns_;
  }
  if (at >= end_ns_) return bad_argument("the run ends before its statistics could start again (-d)");
  record(by, {}, at).reset = true;
  reset_at_ns_.store(at, std::memory_order_release);
  reset_generation_.fetch_add(1, std::memory_order_acq_rel);
  return at;
}

void LoadControl::publish() {
  target_.generation = generation_.load(std::memory_order_relaxed) + 1;
  generation_.store(target_.generation, std::memory_order_release);
}

void LoadControl::end(std::string_view by, std::string note, TimeNs now_ns) {
  std::lock_guard lock(mutex_);
  if (ended_.load(std::memory_order_relaxed)) return;
  record(by, std::move(note), now_ns).ended = true;
  ended_at_ns_.store(now_ns, std::memory_order_release);
  ended_.store(true, std::memory_order_release);
}

report::LoadChangeReport& LoadControl::record(std::string_view by, std::string note, TimeNs now_ns) {
  report::LoadChangeReport& c = changes_.emplace_back();
  c.at_s = start_ns_ > 0 ? static_cast<double>(std::max<TimeNs>(0, now_ns - start_ns_)) / 1e9 : 0.0;  // 0: before the start
  if (is_rate()) {
    c.rate_from_per_s = c.rate_to_per_s = target_.rate_per_s;
  } else {
    c.users_from = c.users_to = target_.users;
    c.spawn_rate_per_s = target_.spawn_rate_per_s;
  }
  c.by = std::string(by);
  c.note = std::move(note);
  return c;
}

Status LoadControl::first_step() {
  if (!shape_) return Ok{};
  auto step = shape_(0.0);
  if (!step) return step.error();
  if (!*step) return bad_input("the scenario's shape ends the run at 0 s (it returned nil): nothing would run");
  const ShapeStep& s = **step;
  if (s.users < 0) return bad_input(fmt::format("the scenario's shape asks for {} users at 0 s", s.users));
  auto per_type = is_rate() ? scenario::TypeCounts{} : counts_within_ceiling(s.mix());
  if (!per_type) return bad_input("the scenario's shape at 0 s: " + per_type.error().message);
  std::lock_guard lock(mutex_);
  if (is_rate()) {
    target_.rate_per_s = std::clamp(s.rate_per_s, 0.0, max_rate_);  // the run's profile starts at it
    return Ok{};
  }
  target_.users = per_type->empty() ? std::min(s.users, ceiling_) : scenario::total_users(*per_type);
  target_.per_type = std::move(*per_type);
  target_.spawn_rate_per_s = s.spawn_rate_per_s.value_or(default_spawn_rate_);
  return Ok{};
}

void LoadControl::tick(TimeNs now_ns) {
  if (!shape_ || ended() || now_ns < next_tick_ns_) return;
  TimeNs start = 0;
  {
    std::lock_guard lock(mutex_);
    start = start_ns_;
  }
  const TimeNs due_ns = next_tick_ns_;  // the second the shape is asked at (the main thread may be a little late)
  next_tick_ns_ += kShapePeriodNs;
  if (next_tick_ns_ <= now_ns) next_tick_ns_ = now_ns + kShapePeriodNs;  // the main thread was held up
  const double run_s = static_cast<double>(now_ns - start) / 1e9;
  auto step = shape_(run_s);
  if (!step) {
    {
      std::lock_guard lock(mutex_);
      shape_error_ = step.error().message;
    }
    end("shape", step.error().message, now_ns);
    return;
  }
  if (!*step) {
    // The shape's end is its second's (as -d's end is exact): the intervals end there, with no sliver after.
    end("shape", {}, due_ns);
    return;
  }
  take_step(**step, now_ns);
}

void LoadControl::take_step(const ShapeStep& s, TimeNs now_ns) {
  std::string note;
  const auto said_once = [&] {
    std::lock_guard lock(mutex_);
    if (!note.empty() && !changes_.empty() && changes_.back().note == note) note.clear();
  };
  if (is_rate()) {
    double rate = std::max(s.rate_per_s, 0.0);
    if (rate > max_rate_) {
      note = fmt::format("{:g}/s asked, {:g}/s at most", rate, max_rate_);
      rate = max_rate_;
    }
    said_once();
    change_rate(rate, "shape", std::move(note), now_ns);
    return;
  }
  auto per_type = counts_within_ceiling(s.mix());
  if (!per_type) {
    {
      std::lock_guard lock(mutex_);
      shape_error_ = per_type.error().message;
    }
    end("shape", per_type.error().message, now_ns);
    return;
  }
  int users = std::max(s.users, 0);
  if (users > ceiling_) {
    note = fmt::format("{} asked, {} at most (--max-users)", users, ceiling_);
    users = ceiling_;
  }
  if (!per_type->empty()) users = scenario::total_users(*per_type);
  const double rate = s.spawn_rate_per_s && *s.spawn_rate_per_s >= 0 ? *s.spawn_rate_per_s : default_spawn_rate_;
  said_once();
  change(users, std::move(*per_type), rate, "shape", std::move(note), now_ns);
}

std::string LoadControl::shape_error() const {
  std::lock_guard lock(mutex_);
  return shape_error_;
}

LoadControl::Target LoadControl::target() const {
  std::lock_guard lock(mutex_);
  return target_;
}

TimeNs LoadControl::start_ns() const {
  std::lock_guard lock(mutex_);
  return start_ns_;
}

int LoadControl::users() const {
  std::lock_guard lock(mutex_);
  return target_.users;
}

double LoadControl::arrivals_before(const load::RateProfile& profile, TimeNs t_ns) const {
  if (rate_changes_.empty() || t_ns <= rate_changes_.front().at_ns) return profile.arrivals_before(t_ns);
  double arrivals = profile.arrivals_before(rate_changes_.front().at_ns);
  for (std::size_t i = 0; i < rate_changes_.size() && rate_changes_[i].at_ns < t_ns; ++i) {
    const TimeNs until = i + 1 < rate_changes_.size() ? std::min(t_ns, rate_changes_[i + 1].at_ns) : t_ns;
    arrivals += rate_changes_[i].rate_per_s * static_cast<double>(until - rate_changes_[i].at_ns) / 1e9;
  }
  return arrivals;
}

double LoadControl::mean_rate_per_s(const load::RateProfile& profile, TimeNs from_ns, TimeNs to_ns) const {
  std::lock_guard lock(mutex_);
  if (rate_changes_.empty() || to_ns <= rate_changes_.front().at_ns) return profile.mean_rate_per_s(from_ns, to_ns);
  if (to_ns <= from_ns) return 0;
  return (arrivals_before(profile, to_ns) - arrivals_before(profile, from_ns)) / (static_cast<double>(to_ns - from_ns) / 1e9);
}

std::vector<report::LoadChangeReport> LoadControl::changes() const {
  std::lock_guard lock(mutex_);
  return changes_;
}

double planned_rate_per_s(const load::RateProfile& profile, const LoadControl* control, TimeNs from_ns, TimeNs to_ns) {
  if (control == nullptr || !control->is_rate()) return profile.mean_rate_per_s(from_ns, to_ns);
  return control->mean_rate_per_s(profile, from_ns, to_ns);
}

int users_share(int users, int worker, int workers) {
  if (workers <= 0 || users <= worker) return 0;
  return (users - worker - 1) / workers + 1;
}

}  // namespace pacer::engine
