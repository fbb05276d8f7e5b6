// The open model (-R, ramps, stages, Poisson): requests are due on the schedule
// (drive/arrivals.h), never on responses. An arrival goes to a connection with a
// free slot (the idle list) or waits in a bounded FIFO backlog with its latency
// clock already running (t_sched is the arrival's time); one that waits longer
// than --timeout (or a shorter --deadline) is given up as `unsent` (`deadline`),
// during the run and its drain alike. One worker thread.
#pragma once

#include "engine/conn/pool.h"
#include "engine/drive/arrivals.h"
#include "engine/drive/driver.h"
#include "engine/drive/idle_connections.h"
#include "engine/drive/request_source.h"
#include "engine/drive/time_ring.h"
#include "engine/exchange/exchange.h"

namespace pacer::engine {

class OpenDriver final : public LoadDriver {
 public:
  // connections: the worker's (the pool's, all made by then).
  OpenDriver(const SharedRun& shared, int worker_index, std::size_t connections, std::optional<std::uint64_t> quota,
             LoopClock& clock, Recorder& recorder, Exchange& exchange, RequestSource source);

  void start(ConnectionPool& pool) override;
  // A connection is worth having while arrivals may still come or wait.
  bool wants_connection(Connection& c) override;
  void fill(Connection& c) override;
  void completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) override;
  void failed(Connection&, const RequestSlot&, ErrorField, bool) override {}
  bool put_back(RequestSlot& slot, bool recorded) override;
  void forget(Connection& c) override { idle_.remove(c); }
  void on_turn(TurnPhase phase) override;
  TimeNs next_due_ns() const override;
  LoadProgress progress() const override;
  void gauges(IntervalGauges& out) const override;
  scenario::ScenarioStats* stop() override { return nullptr; }

 private:
  void take(TimeNs t_sched);
  // The oldest waiting arrival that has not waited too long.
  bool pop_backlog(TimeNs& t_sched);
  void expire_backlog();

  LoopClock& clock_;
  Recorder& recorder_;
  Exchange& exchange_;
  RequestSource source_;
  Arrivals arrivals_;
  TimeRing backlog_;
  IdleConnections idle_;   // connections with a free slot
};

}  // namespace pacer::engine
