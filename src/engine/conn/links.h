// The seams between a worker's parts, per connection event (never per request
// on the common path). Each part is given the interface it reports to; the
// worker's Router (engine/router.h) implements them and routes each event to the
// part that owns it, so no part holds another's state.
//
//   LinkEvents: what the transport reports about a connection.
//   PoolEvents: what the connection pool asks and reports.
//
// One worker thread.
#pragma once

#include "engine/conn/connection.h"
#include "engine/record/recorder.h"

namespace pacer::engine {

class LinkEvents {
 public:
  // TCP is up (and the TLS or QUIC handshake done): the session starts.
  virtual void established(Connection& c) = 0;
  // Setting c up failed (already counted and noted): reconnect after a backoff.
  virtual void retry_later(Connection& c) = 0;
  // c failed: every request in flight on it fails with `error` (the exchange's
  // count); then it reopens.
  virtual void broke(Connection& c, ErrorField error) = 0;
  // Close c and connect again; its requests are already counted (or there were none).
  virtual void reopen(Connection& c) = 0;
  // The peer closed c (EOF read): what that ends (a close-delimited body) and
  // what its requests in flight become (failed, or sent again) is the exchange's; c reopens.
  virtual void peer_closed(Connection& c) = 0;
  // c can take requests again (a QUIC timer ran): fill and flush it.
  virtual void ready(Connection& c) = 0;

 protected:
  ~LinkEvents() = default;
};

class PoolEvents {
 public:
  // The load driver: will c send anything if it connects (-n left, not draining)?
  // True may reserve one of the worker's -n requests for c.
  virtual bool wants_connection(Connection& c) = 0;
  // c is open: its slots start and it sends what is due.
  virtual void opened(Connection& c) = 0;
  // c is closing: its requests in flight are abandoned uncounted (the failure
  // paths counted theirs already) and it leaves every list it is on.
  virtual void closing(Connection& c) = 0;

 protected:
  ~PoolEvents() = default;
};

}  // namespace pacer::engine
