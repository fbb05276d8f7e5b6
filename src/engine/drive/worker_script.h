// The worker's side of a Lua script (-s): the narrow interface the event loop
// calls, over one ThreadScript. Owned by one Worker; its thread only.
//
// What it costs: a static script (no request(), response() or delay()) is
// only its prebuilt request, counted once; the loop then never enters Lua.
// request() is called only when defined, its bytes copied into the
// connection's own buffer (capacity reused); response headers and body are
// captured by the parser only when response() is defined, up to the capture
// caps (a response past one is a parse error naming it). A request() result
// holding several requests is sent in one write and each response counted
// (pipelining, up to ResponseParser::kMaxOutstanding).
//
// A Lua error stops the whole run through ScriptHost::fail (exit 1 with the
// Lua message).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/expected.h"
#include "engine/conn/connection.h"
#include "engine/exchange/outgoing.h"
#include "script/script_host.h"
#include "stats/name_table.h"

namespace pacer::engine {

// The name of a request from its bytes ("METHOD path" of the first request
// line, the query left out; "(unnamed)" if there is no request line), written
// into out (its capacity reused).
void name_from_request_bytes(std::string_view bytes, std::string& out);

// Counts the complete HTTP/1.1 requests in bytes. Errors (kRuntime) say why the
// bytes are not a sequence of complete requests.
Result<RequestBatch> count_requests(std::string_view bytes);

class WorkerScript {
 public:
  // config: the capture caps (--max-capture-*). names: the run's name table
  // (request names come from request()'s second value, else from the bytes).
  WorkerScript(script::ScriptHost& host, script::ThreadScript& script, const Config& config, stats::NameTable& names);

  // Before the run: the static request's batch (an error names the script).
  Status prepare_request();
  // Before the run, once the connections and their sessions exist.
  void prepare_connections(std::span<const std::unique_ptr<Connection>> connections);

  // Whether each request's bytes come from next_request() (request() is
  // defined, or the static request pipelines several); otherwise the session
  // sends static_request() itself, at no cost per request.
  bool custom_bytes() const { return script_.has_request() || static_batch_.count != 1; }
  std::string_view static_request() const { return script_.static_request(); }
  // The static request's name (set by prepare_request).
  stats::NameId static_name() const { return static_name_; }
  bool static_is_head() const { return (static_batch_.head_bits & 1) != 0; }

  // The bytes c sends next, what they hold and their name. False: the script
  // failed and the run is stopping (nothing to send). A name not seen before is
  // added to the run's table (once per name; past --max-names it is "(other)").
  bool next_request(Connection& c, std::string_view& bytes, RequestBatch& batch, stats::NameId& name);
  // After each response of c: response(status, headers, body, conn) if defined.
  void on_response(Connection& c, int status) {
    if (script_.has_response()) call_response(c, status);
  }

  // Closed loop with delay(): c sends its next request after delay() ms.
  bool has_delay() const { return script_.has_delay(); }
  void defer(Connection& c, TimeNs now_ns);
  bool is_deferred(const Connection& c) const { return slots_[static_cast<std::size_t>(c.index)].due_ns != 0; }
  // The next deferred connection whose time has come (and that is still idle),
  // or nullptr.
  Connection* pop_due(TimeNs now_ns);
  TimeNs next_due_ns() const;  // INT64_MAX when none

  // thread:stop() was called, or any thread's script failed.
  bool stop_requested() const { return script_.stop_requested() || host_.failed(); }
  const net::Address& address() const { return script_.address(); }

 private:
  struct Slot {
    int connection_ref = 0;          // the per-connection Lua table
    std::string request;             // request()'s bytes
    proto::ResponseCapture capture;  // response()'s headers and body
    TimeNs due_ns = 0;               // deferred until; 0: not deferred
  };
  struct Due {
    TimeNs at_ns;
    Connection* connection;
  };
  static bool due_later(const Due& a, const Due& b) { return a.at_ns > b.at_ns; }
  void call_response(Connection& c, int status);
  void fail(const char* hook, const std::string& message);
  Slot& slot_of(const Connection& c) { return slots_[static_cast<std::size_t>(c.index)]; }

  script::ScriptHost& host_;
  script::ThreadScript& script_;
  proto::CaptureCap max_headers_;
  proto::CaptureCap max_header_bytes_;
  proto::CaptureCap max_body_bytes_;
  RequestBatch static_batch_;
  stats::NameTable& names_;
  stats::NameId static_name_ = 0;
  std::string name_;  // request()'s name, or the one made from its bytes (capacity reused)
  std::vector<Slot> slots_;
  std::vector<Due> due_;  // min-heap on at_ns; capacity reserved (one per connection)
};

}  // namespace pacer::engine
