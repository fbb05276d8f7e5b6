// The one place that writes requests: after a driver returned, every
// connection the exchange gave a request since the last write is flushed
// (exchange/exchange.h: take_sent), so no driver writes and no write runs inside
// a driver's call. Owns the list it takes the connections into (sized once, for
// every slot) and the guard against a write's failure re-entering it. One worker
// thread.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/conn/pool.h"
#include "engine/conn/transport.h"
#include "engine/exchange/exchange.h"

namespace pacer::engine {

class SentWriter {
 public:
  SentWriter(Exchange& exchange, ConnectionPool& pool, Transport& transport)
      : exchange_(exchange), pool_(pool), transport_(transport) {}

  // The list's capacity: every slot of the worker's connections.
  void prepare(std::size_t slots) { sent_.reserve(slots); }
  // Writes every connection given a request since the last call but `written`
  // (just written by its caller). Inside a write (a failure reopened a
  // connection, which sent again) it returns: the outer call takes what was sent.
  void write_sent(const Connection* written = nullptr) {
    if (!writing_ && exchange_.has_sent()) write(written);
  }

 private:
  void write(const Connection* written);

  Exchange& exchange_;
  ConnectionPool& pool_;
  Transport& transport_;
  std::vector<Connection*> sent_;  // the exchange's list, taken (capacity: every slot)
  bool writing_ = false;           // inside write: a write's failure may reopen and send again
};

}  // namespace pacer::engine
