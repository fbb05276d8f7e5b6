// See load_steering.h.
#include "app/load_steering.h"

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "report/load_changes.h"

namespace pacer::app {

std::unique_ptr<engine::LoadControl> make_load_control(const Config& config, scenario::TestHooks* hooks) {
  if (!config.is_scenario() || config.is_open_model()) return nullptr;
  // The whole test's counts (a shard runs its share of the user ids, engine::users_share).
  const int ceiling = config.test_connections > 0 ? config.test_connections : config.connections;
  auto control = std::make_unique<engine::LoadControl>(config.users, ceiling, config.spawn_rate_per_s);
  if (hooks != nullptr && hooks->has_shape()) {
    control->set_shape([hooks](double run_s) { return hooks->shape_at(run_s); });
  }
  return control;
}

LentSteering::LentSteering(web::LiveView* view, engine::LoadControl* control) : view_(view), control_(control) {
  if (view_ != nullptr && control_ != nullptr) view_->lend_steering(this);
}

LentSteering::~LentSteering() {
  if (view_ != nullptr && control_ != nullptr) view_->lend_steering(nullptr);
}

Status LentSteering::set_users(int users, std::optional<double> spawn_rate_per_s) {
  return control_->set_users(users, spawn_rate_per_s, "web", monotonic_now_ns());
}

std::string LentSteering::state_json() const {
  const engine::LoadControl::Target target = control_->target();
  nlohmann::ordered_json out = {{"users", target.users},
                                {"max_users", control_->ceiling()},
                                {"spawn_rate_per_s", target.spawn_rate_per_s},
                                {"changes", report::load_changes_json(control_->changes())}};
  return out.dump() + "\n";
}

}  // namespace pacer::app
