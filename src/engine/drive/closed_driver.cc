// See closed_driver.h.
#include "engine/drive/closed_driver.h"

#include <algorithm>
#include <utility>

namespace pacer::engine {

ClosedDriver::ClosedDriver(const SharedRun& shared, std::optional<std::uint64_t> quota, LoopClock& clock,
                           Exchange& exchange, RequestSource source, WorkerScript* delay_script)
    : shared_(shared),
      clock_(clock),
      exchange_(exchange),
      source_(std::move(source)),
      delay_script_(delay_script),
      quota_(quota) {}

void ClosedDriver::fill(Connection& c) {
  if (delay_script_ != nullptr) {
    // wrk: delay() before every request; on_turn(kDue) sends it when due.
    if (exchange_.free_capacity(c) > 0 && !delay_script_->is_deferred(c)) delay_script_->defer(c, clock_.now);
    return;
  }
  // Every free slot sends its next request, scheduled when it freed up.
  while (exchange_.free_capacity(c) > 0 && send(c, exchange_.next_free_ns(c))) {
  }
}

bool ClosedDriver::send(Connection& c, TimeNs t_sched) {
  if (!wants_connection(c)) return false;
  if (!send_from(source_, exchange_, c, t_sched)) return false;
  quota_.spend(c, t_sched >= shared_.record_from_ns);
  return true;
}

bool ClosedDriver::put_back(RequestSlot& slot, bool recorded) {
  // In the drain no connection reopens and nothing is sent: a request put back
  // would vanish (neither sent nor failed). It fails as what it met instead.
  if (clock_.draining) return false;
  if (recorded) quota_.give_back();  // its -n request is claimed again when resent
  slot.free_ns = slot.t_sched;       // the slot resends with the original schedule time
  return true;
}

void ClosedDriver::on_turn(TurnPhase phase) {
  if (phase != TurnPhase::kDue || delay_script_ == nullptr) return;
  while (Connection* c = delay_script_->pop_due(clock_.now)) {
    if (exchange_.free_capacity(*c) > 0) (void)send(*c, clock_.now);  // the worker writes it
  }
}

TimeNs ClosedDriver::next_due_ns() const { return delay_script_ != nullptr ? delay_script_->next_due_ns() : kNeverNs; }

LoadProgress ClosedDriver::progress() const {
  // -n reached; in the drain, the requests in flight are all there is.
  return LoadProgress{quota_.used_up() && clock_.now >= shared_.record_from_ns, true};
}

}  // namespace pacer::engine
