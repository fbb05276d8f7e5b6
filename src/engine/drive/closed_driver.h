// The closed loop (wrk, ab, h2load): each request slot of a connection sends its
// next request when its previous one ended; its t_sched is when the slot became
// free (kAtSend after a response: the clock starts at the send; the failure
// time after an error, so reconnecting counts). With a script's delay(), a
// connection waits delay() ms before each request (wrk's delay is pacing, not
// I/O). -n is the Quota's (drive/driver.h). In the drain nothing new is sent:
// only the requests the server did not process after -d's end (refused by a
// graceful GOAWAY, or met by a kept-alive connection's close: put_back), which
// are owed an answer, go out again on a reopened connection (with their t_sched),
// or, not sent within --timeout of it, end as `unsent`. One worker thread.
#pragma once

#include "engine/conn/pool.h"
#include "engine/drive/driver.h"
#include "engine/drive/request_source.h"
#include "engine/drive/time_ring.h"
#include "engine/exchange/exchange.h"

namespace pacer::engine {

class ClosedDriver final : public LoadDriver {
 public:
  // script: the worker's script when it defines delay(), else null; slots: the
  // worker's request slots (what a drain can owe at most).
  ClosedDriver(const SharedRun& shared, std::optional<std::uint64_t> quota, LoopClock& clock, Recorder& recorder,
               Exchange& exchange, RequestSource source, WorkerScript* delay_script, std::size_t slots);

  void start(ConnectionPool& pool) override { pool.start(clock_.now, ConnectionPool::Opening::kTogether); }
  bool wants_connection(Connection& c) override {
    if (clock_.draining) return !owed_.empty();
    return quota_.claim(c, clock_.now, shared_.record_from_ns);
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
  // One request on a free slot of c, due at t_sched (in the drain, an owed
  // request's); false if -n or the drain says no.
  bool send(Connection& c, TimeNs t_sched);
  // In the drain: the owed requests not sent within --timeout of their t_sched end as `unsent`.
  void expire_owed();

  const SharedRun& shared_;
  LoopClock& clock_;
  Recorder& recorder_;
  Exchange& exchange_;
  RequestSource source_;
  WorkerScript* delay_script_;
  Quota quota_;
  TimeRing owed_;  // the drain's: t_sched of each request put back, still to send again
};

}  // namespace pacer::engine
