// See controller.h.
#include "engine/controller.h"

#include "engine/control/load_control.h"
#include "engine/loop/doorbell.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace pacer::engine {

namespace {

// Between the workers' rings (loop/doorbell.h) the controller looks every
// kIdlePoll (a stop signal, the watchdog, the live view's clock); every kShapePoll
// while a load shape runs, whose step is due at each second of the run.
constexpr TimeNs kIdlePollNs = 50 * kNsPerMs;
constexpr auto kShapePoll = std::chrono::milliseconds(5);

}  // namespace

std::optional<watchdog::StuckWorker> watch_workers(std::span<const std::unique_ptr<Worker>> workers,
                                                   const SharedRun& shared, IntervalCollector* collector,
                                                   LoadControl* control) {
  std::vector<const watchdog::LuaBeat*> beats;
  for (const auto& w : workers) beats.push_back(&w->lua_beat());
  const auto done = std::make_unique<bool[]>(workers.size());  // std::vector<bool> has no span
  watchdog::StuckWatch watch(workers.size());
  std::optional<TimeNs> stop_seen_ns;    // a stop signal (or the web view's Stop) first seen
  std::optional<TimeNs> others_done_ns;  // every worker not inside Lua first seen done
  while (true) {
    std::size_t done_count = 0;
    std::size_t in_lua = 0;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      done[i] = workers[i]->is_done();
      done_count += done[i] ? 1 : 0;
      in_lua += !done[i] && beats[i]->seen().in_lua ? 1 : 0;
    }
    if (collector != nullptr) collector->emit_ready();
    if (control != nullptr) control->tick(monotonic_now_ns());  // a load shape's next step
    if (done_count == workers.size()) return std::nullopt;
    const TimeNs now = monotonic_now_ns();
    if (!stop_seen_ns && shared.stop->load(std::memory_order_relaxed)) stop_seen_ns = now;
    if (done_count > 0 && done_count + in_lua == workers.size()) {
      if (!others_done_ns) others_done_ns = now;  // -n reached, or a script's stop: the run is over but for Lua
    } else {
      others_done_ns.reset();
    }
    std::optional<TimeNs> should_end_ns;
    if (now >= shared.end_ns) should_end_ns = shared.end_ns;
    for (const std::optional<TimeNs>& t : {stop_seen_ns, others_done_ns}) {
      if (t) should_end_ns = std::min(should_end_ns.value_or(*t), *t);
    }
    if (auto stuck = watch.poll(beats, std::span<const bool>(done.get(), workers.size()), now, should_end_ns)) {
      return stuck;
    }
    if (shared.doorbell != nullptr && (control == nullptr || !control->shape().has_shape())) {
      shared.doorbell->wait_until(monotonic_now_ns() + kIdlePollNs);
    } else {
      std::this_thread::sleep_for(kShapePoll);
    }
  }
}

}  // namespace pacer::engine
