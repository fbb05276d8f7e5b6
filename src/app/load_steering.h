// A closed-model scenario's changing user count, wired for a run (issue 27):
// the engine's LoadControl with the file's load shape (asked in the test
// hooks' Lua state), and lent to the web view for POST /users while the run goes.
#pragma once

#include <memory>

#include "core/config.h"
#include "engine/control/load_control.h"
#include "scenario/test_hooks.h"
#include "web/live_view.h"
#include "web/load_steering.h"

namespace pacer::app {

// Null unless the run is a closed-model scenario (the open model's load is its
// rate). hooks: the scenario's test hooks, whose state runs the shape (null: none).
std::unique_ptr<engine::LoadControl> make_load_control(const Config& config, scenario::TestHooks* hooks);

// Lends `control` to the web view's POST /users for as long as it lives.
class LentSteering final : public web::LoadSteering {
 public:
  LentSteering(web::LiveView* view, engine::LoadControl* control);
  ~LentSteering() override;
  LentSteering(const LentSteering&) = delete;
  LentSteering& operator=(const LentSteering&) = delete;

  Status set_users(int users, std::optional<double> spawn_rate_per_s) override;
  std::string state_json() const override;

 private:
  web::LiveView* view_;
  engine::LoadControl* control_;
};

}  // namespace pacer::app
