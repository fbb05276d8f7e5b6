// Load drivers: *when* a worker sends. One per worker, chosen once per run:
//   ClosedDriver   (drive/closed_driver.h): each slot sends its next request when
//                  its previous one ended (with a script's delay() in between);
//   OpenDriver     (drive/open_driver.h): arrivals on the schedule, a backlog for
//                  those no connection can take yet, `unsent`/`deadline` give-ups;
//   ScenarioDriver (drive/scenario_driver.h): virtual users (closed: -u users with
//                  think time; open: tasks on the schedule, for a free user).
// *What* is sent is the RequestSource's; whether a connection can take it, the
// exchange's (free_capacity). A driver sends through the exchange and is told,
// once per request, how each ended; it never writes: the worker writes every
// connection the exchange gave a request, after the driver's call returns. The loop calls on_turn in today's order
// (TurnPhase), so the same arrivals meet the same state. One worker thread.
#pragma once

#include <cstdint>
#include <optional>

#include "core/clock.h"
#include "engine/conn/connection.h"
#include "engine/exchange/outgoing.h"
#include "engine/loop/stop_rules.h"
#include "engine/record/recorder.h"

namespace pacer::scenario {
struct ScenarioStats;
}

namespace pacer::engine {

class ConnectionPool;

// Where in the loop's turn a driver is called: before the timeouts (arrivals
// due), after the transport's timers (a backlog's give-ups), after the
// reconnects (timers due: a script's delay(), users' sleeps and think times).
enum class TurnPhase : std::uint8_t { kArrivals, kBacklog, kDue };

class LoadDriver : public RequestEnds {
 public:
  virtual ~LoadDriver() = default;

  // The run starts (clock.now): connections open, the first arrival is due, users spawn.
  virtual void start(ConnectionPool& pool) = 0;
  // Will c send anything if it connects? True may reserve one of the worker's
  // -n requests for c (ClosedDriver), so no connection opens for nothing.
  virtual bool wants_connection(Connection& c) = 0;
  // c can take requests: send what is due on its free slots (the caller flushes).
  virtual void fill(Connection& c) = 0;
  // RequestEnds (exchange/outgoing.h): how each request it sent ended.
  // c is closing: it leaves the driver's lists.
  virtual void forget(Connection& c) = 0;
  virtual void on_turn(TurnPhase phase) = 0;
  virtual TimeNs next_due_ns() const = 0;
  // What it has left to send, for the loop's stop rules (loop/stop_rules.h).
  virtual LoadProgress progress() const = 0;
  // Its gauges at an interval's close: the backlog, its lag, the scenario's errors.
  virtual void gauges(IntervalGauges& out) const = 0;
  // The loop ended: users run on_stop; a scenario's figures, or null.
  virtual scenario::ScenarioStats* stop() = 0;
  // The statistics start again (POST /stats/reset): a driver that keeps figures
  // of its own (a scenario's tasks and checks) zeroes them.
  virtual void reset_stats() {}
};

// A worker's share of -n in the closed loop: a connection reserves one request
// before it connects or sends (claim), so none opens for a request that will
// never be sent; the reservation is used up by a recorded send. Warm-up requests
// claim nothing. Without -n every claim succeeds.
class Quota {
 public:
  explicit Quota(std::optional<std::uint64_t> requests) : left_(requests) {}

  // now_ns: the loop's clock; record_from_ns: the warm-up's end.
  bool claim(Connection& c, TimeNs now_ns, TimeNs record_from_ns) {
    if (!left_ || c.claim.held || now_ns < record_from_ns) return true;
    if (*left_ == 0) return false;
    --*left_;
    c.claim.held = true;
    ++claims_held_;
    return true;
  }
  // c sent a request due at t_sched: a recorded one uses its reservation up.
  void spend(Connection& c, bool recorded) {
    if (recorded && c.claim.held) {
      c.claim.held = false;
      --claims_held_;
    }
  }
  // A recorded request is sent again (a GOAWAY refused it): it is claimed anew.
  void give_back() {
    if (left_) ++*left_;
  }
  // -n reached and no reservation left unsent.
  bool used_up() const { return left_ && *left_ == 0 && claims_held_ == 0; }

 private:
  std::optional<std::uint64_t> left_;  // recorded requests still to start
  std::uint64_t claims_held_ = 0;      // connections holding a reservation
};

}  // namespace pacer::engine
