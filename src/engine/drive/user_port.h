// What a scenario's users ask of the worker (scenario::Port, issue 45): start
// (their connection opens), send their request when its connection can take it,
// the clock, u:success() and u:fail() on their last request, and stop (their
// connections close once the driver's call returned: drive/user_connections.h).
// It owns the send path of a user's request: the connection for its origin, the
// -n reservation (held on the user's own connection, whichever origin it asks),
// and a request that ends before it is sent (its origin cannot be reached or
// refused the connection), counted a failure under its name and against -n.
// The driver (drive/scenario_driver.h) owns the parts it works with. One worker thread.
#pragma once

#include <optional>
#include <string_view>

#include "engine/drive/arrivals.h"
#include "engine/drive/driver.h"
#include "engine/drive/request_drought.h"
#include "engine/drive/request_source.h"
#include "engine/drive/user_connections.h"
#include "engine/drive/user_load.h"
#include "engine/drive/user_outcomes.h"
#include "engine/exchange/exchange.h"
#include "scenario/users.h"

namespace pacer::engine {

class UserPort final : public scenario::Port {
 public:
  // The driver's parts, each outliving this port. arrivals: the open model's (else null), quota: the closed model's.
  struct Parts {
    const SharedRun& shared;
    LoopClock& clock;
    Recorder& recorder;
    Exchange& exchange;
    UserConnections& connections;
    std::optional<Arrivals>& arrivals;
    Quota& quota;
    RequestDrought& drought;
    RequestSource& source;
    UserOutcomes& outcomes;
    const UserLoad& load;
  };
  UserPort(const Parts& parts, scenario::Users& users);

  void connect(int user) override { p_.connections.connect(user); }
  void send(int user) override;
  TimeNs now() const override { return p_.clock.now; }
  bool recorded(TimeNs t_sched) const override { return p_.recorder.recorded(t_sched); }
  void give_up_task(TimeNs t_sched) override;
  bool mark_success(int user) override { return p_.outcomes.mark_success(user); }
  void checked(int user, std::string_view message) override { p_.outcomes.checked(user, message); }
  void release(int user) override;

  // c's user has a request to send on c: sent when c can take it (and, after the
  // run's end, its user is still finishing its task).
  void send_request(Connection& c);
  // The user's request ended before it was sent (`counted`: the run has counted its class already).
  void fail_unsent(int user, ErrorField error, bool counted);

 private:
  // The connection the user's request goes on (its origin's; made on demand), or
  // null when its origin cannot be reached (the request has failed then).
  Connection* connection_for(int user);

  const Parts p_;
  scenario::Users& users_;
};

}  // namespace pacer::engine
