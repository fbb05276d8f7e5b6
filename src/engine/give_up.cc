// GiveUpWatch: see give_up.h.
#include "engine/give_up.h"

namespace pacer::engine {

GiveUpWatch::GiveUpWatch(int workers, TimeNs start_ns) : slots_(std::make_unique<Slot[]>(workers)), workers_(workers) {
  for (int w = 0; w < workers; ++w) slots_[w].idle_since_ns.store(start_ns, std::memory_order_relaxed);
}

bool GiveUpWatch::all_idle_for(TimeNs now_ns, TimeNs period_ns) {
  for (int w = 0; w < workers_; ++w) {
    const TimeNs since = slots_[w].idle_since_ns.load(std::memory_order_relaxed);
    if (since == kHasOpen || now_ns - since < period_ns) return false;
  }
  gave_up_.store(true, std::memory_order_relaxed);
  return true;
}

}  // namespace pacer::engine
