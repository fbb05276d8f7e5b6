// What a request sends: the content half of a load driver, independent of when
// it is sent. Chosen once per run: a target (--targets-order picks one, the
// command line's request being the one target without a file), a static
// script's request (built once by wrk.format), a script's request() (bytes
// given per request, possibly several pipelined), or a scenario user's request.
// next() runs once per request on the send path: no lock, no allocation beyond
// what a script's Lua does. One worker thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "engine/conn/connection.h"
#include "engine/drive/worker_script.h"
#include "engine/exchange/exchange.h"
#include "engine/run_plan.h"
#include "targets/order.h"

namespace pacer::scenario {
class Users;
}

namespace pacer::engine {

class OriginLinks;

class RequestSource {
 public:
  enum class Kind : std::uint8_t { kTargets, kStaticScript, kScriptRequest, kUser };

  // worker_index: its draw stream among all shards' workers. script and users: the
  // worker's (null without); they decide the kind.
  // links: which user a connection is (a scenario's users' connections to other origins); null: user i is connection i.
  RequestSource(const SharedRun& shared, int worker_index, WorkerScript* script, scenario::Users* users,
                const OriginLinks* links = nullptr);

  Kind kind() const { return kind_; }
  // Sets slot's target and name, and out. False: the script failed, the run is
  // stopping, and nothing is sent.
  [[nodiscard]] bool next(Connection& c, RequestSlot& slot, OutgoingRequest& out);
  // After each response on c (a script's response()).
  void responded(Connection& c, int status) {
    if (script_ != nullptr) script_->on_response(c, status);
  }

 private:
  Kind kind_;
  const targets::RequestSet& requests_;
  targets::TargetPicker picker_;
  WorkerScript* script_;
  scenario::Users* users_;
  const OriginLinks* links_;
};

// One request from `source` on a free slot of c (exchange.free_capacity(c) > 0),
// due at t_sched: the exchange reads the clock for its send (so what a script's
// request() takes is in its latency, as wrk's is), the source fills it in, the
// exchange puts it on the wire. t_sched becomes the request's (never after its
// send). False: the source had nothing (a script failed, the run stops).
[[nodiscard]] inline bool send_from(RequestSource& source, Exchange& exchange, Connection& c, TimeNs& t_sched) {
  RequestSlot& slot = exchange.slot_for_send(c, t_sched);
  OutgoingRequest out;
  if (!source.next(c, slot, out)) return false;
  exchange.send(c, slot, t_sched, out);
  return true;
}

}  // namespace pacer::engine
