// The request exchange: a worker's requests on the wire. It puts a request on a
// connection's free slot (the slot's times, the in-flight list, the session's
// submit), takes the session's events for it (the first byte, a redirect, the
// decoded size, the response, a failure), ends requests that pass --timeout
// (the in-flight list is in send order, so its head is always the next to
// expire), and puts a request a GOAWAY refused unprocessed back to its driver.
// It never closes, reopens or fills a connection itself: when a failure, a
// peer's close or a timeout leaves a connection to reopen (or, a stream
// cancelled, free to send), it says so to its caller, the worker, which acts
// after the exchange has returned (no call comes back into it mid-pass).
//
// Each request slot (conn/connection.h) has its own times: t_sched (when it was
// due), t_send (its first byte was written: the clock is read just before), and
// t_first (the first response byte's receive stamp). What each ending means for
// the figures is the recorder's; what it means for the load (the next request,
// a user resuming) is the driver's, told once per request through LoadDriver;
// what is kept of it besides the figures (a log row, a trace) is the wire tap's.
// No allocation, no lock. One worker thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/conn/connection.h"
#include "engine/exchange/outgoing.h"
#include "engine/record/wire_tap.h"
#include "engine/loop/clock.h"
#include "engine/record/recorder.h"
#include "engine/run_plan.h"
#include "proto/session.h"

namespace pacer::engine {

class Exchange {
 public:
  // worker: this worker's index (the per-request log's rows name it).
  Exchange(const SharedRun& shared, LoopClock& clock, Recorder& recorder, int worker = 0);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // Before the run: the driver told of each request's end; slots: every slot
  // of the worker's connections (the most requests sent between two writes).
  void prepare(RequestEnds& driver, std::size_t slots);

  // `Connection: close`, a GOAWAY, or --disable-keepalive after its one request.
  bool takes_no_more(const Connection& c) const {
    return c.session->capacity() == 0 || (!keep_alive_ && c.exchanged.sent > 0);
  }
  // Requests c can take now: its free slots, or 0 if it must not take more.
  std::uint32_t free_capacity(const Connection& c) const {
    if (c.state != Connection::State::kOpen || takes_no_more(c)) return 0;
    const std::uint32_t capacity = std::min(c.session->capacity(), static_cast<std::uint32_t>(c.slots.size()));
    const std::uint32_t busy = c.in_flight_count();
    return capacity > busy ? capacity - busy : 0;
  }
  // The free slot c's next request goes on (free_capacity(c) > 0). Reads the
  // clock for its send time; t_sched becomes the request's, never after its send
  // (kAtSend: its clock starts now). The slot's target and name are the caller's
  // to set (drive/request_source.h: send_from), then send().
  RequestSlot& slot_for_send(Connection& c, TimeNs& t_sched) {
    t_sched = std::min(t_sched, clock_.refresh());
    return c.slots[c.free_tokens.back()];
  }
  // The t_sched of c's next request in the closed loop (free_capacity(c) > 0):
  // when its free slot freed up (RequestSlot::free_ns).
  TimeNs next_free_ns(const Connection& c) const { return c.slots[c.free_tokens.back()].free_ns; }
  // Puts `out` in c's session in `slot` (from slot_for_send), due at t_sched;
  // the worker writes it (take_sent).
  void send(Connection& c, RequestSlot& slot, TimeNs t_sched, const OutgoingRequest& out);
  // The connections given a request since the last call (each once in a row),
  // moved into `out` (cleared first) for the worker to write. False: more were
  // given than the list holds (not expected: it holds every slot): write every
  // open connection.
  bool take_sent(std::vector<Connection*>& out);
  bool has_sent() const { return !sent_.empty() || sent_overflow_; }

  // c opened: a fresh session; a slot's first connection is set-up, not load.
  void opened(Connection& c);
  // c is closing: its requests still in flight are abandoned uncounted.
  void abandon(Connection& c);
  // Every request in flight on c fails with `error` (counted if recorded); the
  // caller reopens c.
  void fail_connection(Connection& c, ErrorField error);
  // The peer closed c (EOF read): the session finishes (a close-delimited body
  // ends); the caller reopens c. A close after a response that kept c open counts as
  // keepalive_closed. A request it caught is sent again (with its t_sched, by its
  // driver: on c's new connection in the closed loop) when c was reused, no byte
  // of its response came and it is resendable (an idempotent request without a
  // body, targets/request_set.h); the others fail as `read`.
  void peer_closed(Connection& c);
  // The oldest request past --timeout, cancelled and counted (its latency
  // censored), with HTTP/1.1's requests pipelined behind it: its connection and
  // what the caller does with it now. Nullopt: none is due. The caller acts
  // before asking again.
  struct Expired {
    Connection* connection = nullptr;
    bool reopen = false;  // HTTP/1.1: only closing cancels; else the stream was reset and c can send again
  };
  std::optional<Expired> expire_next();
  TimeNs next_due_ns() const;
  bool idle() const { return in_flight_.empty(); }
  std::size_t in_flight() const { return in_flight_.size(); }
  // Requests that left the wire so far (answered, failed, timed out, abandoned,
  // put back): a running count, for the loop's coalescing (loop/waiter.h).
  std::uint64_t ended() const { return ended_; }
  // The in-flight gauges: how many, the oldest's age, how many older than interval_ns.
  void gauges(TimeNs interval_ns, IntervalGauges& out) const;

  // The session's events on a request (proto::SessionEvents, through Connection).
  void response(Connection& c, std::uint32_t token, int status);
  void batch_response(Connection& c, std::uint32_t token, int status);
  void first_byte(Connection& c, std::uint32_t token);
  void redirect(Connection& c, std::uint32_t token);
  void decoded(Connection& c, std::uint32_t token, std::uint64_t bytes);
  void request_failed(Connection& c, std::uint32_t token, proto::RequestFailure why);
  void header(Connection& c, std::uint32_t token, std::string_view name, std::string_view value) {
    tap_.header(c, token, name, value);  // --trace
  }

  // What is kept of the wire besides the figures (--log-requests, --trace): the
  // transport hands it each connection's bytes.
  WireTap& tap() { return tap_; }

 private:
  RequestSlot& release(Connection& c, std::uint32_t token);
  void count_response(Connection& c, RequestSlot& slot, int status);
  void count_error(Connection& c, const RequestSlot& slot, ErrorField error);
  void count_timeout(Connection& c, const RequestSlot& slot);

  LoopClock& clock_;
  Recorder& recorder_;
  RequestEnds* driver_ = nullptr;
  const bool keep_alive_;
  const bool open_model_;        // queue delay and service time are recorded
  const bool record_timeouts_;
  const targets::RequestSet* requests_;  // which requests may be sent again; null: none (a script's, a user's)
  const TimeNs timeout_ns_;
  InFlightList in_flight_;       // request slots, oldest send first: its head is the next timeout
  std::uint64_t ended_ = 0;      // slots released so far
  std::vector<Connection*> sent_;  // given a request since the worker last wrote (capacity: every slot)
  bool sent_overflow_ = false;     // more than sent_ holds
  WireTap tap_;
};

}  // namespace pacer::engine
