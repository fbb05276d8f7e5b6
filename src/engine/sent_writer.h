// What follows a driver's call: a scenario's stopped users' connections close
// (drive/user_connections.h: deferred, never inside the driver), then the one
// place that writes requests: every connection the exchange gave a request since
// the last write is flushed (exchange/exchange.h: take_sent), so no driver writes
// and no write runs inside a driver's call. Owns the list it takes the
// connections into (sized once, for every slot) and the guard against a write's
// failure re-entering it. One worker thread.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/conn/pool.h"
#include "engine/conn/transport.h"
#include "engine/drive/user_connections.h"
#include "engine/exchange/exchange.h"

namespace pacer::engine {

class SentWriter {
 public:
  SentWriter(Exchange& exchange, ConnectionPool& pool, Transport& transport)
      : exchange_(exchange), pool_(pool), transport_(transport) {}

  // The list's capacity: every slot of the worker's connections; users: a
  // scenario's users' connections (null otherwise).
  void prepare(std::size_t slots, UserConnections* users) {
    sent_.reserve(slots);
    users_ = users;
  }
  // A scenario's stopped users' connections close, after the driver's call returned.
  void close_released() {
    if (users_ != nullptr) users_->close_released();
  }
  // Closes what was released, then writes every connection given a request
  // since the last call but `written` (just written by its caller). Inside a
  // write (a failure reopened a connection, which sent again) it writes nothing:
  // the outer call takes what was sent.
  void write_sent(const Connection* written = nullptr) {
    close_released();
    if (!writing_ && exchange_.has_sent()) write(written);
  }

 private:
  void write(const Connection* written);

  Exchange& exchange_;
  ConnectionPool& pool_;
  Transport& transport_;
  std::vector<Connection*> sent_;  // the exchange's list, taken (capacity: every slot)
  bool writing_ = false;           // inside write: a write's failure may reopen and send again
  UserConnections* users_ = nullptr;  // a scenario's (the worker's): null otherwise
};

}  // namespace pacer::engine
