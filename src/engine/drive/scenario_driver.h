// Scenarios (--scenario): virtual users, one per connection (user i owns
// connection i and opens it when it starts; a user's connections to other
// origins are made at its first request to each). The users (scenario/users.h)
// decide what each sends and when its next step is due; this driver runs them
// in the worker's loop (their due steps, a response's resumed user, the open
// model's tasks, the end of a -n run whose users make no request) and tells them
// how each request ended. Its parts, each with one job:
//   UserPort        (user_port.h): what the users ask (scenario::Port), the send path;
//   UserConnections (user_connections.h, the worker's): which connection is whose,
//                   opening them, closing a stopped user's after the driver's call;
//   UserOutcomes    (user_outcomes.h): each user's last outcome, for u:success()/u:fail();
//   UserLoad        (user_load.h): how many users run (the load shape, the web view, --stop-timeout).
// Closed model: -u users with think time (-n is the Quota's); open model: tasks
// arrive on the schedule (drive/arrivals.h) and wait for a free user, their
// clock running, up to --max-users. One worker thread.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/drive/arrivals.h"
#include "engine/drive/driver.h"
#include "engine/drive/request_drought.h"
#include "engine/drive/request_source.h"
#include "engine/drive/user_connections.h"
#include "engine/drive/user_load.h"
#include "engine/drive/user_outcomes.h"
#include "engine/drive/user_port.h"
#include "engine/exchange/exchange.h"
#include "scenario/users.h"

namespace pacer::engine {

class ScenarioDriver final : public LoadDriver {
 public:
  // connections: this worker's users (closed: its share of -u; open: of
  // --max-users), whose connections `user_connections` keeps.
  ScenarioDriver(const SharedRun& shared, int worker_index, int connections, std::optional<std::uint64_t> quota,
                 LoopClock& clock, Recorder& recorder, Exchange& exchange, UserConnections& user_connections);

  // Before the run: the users' Lua state and tables, their connections' capture;
  // beat: where their Lua calls are marked for the controller's watchdog.
  Status prepare(watchdog::LuaBeat* beat);

  void start(ConnectionPool& pool) override;
  bool wants_connection(Connection& c) override;
  void fill(Connection& c) override;
  void naming(Connection& c, RequestSlot& slot) override;
  void completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) override;
  void failed(Connection& c, const RequestSlot& slot, ErrorField error, bool recorded) override;
  // A user waits for its request's end: none is sent again behind its back.
  bool put_back(RequestSlot&, bool) override { return false; }
  // A user's redirect (HTTP/1.1): its Set-Cookie into the jar, the follow-up's Cookie from it.
  void redirected(Connection& c, const RequestSlot& slot) override;
  // c is closing: a user's connection to another origin that failed to set up
  // fails the request waiting for it (a user never waits on an origin that refuses).
  void forget(Connection& c) override;
  void on_turn(TurnPhase phase) override;
  TimeNs next_due_ns() const override;
  LoadProgress progress() const override;
  void gauges(IntervalGauges& out) const override;
  scenario::ScenarioStats* stop() override;
  void reset_stats() override;

 private:
  const SharedRun& shared_;
  LoopClock& clock_;
  Recorder& recorder_;
  Exchange& exchange_;
  UserConnections& connections_;
  std::optional<Arrivals> arrivals_;  // open model
  Quota quota_;                       // closed model
  std::unique_ptr<scenario::Users> users_;
  RequestSource source_;
  std::string name_scratch_;          // naming()'s: a name read from a response
  RequestDrought drought_;            // -n without -d: users that make no request end (request_drought.h)
  UserOutcomes outcomes_;
  UserLoad load_;
  UserPort port_;
};

}  // namespace pacer::engine
