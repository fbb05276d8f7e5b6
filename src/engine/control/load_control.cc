// See load_control.h.
#include "engine/control/load_control.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pacer::engine {

namespace {
// Counts per type held to `most` users in all: the last types give up theirs first.
void trim_to(scenario::TypeCounts& counts, int most) {
  int over = scenario::total_users(counts) - most;
  for (std::size_t t = counts.size(); t-- > 0 && over > 0;) {
    const int taken = std::min(counts[t], over);
    counts[t] -= taken;
    over -= taken;
  }
}

LoadTarget users_target(int users, int ceiling, double spawn_rate_per_s) {
  LoadTarget first;
  first.users = std::clamp(users, 0, ceiling);
  first.spawn_rate_per_s = spawn_rate_per_s;
  return first;
}

LoadTarget rate_target(RateControl rate) {
  LoadTarget first;
  first.rate_per_s = std::clamp(rate.rate_per_s, 0.0, rate.max_rate_per_s);
  return first;
}
}  // namespace

LoadControl::LoadControl(int users, int ceiling, double spawn_rate_per_s)
    : default_spawn_rate_(spawn_rate_per_s),
      target_(LoadKind::kUsers, ceiling, 0, users_target(users, ceiling, spawn_rate_per_s)) {}

LoadControl::LoadControl(RateControl rate)
    : default_spawn_rate_(0), target_(LoadKind::kRate, 0, rate.max_rate_per_s, rate_target(rate)) {}

LoadControl::LoadControl(FixedLoad) : default_spawn_rate_(0), target_(LoadKind::kFixed, 0, 0, LoadTarget{}) {}

void LoadControl::started(TimeNs start_ns, TimeNs record_from_ns, TimeNs end_ns, TimeNs interval_ns) {
  std::lock_guard lock(mutex_);
  log_.started(start_ns);
  resets_.started(start_ns, record_from_ns, end_ns, interval_ns);
  shape_.started(start_ns);
}

Status LoadControl::set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s,
                              std::string_view by, TimeNs now_ns) {
  if (target_.kind() != LoadKind::kUsers) {
    return bad_argument(target_.is_rate()
                            ? "users: this run's load is a rate (the open model): change it with POST /rate"
                            : "users: this run's load is its connections (-c), which do not change");
  }
  if (end_.ended()) return bad_argument("the run is ending: its load no longer changes");
  if (users.users < 0) return bad_argument(fmt::format("users: {} is negative", users.users));
  auto per_type = counts_for(users);
  if (!per_type) return bad_argument("users: " + per_type.error().message);
  const int total = per_type->empty() ? users.users : scenario::total_users(*per_type);
  if (total > target_.ceiling()) {
    return bad_argument(fmt::format("users: {} is more than this run's ceiling of {} (the users allocated: "
                                    "--max-users, else -u)",
                                    total, target_.ceiling()));
  }
  if (spawn_rate_per_s && !(*spawn_rate_per_s >= 0 && std::isfinite(*spawn_rate_per_s))) {
    return bad_argument("spawn rate: must be a number of users per second, 0 or more");
  }
  std::lock_guard lock(mutex_);
  change_users(total, std::move(*per_type), spawn_rate_per_s.value_or(default_spawn_rate_), by, {}, now_ns);
  return Ok{};
}

Status LoadControl::set_rate(double rate_per_s, std::string_view by, TimeNs now_ns) {
  if (!target_.is_rate()) {
    return bad_argument("rate: this run's load is its users or connections (the closed model), not a rate");
  }
  if (end_.ended()) return bad_argument("the run is ending: its load no longer changes");
  if (!(rate_per_s >= 0 && std::isfinite(rate_per_s))) {
    return bad_argument("rate: must be a number of requests per second, 0 or more");
  }
  if (rate_per_s > target_.max_rate_per_s()) {
    return bad_argument(fmt::format("rate: {:g}/s is more than pacer can schedule here: at most {:g}/s", rate_per_s,
                                    target_.max_rate_per_s()));
  }
  std::lock_guard lock(mutex_);
  change_rate(rate_per_s, by, {}, now_ns);
  return Ok{};
}

Result<TimeNs> LoadControl::reset_stats(std::string_view by, TimeNs now_ns) {
  if (end_.ended()) return bad_argument("the run is ending: its statistics are final");
  std::lock_guard lock(mutex_);
  auto scheduled = resets_.schedule(now_ns);
  if (!scheduled) return scheduled.error();
  if (scheduled->is_new) {
    report::LoadChangeReport c = change_from_now(by, {}, scheduled->at_ns);
    c.reset = true;
    log_.add(std::move(c));
  }
  return scheduled->at_ns;
}

void LoadControl::change_users(int users, scenario::TypeCounts per_type, double spawn_rate_per_s, std::string_view by,
                               std::string note, TimeNs now_ns) {
  LoadTarget next = target_.target();
  if (users == next.users && per_type == next.per_type && spawn_rate_per_s == next.spawn_rate_per_s && note.empty()) {
    return;
  }
  report::LoadChangeReport c = change_from_now(by, std::move(note), now_ns);
  c.users_to = users;
  c.spawn_rate_per_s = spawn_rate_per_s;
  for (std::size_t t = 0; t < per_type.size() && t < types_.size(); ++t) {
    if (per_type[t] > 0) c.users_by_type.emplace_back(types_[t].name, per_type[t]);
  }
  log_.add(std::move(c));
  next.users = users;
  next.per_type = std::move(per_type);
  next.spawn_rate_per_s = spawn_rate_per_s;
  target_.publish(std::move(next));
}

