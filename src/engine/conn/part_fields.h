// The fields a connection carries for parts outside conn/, each part's in a
// struct of its own (one load away on the hot path, where a table of the
// part's, indexed by connection, would be one more). Only the part that owns a
// struct writes it; anyone may read it (tests/house/test_engine_seams.py checks
// the writes):
//   ExchangeCounts: the exchange's (exchange/), per request sent and answered;
//   QuotaClaim:     the closed loop's -n reservation (drive/driver.h: Quota);
//   UnreadMark:     the read budget's unread list (conn/read_budget.h).
// The open model's list of connections with a free slot is the OpenDriver's own
// (drive/idle_connections.h), and holds nothing here. One worker thread.
#pragma once

#include <cstdint>

#include "engine/conn/connection_list.h"

namespace pacer::engine {

struct Connection;

// Exchange's: requests since the connect (--disable-keepalive: 1 at most), and
// responses since the connect.
struct ExchangeCounts {
  std::uint32_t sent = 0;
  std::uint32_t answered = 0;
};

// Quota's: c reserved one of the worker's -n requests.
struct QuotaClaim {
  bool held = false;
};

// ReadBudget's: c waits on the worker's unread list (the hook) with the engine's
// events it has not acted on yet, since the wake-up at_wake.
struct UnreadMark : ListHook<Connection> {
  std::uint64_t at_wake = 0;
  std::uint32_t events = 0;
};

}  // namespace pacer::engine
