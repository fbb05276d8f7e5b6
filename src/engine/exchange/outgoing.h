// What the exchange puts on the wire for one send, and what it tells the load
// driver of each request's end (once per request): the seam between the
// exchange and the drivers above it. One worker thread.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "engine/conn/connection.h"
#include "engine/record/recorder.h"

namespace pacer::engine {

// The requests in one write: how many, and which are HEAD (bit i: the i-th).
struct RequestBatch {
  int count = 1;
  std::uint64_t head_bits = 0;
};

// A request on its way to the session: its bytes (empty: the session sends the
// slot's target, prebuilt) and, for bytes, how many requests they hold.
struct OutgoingRequest {
  std::string_view bytes;
  RequestBatch batch;
};

// How each request ended, told to the load driver that sent it.
class RequestEnds {
 public:
  // A response is complete, before anything counts it: the driver may name the
  // request from it (a scenario's pacer.name_from; slot.name).
  virtual void naming(Connection& /*c*/, RequestSlot& /*slot*/) {}
  // A response (done_ns: its end), or no response (error: its class).
  virtual void completed(Connection& c, const RequestSlot& slot, int status, TimeNs done_ns, bool recorded) = 0;
  virtual void failed(Connection& c, const RequestSlot& slot, ErrorField error, bool recorded) = 0;
  // A request the server refused unprocessed (a graceful GOAWAY): send it again,
  // with the same t_sched. False: the driver cannot, and it counts as failed.
  virtual bool put_back(RequestSlot& slot, bool recorded) = 0;
  // The request got a redirect that is followed on c (before its follow-up is
  // written): a scenario user stores the redirect's cookies.
  virtual void redirected(Connection& /*c*/, const RequestSlot& /*slot*/) {}

 protected:
  ~RequestEnds() = default;
};

}  // namespace pacer::engine
