// One client connection slot of a worker. Plain data plus its response parser;
// owned by one Worker and touched only by that worker's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/clock.h"
#include "engine/connection_list.h"
#include "proto/http1_parser.h"

namespace pacer::engine {

class Worker;

struct Connection {
  enum class State : std::uint8_t {
    kClosed,      // no socket (between close and reconnect)
    kBackoff,     // waiting to reconnect after a connect failure
    kConnecting,  // non-blocking connect in progress
    kIdle,        // connected, nothing in flight
    kWriting,     // request partly written, waiting for EPOLLOUT
    kAwaiting,    // request written, response not complete
  };

  Connection(Worker* owner, proto::ResponseParser::OnComplete on_complete)
      : worker(owner), parser(on_complete, this) {}

  Worker* worker;
  proto::ResponseParser parser;
  int fd = -1;
  State state = State::kClosed;
  bool response_done = false;       // set by the parser callback during feed()
  bool reuse_allowed = true;        // the last response allows keep-alive
  bool has_slot_time = false;       // slot_free_ns is meaningful
  bool holds_claim = false;         // reserved one of the worker's -n requests
  int connect_failures = 0;         // consecutive; drives the backoff
  // Scripts (-s): the slot's index in its worker, the bytes being written, and
  // the responses still due for them (several when request() pipelines).
  int slot = -1;
  int pending = 0;
  std::string_view request;
  std::size_t bytes_written = 0;    // of the current request
  TimeNs slot_free_ns = 0;          // when the slot became free: t_sched of the next request
  TimeNs t_sched = 0;               // of the request in flight
  TimeNs t_send = 0;
  TimeNs connect_start_ns = 0;
  TimeNs reconnect_at_ns = 0;       // kBackoff: when to try again
  ListHook in_flight;                // on the worker's in-flight list (send order)
  ListHook idle;                     // open model: on the worker's idle list
};

using InFlightList = ConnectionList<&Connection::in_flight>;
using IdleList = ConnectionList<&Connection::idle>;

}  // namespace pacer::engine
