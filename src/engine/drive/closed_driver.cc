// See closed_driver.h.
#include "engine/drive/closed_driver.h"

#include <algorithm>
#include <utility>

namespace pacer::engine {

ClosedDriver::ClosedDriver(const SharedRun& shared, std::optional<std::uint64_t> quota, LoopClock& clock,
                           Recorder& recorder, Exchange& exchange, RequestSource source, WorkerScript* delay_script,
                           std::size_t slots)
    : shared_(shared),
      clock_(clock),
      recorder_(recorder),
      exchange_(exchange),
      source_(std::move(source)),
      delay_script_(delay_script),
      quota_(quota),
      owed_(slots) {}

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
  if (clock_.draining) t_sched = owed_.front();
  if (!send_from(source_, exchange_, c, t_sched)) return false;
  if (clock_.draining) (void)owed_.pop();
  quota_.spend(c, t_sched >= shared_.record_from_ns);
  return true;
}

bool ClosedDriver::put_back(RequestSlot& slot, bool recorded) {
  // In the drain the request is still owed an answer (the server never
  // processed it, and it was due before -d's end): it waits for a connection
  // that reopens for it. A full ring (not expected: it holds every slot) fails
  // it as what it met.
  if (clock_.draining) return owed_.push(slot.t_sched);
  if (recorded) quota_.give_back();  // its -n request is claimed again when resent
  slot.free_ns = slot.t_sched;       // the slot resends with the original schedule time
  return true;
}

void ClosedDriver::on_turn(TurnPhase phase) {
  if (phase == TurnPhase::kBacklog) expire_owed();
  if (phase != TurnPhase::kDue || delay_script_ == nullptr) return;
  while (Connection* c = delay_script_->pop_due(clock_.now)) {
    if (exchange_.free_capacity(*c) > 0) (void)send(*c, clock_.now);  // the worker writes it
  }
}

void ClosedDriver::expire_owed() {
  const LoadOptions& load = shared_.options.load;
  while (!owed_.empty() && clock_.now - owed_.front() >= load.timeout_ns) {
    const TimeNs t_sched = owed_.pop();
    if (recorder_.recorded(t_sched)) record_unsent(recorder_, clock_.now, clock_.now - t_sched, 1, load.record_timeouts);
  }
}

TimeNs ClosedDriver::next_due_ns() const {
  const TimeNs owed = owed_.empty() ? kNeverNs : owed_.front() + shared_.options.load.timeout_ns;
  return std::min(owed, delay_script_ != nullptr ? delay_script_->next_due_ns() : kNeverNs);
}

LoadProgress ClosedDriver::progress() const {
  // -n reached; in the drain, the requests in flight and those owed are all there is.
  return LoadProgress{quota_.used_up() && clock_.now >= shared_.record_from_ns, owed_.empty()};
}

}  // namespace pacer::engine
