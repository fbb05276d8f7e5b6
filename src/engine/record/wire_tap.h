// The wire tap: what a worker keeps of its requests besides the figures.
// --log-requests writes a row per request (its times, its outcome, the bytes its
// connection moved for it); --trace N prints the first N exchanges as curl -v
// would. The exchange tells it of each request's send and end, the transport of
// each connection's bytes (after TLS). Without either option each call is one
// branch on a null pointer. One worker thread; no allocation per request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/conn/connection.h"
#include "engine/record/recorder.h"
#include "engine/record/request_log.h"
#include "engine/run_plan.h"
#include "trace/wire_trace.h"

namespace pacer::engine {

class WireTap {
 public:
  // worker: this worker's index (the log's rows name it); recorder: whether a
  // request's row is recorded (the warm-up's are not).
  WireTap(const SharedRun& shared, const Recorder& recorder, int worker);

  // c opened after its connect and handshake: its first row carries the time.
  void opened(const Connection& c) {
    if (log_) log_->opened(c.index, c.established_ns - c.connect_start_ns);  // not the start's hold
  }
  // slot's request went out on c (its exchanged.sent already counted).
  void sent(Connection& c, const RequestSlot& slot) {
    if (trace_ && trace_->sent(c.index, slot.token, slot.target, c.exchanged.sent == 1)) {
      c.session->report_headers(true);  // the traced response's header fields, HTTP/2 and HTTP/3
    }
  }
  // A response header field of token on c (HTTP/2, HTTP/3: --trace).
  void header(const Connection& c, std::uint32_t token, std::string_view name, std::string_view value) {
    if (trace_) trace_->header(c.index, token, name, value);
  }
  // slot's request ended at done with a response: the trace's end, before the
  // driver may send on the slot again.
  void answered(Connection& c, const RequestSlot& slot, TimeNs done, int status, std::uint64_t body_bytes) {
    if (trace_ && trace_->ended(c.index, slot.token, status, "", done - slot.t_sched, body_bytes)) {
      c.session->report_headers(false);
    }
  }
  // The log's row of that response, once the figures have it.
  void logged(const Connection& c, const RequestSlot& slot, TimeNs done, int status) {
    if (log_) log_row(c, slot, done, status, status >= 400 ? "status" : "");
  }
  // A scenario's users decide their requests' outcomes after the response (a
  // check, an accepted status): their rows are held per connection (= user)
  // until the outcome is final (RequestLog::hold). Before the run.
  void hold_outcomes() { hold_ = true; }
  // The user on connection `index` failed a check on its last request, or accepted its status.
  void checked(int index, std::string_view message) {
    if (log_) log_->check(index, message);
  }
  void accepted(int index) {
    if (log_) log_->accept(index);
  }
  // The user on connection `index` is stopped: its last row is final.
  void settle(int index) {
    if (log_) log_->settle(index);
  }
  // slot's request ended at now_ns without a response, in class `error`.
  void failed(Connection& c, const RequestSlot& slot, TimeNs now_ns, ErrorField error) {
    if (log_ || trace_) end_failed(c, slot, now_ns, error_class_name(error));  // the name only when kept
  }

  // The transport's bytes on c, after TLS (a row's bytes in and out; a traced exchange's text).
  void bytes_read(const Connection& c, const char* data, std::size_t n) {
    if (log_) log_->bytes_read(c.index, n);
    if (trace_) trace_->read(c.index, data, n);
  }
  void bytes_written(const Connection& c, const char* data, std::size_t n) {
    if (log_) log_->bytes_written(c.index, n);
    if (trace_) trace_->written(c.index, data, n);
  }
  // HTTP/3's datagrams on c. A datagram read is counted before the session takes
  // it, so the response it completes carries it, and taken back if the
  // connection dropped it.
  void datagram_read(const Connection& c, std::size_t n) {
    if (log_) log_->bytes_read(c.index, n);
  }
  void datagram_dropped(const Connection& c, std::size_t n) {
    if (log_) log_->bytes_unread(c.index, n);
  }
  void datagrams_written(const Connection& c, std::size_t n) {
    if (log_) log_->bytes_written(c.index, n);
  }

 private:
  void end_failed(Connection& c, const RequestSlot& slot, TimeNs now_ns, const char* error);
  void log_row(const Connection& c, const RequestSlot& slot, TimeNs done, int status, const char* error);

  const SharedRun& shared_;
  const Recorder& recorder_;
  std::unique_ptr<RequestLog> log_;          // --log-requests; null without
  std::unique_ptr<trace::WireTrace> trace_;  // --trace N; null without
  bool hold_ = false;                        // hold_outcomes(): rows wait for their outcome
};

}  // namespace pacer::engine