void LoadControl::change_rate(double rate_per_s, std::string_view by, std::string note, TimeNs now_ns) {
  LoadTarget next = target_.target();
  if (rate_per_s == next.rate_per_s && note.empty()) return;
  report::LoadChangeReport c = change_from_now(by, std::move(note), now_ns);
  c.rate_to_per_s = rate_per_s;
  log_.add(std::move(c));
  log_.add_rate(rate_per_s, now_ns);
  next.rate_per_s = rate_per_s;
  target_.publish(std::move(next));
}

Result<scenario::TypeCounts> LoadControl::counts_for(const scenario::MixRequest& mix) const {
  if (!mix.by_type()) return scenario::TypeCounts{};
  if (types_.empty()) return bad_argument("this run's user types are not known here");
  return scenario::resolve_mix(types_, mix);
}

Result<scenario::TypeCounts> LoadControl::counts_within_ceiling(scenario::MixRequest mix) const {
  const int ceiling = target_.ceiling();
  if (mix.counts.empty()) mix.users = std::clamp(mix.users, 0, ceiling);  // the rules, over the users allowed
  auto counts = counts_for(mix);
  if (counts) trim_to(*counts, ceiling);
  return counts;
}

void LoadControl::end(std::string_view by, std::string note, TimeNs now_ns) {
  if (end_.ended()) return;
  report::LoadChangeReport c = change_from_now(by, std::move(note), now_ns);
  c.ended = true;
  log_.add(std::move(c));
  end_.end(now_ns);
}

report::LoadChangeReport LoadControl::change_from_now(std::string_view by, std::string note, TimeNs now_ns) const {
  report::LoadChangeReport c = log_.make(by, std::move(note), now_ns);
  const LoadTarget now = target_.target();
  if (target_.is_rate()) {
    c.rate_from_per_s = c.rate_to_per_s = now.rate_per_s;
  } else {
    c.users_from = c.users_to = now.users;
    c.spawn_rate_per_s = now.spawn_rate_per_s;
  }
  return c;
}

Status LoadControl::first_step() {
  if (!shape_.has_shape()) return Ok{};
  auto step = shape_.first();
  if (!step) return step.error();
  if (!*step) return bad_input("the scenario's shape ends the run at 0 s (it returned nil): nothing would run");
  const ShapeStep& s = **step;
  if (s.users < 0) return bad_input(fmt::format("the scenario's shape asks for {} users at 0 s", s.users));
  auto per_type = target_.is_rate() ? scenario::TypeCounts{} : counts_within_ceiling(s.mix());
  if (!per_type) return bad_input("the scenario's shape at 0 s: " + per_type.error().message);
  std::lock_guard lock(mutex_);
  LoadTarget first = target_.target();
  if (target_.is_rate()) {
    first.rate_per_s = std::clamp(s.rate_per_s, 0.0, target_.max_rate_per_s());  // the run's profile starts at it
  } else {
    first.users = per_type->empty() ? std::min(s.users, target_.ceiling()) : scenario::total_users(*per_type);
    first.per_type = std::move(*per_type);
    first.spawn_rate_per_s = s.spawn_rate_per_s.value_or(default_spawn_rate_);
  }
  target_.set_first(std::move(first));
  return Ok{};
}

void LoadControl::tick(TimeNs now_ns) {
  if (!shape_.has_shape() || end_.ended()) return;
  std::optional<ShapeDriver::Asked> asked = shape_.ask_if_due(now_ns);
  if (!asked) return;
  std::lock_guard lock(mutex_);
  if (!asked->answer) {
    shape_.failed(asked->answer.error().message);
    end("shape", asked->answer.error().message, now_ns);
  } else if (!*asked->answer) {
    // The shape's end is its second's (as -d's end is exact): the intervals end there, with no sliver after.
    end("shape", {}, asked->due_ns);
  } else {
    take_step(**asked->answer, now_ns);
  }
}

void LoadControl::take_step(const ShapeStep& s, TimeNs now_ns) {
  std::string note;
  if (target_.is_rate()) {
    double rate = std::max(s.rate_per_s, 0.0);
    if (rate > target_.max_rate_per_s()) {
      note = fmt::format("{:g}/s asked, {:g}/s at most", rate, target_.max_rate_per_s());
      rate = target_.max_rate_per_s();
    }
    if (log_.last_note_is(note)) note.clear();  // said once
    change_rate(rate, "shape", std::move(note), now_ns);
    return;
  }
  auto per_type = counts_within_ceiling(s.mix());
  if (!per_type) {
    shape_.failed(per_type.error().message);
    end("shape", per_type.error().message, now_ns);
    return;
  }
  int users = std::max(s.users, 0);
  if (users > target_.ceiling()) {
    note = fmt::format("{} asked, {} at most (--max-users)", users, target_.ceiling());
    users = target_.ceiling();
  }
  if (!per_type->empty()) users = scenario::total_users(*per_type);
  const double rate = s.spawn_rate_per_s && *s.spawn_rate_per_s >= 0 ? *s.spawn_rate_per_s : default_spawn_rate_;
  if (log_.last_note_is(note)) note.clear();  // said once
  change_users(users, std::move(*per_type), rate, "shape", std::move(note), now_ns);
}

int users_share(int users, int worker, int workers) {
  if (workers <= 0 || users <= worker) return 0;
  return (users - worker - 1) / workers + 1;
}

}  // namespace pacer::engine
