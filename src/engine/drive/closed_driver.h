// The closed loop (wrk, ab, h2load): each request slot of a connection sends its
// next request when its previous one ended; its t_sched is when the slot became
// free (kAtSend after a response: the clock starts at the send; the failure
// time after an error, so reconnecting counts). With a script's delay(), a
// connection waits delay() ms before each request (wrk's delay is pacing, not
// I/O). -n is the Quota's (drive/driver.h). One worker thread.
#pragma once

#include "engine/conn/pool.h"
#include "engine/drive/driver.h"
#include "engine/drive/request_source.h"
#include "engine/exchange/exchange.h"

namespace pacer::engine {

class ClosedDriver final : public LoadDriver {
 public:
  // script: the worker's script when it defines delay(), else null.
  ClosedDriver(const SharedRun& shared, std::optional<std::uint64_t> quota, LoopClock& clock, Exchange& exchange,
               RequestSource source, WorkerScript* delay_script);

  void start(ConnectionPool& pool) override { pool.start(clock_.now, ConnectionPool::Opening::kTogether); }
  bool wants_connection(Connection& c) override {
    return !clock_.draining && quota_.claim(c, clock_.now, shared_.record_from_ns);
  }
  void fill(Connection& c) override;
  void completed(Connection& c, const RequestSlot&, int status, TimeNs, bool) override { source_.responded(c, status); }
  void failed(Connection&, const RequestSlot&, ErrorField, bool) override {}
  bool put_back(RequestSlot& slot, bool recorded) override;
  void forget(Connection&) override {}
  void on_turn(TurnPhase phase) override;
  TimeNs next_due_ns() const override;
  LoadProgress progress() const override;
  void gauges(IntervalGauges&) const override {}
  scenario::ScenarioStats* stop() override { return nullptr; }

 private:
  // One request on a free slot of c, due at t_sched; false if -n or the drain says no.
  bool send(Connection& c, TimeNs t_sched);

  const SharedRun& shared_;
  LoopClock& clock_;
  Exchange& exchange_;
  RequestSource source_;
  WorkerScript* delay_script_;
  Quota quota_;
};

}  // namespace pacer::engine
