// The controller's wait, on the main thread while the workers run: it hands
// each interval to the run's sink (engine/interval_collector.h) and watches for
// a worker stuck inside one Lua call (watchdog/lua_watch.h: a scenario task that
// never yields, a script hook that never returns; LuaJIT does not interrupt a
// compiled loop). A worker inside the same call for the watchdog's grace after
// the run should have ended (-d's end, a stop signal, or every other worker
// done) is stuck: the wait ends without it, so every run ends.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>

#include "engine/control/load_control.h"
#include "engine/interval_collector.h"
#include "engine/run_plan.h"
#include "engine/worker.h"
#include "watchdog/lua_watch.h"

namespace pacer::engine {

// Returns nullopt once every worker is done, or the stuck worker (its index
// among `workers`; the others may still be finishing: join them, not it).
// collector: null without intervals; control: the run's load control, whose
// shape it ticks (null: none).
std::optional<watchdog::StuckWorker> watch_workers(std::span<const std::unique_ptr<Worker>> workers,
                                                   const SharedRun& shared, IntervalCollector* collector,
                                                   LoadControl* control);

}  // namespace pacer::engine
