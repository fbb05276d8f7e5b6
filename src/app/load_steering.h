// A run's changing load, wired for it (issue 27): the engine's LoadControl with
// the scenario file's load shape (asked in the test hooks' Lua state), lent to
// the web view for POST /users (a closed-model scenario's user count) and POST
// /rate (the open model's rate) while the run goes.
#pragma once

#include <memory>

#include "core/config.h"
#include "engine/control/load_control.h"
#include "scenario/test_hooks.h"
#include "web/live_view.h"
#include "web/load_steering.h"

namespace pacer::app {

// A rate control for the open model (-R, ramps, stages, with or without a
// scenario), a users control for a closed-model scenario, a fixed one for a
// closed loop (its statistics may still be reset). hooks: the scenario's test hooks, whose state runs the shape (null: none).
std::unique_ptr<engine::LoadControl> make_load_control(const Config& config, scenario::TestHooks* hooks);

// Lends `control` to the web view's POST /users and /rate for as long as it lives.
class LentSteering final : public web::LoadSteering {
 public:
  LentSteering(web::LiveView* view, engine::LoadControl* control);
  ~LentSteering() override;
  LentSteering(const LentSteering&) = delete;
  LentSteering& operator=(const LentSteering&) = delete;

  Status set_users(const scenario::MixRequest& users, std::optional<double> spawn_rate_per_s) override;
  Status set_rate(double rate_per_s) override;
  std::string_view load_kind() const override;
  Result<double> reset_stats() override;
  std::string state_json() const override;

 private:
  web::LiveView* view_;
  engine::LoadControl* control_;
};

}  // namespace pacer::app
