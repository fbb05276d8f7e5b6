// See load_steering.h.
#include "app/load_steering.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/load_options.h"
#include "core/clock.h"
#include "report/load_changes.h"

namespace pacer::app {

std::unique_ptr<engine::LoadControl> make_load_control(const Config& config, scenario::TestHooks* hooks) {
  std::unique_ptr<engine::LoadControl> control;
  if (config.is_open_model()) {
    // The whole test's rate (a shard schedules its share, as of -R). The highest:
    // what -R itself may ask for.
    const double most = cli::kMaxRatePerProcess * std::max(1, config.shard_count);
    control = std::make_unique<engine::LoadControl>(engine::RateControl{config.rate_per_s, most});
  } else if (config.is_scenario()) {
    // The whole test's counts (a shard runs its share of the user ids, engine::users_share).
    const int ceiling = config.test_connections > 0 ? config.test_connections : config.connections;
    control = std::make_unique<engine::LoadControl>(config.users, ceiling, config.spawn_rate_per_s);
  } else {
    control = std::make_unique<engine::LoadControl>(engine::FixedLoad{});  // its statistics may still be reset
  }
  if (hooks != nullptr) control->set_user_types(hooks->types());  // a count per type, by name
  if (hooks != nullptr && hooks->has_shape()) {
    const bool rate = control->published().is_rate();
    control->set_shape([hooks, rate](double run_s) { return hooks->shape_at(run_s, rate); });
  }
  return control;
}

LentSteering::LentSteering(web::LiveView* view, engine::LoadControl* control) : view_(view), control_(control) {
  if (view_ != nullptr && control_ != nullptr) view_->lend_steering(this);
}

LentSteering::~LentSteering() {
  if (view_ != nullptr && control_ != nullptr) view_->lend_steering(nullptr);
}

Status LentSteering::set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s) {
  return control_->set_users(users, spawn_rate_per_s, "web", monotonic_now_ns());
}

Status LentSteering::set_rate(double rate_per_s) { return control_->set_rate(rate_per_s, "web", monotonic_now_ns()); }

std::string_view LentSteering::load_kind() const {
  switch (control_->published().kind()) {
    case engine::LoadKind::kUsers: return "users";
    case engine::LoadKind::kRate: return "rate";
    case engine::LoadKind::kFixed: break;
  }
  return "fixed";
}

Result<double> LentSteering::reset_stats() {
  auto at = control_->reset_stats("web", monotonic_now_ns());
  if (!at) return at.error();
  return static_cast<double>(*at - control_->log().start_ns()) / 1e9;
}

std::string LentSteering::state_json() const {
  const engine::PublishedTarget& published = control_->published();
  const engine::LoadTarget target = published.target();
  nlohmann::ordered_json out;
  if (published.is_rate()) {
    out = {{"model", "open"}, {"rate_per_s", target.rate_per_s}, {"max_rate_per_s", published.max_rate_per_s()}};
  } else if (published.kind() == engine::LoadKind::kUsers) {
    out = {{"model", "closed"},
           {"users", target.users},
           {"max_users", published.ceiling()},
           {"spawn_rate_per_s", target.spawn_rate_per_s}};
  } else {
    out = {{"model", "closed"}};  // a closed loop: -c connections, fixed
  }
  out["changes"] = report::load_changes_json(control_->log().changes());
  return out.dump() + "\n";
}

}  // namespace pacer::app
