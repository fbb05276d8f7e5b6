// Scenarios (--scenario): virtual users, one per connection (user i owns
// connection i and opens it when it starts; a user's connections to other
// origins are drive/origin_links.h's, made at its first request to each). The users (scenario/users.h) decide
// what each sends and when its next step is due; this driver is their Port to
// the worker (open a connection, send when it can take the request) and tells
// them how each request ended. Closed model: -u users with think time (-n is
// the Quota's); open model: tasks arrive on the schedule (drive/arrivals.h) and
// wait for a free user, their clock running, up to --max-users. One worker thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/conn/pool.h"
#include "engine/drive/arrivals.h"
#include "engine/drive/driver.h"
#include "engine/drive/origin_links.h"
#include "engine/drive/request_drought.h"
#include "engine/drive/request_source.h"
#include "engine/exchange/exchange.h"
#include "scenario/users.h"

namespace pacer::engine {

class ScenarioDriver final : public LoadDriver, scenario::Port {
 public:
  // connections: this worker's users (closed: its share of -u; open: of --max-users).
  ScenarioDriver(const SharedRun& shared, int worker_index, int connections, std::optional<std::uint64_t> quota,
                 LoopClock& clock, Recorder& recorder, Exchange& exchange);

  // Before the run: the users' Lua state and tables, their connections' capture;
  // beat: where their Lua calls are marked for the controller's watchdog.
  Status prepare(ConnectionPool& pool, watchdog::LuaBeat* beat);

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

  // scenario::Port: what the users ask of the worker.
  void connect(int user) override;
  void send(int user) override;
  TimeNs now() const override { return clock_.now; }
  bool recorded(TimeNs t_sched) const override { return recorder_.recorded(t_sched); }
  void give_up_task(TimeNs t_sched) override;
  bool mark_success(int user) override;
  void checked(int user, std::string_view message) override {
    if (const int row = log_index(user); row != kNoRow) exchange_.tap().checked(row, message);
  }
  void release(int user) override;

 private:
  // A user's last response, for u:success() (kept per connection: user i's is i's).
  struct LastResponse {
    stats::NameId name = 0;
    TimeNs t_sched = 0;
    int status = 0;
    int connection = -1;  // the connection it ended on (its request-log row's); -1: the user's own; kNoRow: none
  };

  void send_request(Connection& c);  // c's user has a request to send
  // The connection the user's request goes on (its origin's; made on demand), or
  // null when its origin cannot be reached (the request has failed then).
  Connection* connection_for(int user);
  // The user's request ended before it was sent (its origin cannot be reached or
  // refused the connection): counted a failure under its name (`counted`: the
  // run has counted it already) and against -n.
  void fail_unsent(int user, ErrorField error, bool counted);
  // The request-log row of the user's last request: its connection's held row;
  // kNoRow when it ended before it was sent (no row: --log-requests logs what was sent).
  static constexpr int kNoRow = -2;
  int log_index(int user) const;
  // This worker's share of each user type of a run's target: `users` by the
  // types' rules, or per_type when given (scenario/type_mix.h).
  scenario::TypeCounts users_share(int users, const scenario::TypeCounts& per_type) const;
  void follow_control();             // a new user count from the load shape or the web view
  // The run's end with --stop-timeout (closed model): every user ends its current
  // task first, for at most that long, and starts none; `finishing_` from then.
  void finish_tasks();
  // A user still ending its task after the run's end may send and reconnect.
  bool still_finishing(const Connection& c) const;

  const SharedRun& shared_;
  const int worker_index_;
  LoopClock& clock_;
  Recorder& recorder_;
  Exchange& exchange_;
  ConnectionPool* pool_ = nullptr;
  std::optional<Arrivals> arrivals_;  // open model
  Quota quota_;                       // closed model
  std::unique_ptr<scenario::Users> users_;
  OriginLinks links_;  // the users' connections to other origins
  RequestSource source_;
  std::vector<LastResponse> last_;  // by connection index
  std::string name_scratch_;        // naming()'s: a name read from a response
  std::uint64_t control_seen_ = 0;  // the LoadControl generation taken
  bool finishing_ = false;          // the run ended: users end their tasks (--stop-timeout)
  bool closing_users_ = false;      // release() or the end closes connections: no failure to count
  RequestDrought drought_;          // -n without -d: users that make no request end (request_drought.h)
};

}  // namespace pacer::engine
