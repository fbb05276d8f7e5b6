// A worker's routing of its parts' connection events (conn/links.h): each thing
// the transport reports (LinkEvents) or the pool asks and reports (PoolEvents)
// goes to the part that owns it, and a connection that can take requests is
// filled by the load driver and written (ready). Owns nothing but the way there:
// references to the parts, which the worker owns, and the driver once it is
// made. One worker thread.
#pragma once

#include "engine/conn/links.h"
#include "engine/conn/pool.h"
#include "engine/conn/read_budget.h"
#include "engine/conn/transport.h"
#include "engine/drive/driver.h"
#include "engine/exchange/exchange.h"
#include "engine/sent_writer.h"

namespace pacer::engine {

class Router final : public LinkEvents, public PoolEvents {
 public:
  Router(ConnectionPool& pool, Transport& transport, Exchange& exchange, ReadBudget& budget, SentWriter& writer)
      : pool_(pool), transport_(transport), exchange_(exchange), budget_(budget), writer_(writer) {}
  // Before any event: the worker's load driver.
  void set_driver(LoadDriver& driver) { driver_ = &driver; }

  // LinkEvents.
  void established(Connection& c) override { pool_.established(c); }
  void retry_later(Connection& c) override { pool_.retry_later(c); }
  // The exchange counts what c's failure or close ends; c reopens after it returned.
  void broke(Connection& c, ErrorField error) override {
    exchange_.fail_connection(c, error);
    pool_.reopen(c);
  }
  void reopen(Connection& c) override { pool_.reopen(c); }
  void peer_closed(Connection& c) override {
    exchange_.peer_closed(c);
    pool_.reopen(c);
  }
  // Fills c's free slots (the driver), writes, or reconnects c once it can take
  // no more requests and has none in flight. Inline: the worker's per-request call.
  void ready(Connection& c) override {
    if (c.state != Connection::State::kOpen || pool_.held(c)) return;
    driver_->fill(c);
    writer_.close_released();  // a user it stopped: not inside fill
    // c first: what the read left to send too (HTTP/2's acknowledgements).
    const bool written = transport_.flush(c);
    writer_.write_sent(&c);  // another connection a resumed user sent on
    if (!written) return;  // it failed and is reconnecting
    if (c.state == Connection::State::kOpen && exchange_.takes_no_more(c) && c.in_flight_count() == 0) {
      pool_.reopen(c);  // `Connection: close`, a GOAWAY, or --disable-keepalive
    }
  }

  // PoolEvents.
  bool wants_connection(Connection& c) override { return driver_->wants_connection(c); }
  void opened(Connection& c) override;
  void closing(Connection& c) override;

 private:
  ConnectionPool& pool_;
  Transport& transport_;
  Exchange& exchange_;
  ReadBudget& budget_;
  SentWriter& writer_;
  LoadDriver* driver_ = nullptr;
};

}  // namespace pacer::engine
