// See user_load.h.
#include "engine/drive/user_load.h"

#include <vector>

#include "engine/control/load_control.h"

namespace pacer::engine {

UserLoad::UserLoad(const SharedRun& shared, int worker_index, LoopClock& clock, scenario::Users& users)
    : shared_(shared), worker_index_(worker_index), clock_(clock), users_(users) {}

void UserLoad::start() {
  if (shared_.control != nullptr && !shared_.control->is_rate()) {  // the open model's users are --max-users
    const LoadControl::Target target = shared_.control->target();
    control_seen_ = target.generation;
    users_.start(clock_.now, users_share(target.users, target.per_type));
  } else {
    users_.start(clock_.now);  // every slot
  }
}

scenario::TypeCounts UserLoad::users_share(int users, const scenario::TypeCounts& per_type) const {
  const LoadOptions& load = shared_.options.load;
  const int workers = shared_.worker_count * load.shard_count;
  const scenario::TypeCounts test = per_type.empty() ? scenario::counts_by_rules(users_.types(), users) : per_type;
  // Every worker's slots: its share of the ids below the ceiling (as its users were allocated).
  std::vector<int> slots(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) slots[static_cast<std::size_t>(w)] = engine::users_share(shared_.control->ceiling(), w, workers);
  return scenario::worker_share(test, load.shard_index * shared_.worker_count + worker_index_, workers, slots);
}

void UserLoad::follow_control() {
  if (shared_.control == nullptr || shared_.control->is_rate() || shared_.control->generation() == control_seen_ ||
      clock_.draining) {
    return;  // a rate control's changes are the arrivals' (Arrivals::follow_control)
  }
  const LoadControl::Target target = shared_.control->target();
  control_seen_ = target.generation;
  // The spawn rate is the run's: each worker starts its share of it.
  const double workers = static_cast<double>(shared_.worker_count * shared_.options.load.shard_count);
  users_.population().set_target(users_share(target.users, target.per_type), target.spawn_rate_per_s / workers,
                                 shared_.options.load.stop_timeout_ns, clock_.now);
}

void UserLoad::finish_tasks() {
  finishing_ = true;
  // Each retires at its task's end.
  users_.population().set_target({}, 0, shared_.options.load.stop_timeout_ns, clock_.now);
}

}  // namespace pacer::engine
