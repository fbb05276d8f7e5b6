// The worker's request traffic: filling a connection's free slots, writing the
// session's output, reading and feeding it back, the session's per-request
// events, failures and per-request timeouts. See worker.h.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "engine/worker.h"

namespace pacer::engine {

// ---- I/O failures ------------------------------------------------------------

void Worker::io_failed(Connection& c, const net::IoResult& r, const char* what,
                       std::uint64_t stats::ErrorCounts::*error) {
  if (r.status == net::IoStatus::kTlsError) {
    note_tls_failure(c, nullptr);
    fail_connection(c, &stats::ErrorCounts::tls);
    return;
  }
  if (c.in_flight_count() > 0) note_error(r.err != 0 ? r.err : EPIPE, what);
  fail_connection(c, error);
}

// ---- sending ---------------------------------------------------------------

bool Worker::takes_no_more(const Connection& c) const {
  return c.session->capacity() == 0 || (!shared_.config->keep_alive && c.sent_on_connection > 0);
}

std::uint32_t Worker::free_capacity(const Connection& c) const {
  if (c.state != Connection::State::kOpen || takes_no_more(c)) return 0;
  const std::uint32_t capacity = std::min(c.session->capacity(), static_cast<std::uint32_t>(c.slots.size()));
  const std::uint32_t busy = c.in_flight_count();
  return capacity > busy ? capacity - busy : 0;
}

void Worker::connection_ready(Connection& c) {
  if (c.state != Connection::State::kOpen) return;
  if (users_) {
    users_->resume_answered(c.index);  // its user had a response: its next step now
    scenario_send(c);                  // its user's request, if it has one
  } else if (is_open()) {
    TimeNs t_sched = 0;
    while (free_capacity(c) > 0 && pop_backlog(t_sched)) send_request(c, t_sched);
  } else if (script_ && script_->has_delay()) {
    // wrk: delay() before every request; send_delayed() sends it when due.
    if (free_capacity(c) > 0 && !script_->is_deferred(c)) script_->defer(c, now_);
  } else {
    // Closed loop: every free slot sends its next request, scheduled when it freed up.
    while (free_capacity(c) > 0 && send_request(c, c.slots[c.free_tokens.back()].free_ns)) {
    }
  }
  if (!flush(c)) return;
  if (takes_no_more(c) && c.in_flight_count() == 0) {
    reopen(c);  // `Connection: close`, a GOAWAY, or --disable-keepalive
    return;
  }
  if (is_open() && !users_ && free_capacity(c) > 0 && !idle_.contains(c)) idle_.push_back(c);
}

bool Worker::send_request(Connection& c, TimeNs t_sched) {
  // Open model: the arrival was already taken from the schedule; it is sent.
  if (!is_open() && !claim_request(c)) return false;
  // The send time is read here, not taken from the wake-up: connections handled
  // earlier in this wake-up took time that is not this request's latency.
  now_ = monotonic_now_ns();
  t_sched = std::min(t_sched, now_);  // kAtSend: the clock starts now
  if (is_recorded(t_sched) && c.holds_claim) {
    c.holds_claim = false;  // this request uses it up
    --claims_held_;
  }
  const std::uint32_t token = c.free_tokens.back();
  RequestSlot& slot = c.slots[token];
  // A script's request() supplies the bytes (and may pipeline several requests) and the name.
  RequestBatch batch;
  std::string_view bytes;
  if (script_ && script_->custom_bytes()) {
    if (!script_->next_request(c, bytes, batch, slot.name)) return false;  // the run stops
  } else if (users_) {
    // Scenarios: the user's own request, named by the run's name table.
    bytes = users_->request_bytes(c.index);
    batch.head_bits = users_->user(c.index).head ? 1 : 0;
    slot.name = users_->user(c.index).name;
  } else {
    choose_request(slot);
  }
  c.free_tokens.pop_back();
  slot.in_use = true;
  slot.t_sched = t_sched;
  slot.t_send = now_;
  slot.t_first = 0;
  in_flight_.push_back(slot);
  ++c.sent_on_connection;
  if (is_recorded(t_sched)) {
    result_.counters.requests_sent += static_cast<std::uint64_t>(batch.count);
    result_.names.counts(slot.name).requests_sent += static_cast<std::uint64_t>(batch.count);
    if (is_open()) result_.queue_delay.record(now_ - t_sched);
  }
  if (bytes.empty()) {
    c.session->submit(token, slot.target);
  } else {
    c.http1->submit_bytes(token, bytes, static_cast<std::uint32_t>(batch.count), batch.head_bits);
  }
  return true;
}

bool Worker::flush(Connection& c) {
  if (c.http3 != nullptr) return quic_flush(c);  // datagrams, batched (worker_quic.cc)
  while (true) {
    const std::span<const char> out = c.session->pending_output();
    if (out.empty()) {
      c.write_blocked = false;
      return true;
    }
    const net::IoResult w = engine_->write(c, c.tls, out);
    if (w.status == net::IoStatus::kOk && w.bytes > 0) {
      c.session->consume(w.bytes);
    } else if (w.status == net::IoStatus::kWantWrite || w.status == net::IoStatus::kWantRead) {
      // The engine's next event resumes the write (kWritable; any event for TLS's rare want-read).
      c.write_blocked = true;
      return true;
    } else {
      io_failed(c, w, "write", &stats::ErrorCounts::write);
      return false;
    }
  }
}

// ---- receiving -------------------------------------------------------------

void Worker::handle_readable(Connection& c, std::uint32_t events) {
  // Read budgets (worker.h): a server sending faster than pacer parses must not keep
  // the loop from its timers. Past them, c waits on the unread list.
  if (unread_.contains(c) && c.deferred_at_wake == wake_count_) {
    c.unread_events |= events;  // it already had its share of this wake-up
    return;
  }
  unread_.remove(c);
  events |= std::exchange(c.unread_events, 0);
  if (c.http3 != nullptr) {
    quic_readable(c);  // datagrams (worker_quic.cc)
    return;
  }
  const bool peer_closing = (events & io::kPeerClosing) != 0;
  std::size_t budget = kReadBytesPerConnection;
  while (true) {
    if (budget == 0 || wake_reads_spent_) {
      defer_read(c, events);
      break;
    }
    const io::Received got = engine_->read(c, c.tls);
    const net::IoResult& r = got.io;
    if (r.status == net::IoStatus::kOk) {
      // Responses completed by these bytes end when the kernel received them
      // (without a stamp: at this wake-up). See count_response.
      note_arrival(got.stamp);
      const std::size_t n = r.bytes;
      if (now_ >= shared_.record_from_ns) result_.counters.bytes_read += n;
      if (!c.session->receive(got.data, n, c)) {
        note_error(0, c.session->error_reason());
        if (c.in_flight_count() == 0 && now_ >= shared_.record_from_ns) ++result_.counters.errors.parse;
        fail_connection(c, &stats::ErrorCounts::parse);
        return;
      }
      // A drained socket: the next byte brings a new event. Keep reading only
      // when the peer is closing (to see EOF).
      if (!peer_closing && got.drained) break;
      // More to read: within this connection's share and the wake-up's time?
      budget -= std::min(budget, n);
      if (monotonic_now_ns() - wake_ns_ >= kReadSliceNs) wake_reads_spent_ = true;
    } else if (r.status == net::IoStatus::kClosed) {
      arrived_ns_ = now_;  // a body delimited by the close ends here
      const bool complete = c.session->finish(c);
      if (c.in_flight_count() > 0) {
        note_error(0, complete ? "connection closed before the response" : c.session->error_reason());
        fail_connection(c, &stats::ErrorCounts::read);
      } else {
        reopen(c);  // the server closed an idle keep-alive connection, or ended a close-delimited body
      }
      return;
    } else if (r.status == net::IoStatus::kWantRead || r.status == net::IoStatus::kWantWrite) {
      break;
    } else {
      io_failed(c, r, "read", &stats::ErrorCounts::read);
      return;
    }
  }
  connection_ready(c);
}

void Worker::defer_read(Connection& c, std::uint32_t events) {
  c.unread_events = events & (io::kReadable | io::kPeerClosing);
  c.deferred_at_wake = wake_count_;
  unread_.push_back(c);
}

void Worker::resume_unread() {
  for (std::size_t left = unread_.size(); left > 0 && !wake_reads_spent_; --left) {
    Connection& c = *unread_.front();
    handle_readable(c, 0);  // goes to the back if it still has more than its share
  }
}

RequestSlot& Worker::release_slot(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  if (!slot.in_use) return slot;
  in_flight_.remove(slot);
  slot.in_use = false;
  c.free_tokens.push_back(token);
  return slot;
}

void Worker::handle_response(Connection& c, std::uint32_t token, int status) {
  RequestSlot& slot = release_slot(c, token);
  slot.free_ns = kAtSend;
  count_response(c, slot, status);
}

void Worker::handle_first_byte(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  // Like the last byte (count_response): the read's kernel stamp, unless it predates the send.
  if (slot.in_use && slot.t_first == 0) slot.t_first = arrived_ns_ >= slot.t_send ? arrived_ns_ : now_;
}

void Worker::handle_redirect(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  slot.t_first = 0;  // time to first byte: the final response's
  if (is_recorded(slot.t_sched)) ++result_.counters.redirects;
}

void Worker::handle_decoded(Connection& c, std::uint32_t token, std::uint64_t bytes) {
  if (is_recorded(c.slots[token].t_sched)) result_.counters.bytes_decoded += bytes;
}

void Worker::handle_batch_response(Connection& c, std::uint32_t token, int status) {
  count_response(c, c.slots[token], status);
}

void Worker::count_response(Connection& c, const RequestSlot& slot, int status) {
  ++c.answered_on_connection;
  if (script_) script_->on_response(c, status);
  // The kernel's receive stamp, unless it predates the send (a clock step) or the
  // response was completed without a read (the connection's end): then the wake-up.
  const TimeNs done = arrived_ns_ >= slot.t_send ? arrived_ns_ : now_;
  if (users_) users_->on_response(c.index, status, done, is_recorded(slot.t_sched));
  stats::Counters& counters = result_.counters;
  if (!is_recorded(slot.t_sched)) {
    ++counters.warmup_responses;
    return;
  }
  ++counters.responses;
  if (status >= 0 && status <= stats::kMaxStatusCode) ++counters.status_counts[static_cast<std::size_t>(status)];
  if (status >= 400) ++counters.errors.status;
  stats::NameCounts& named = result_.names.counts(slot.name);
  ++named.responses;
  if (status < 200 || status >= 400) ++named.non_2xx_3xx;
  if (status >= 400) ++named.errors.status;
  const TimeNs latency_ns = done - slot.t_sched;
  record_latency(slot.name, latency_ns, false);
  window_latency_ns_ += latency_ns;
  // Time to first byte, from the send (a response always has a first byte; a
  // script's later batch responses share their token's first one).
  const TimeNs ttfb_ns = std::min(slot.t_first != 0 ? slot.t_first : done, done) - slot.t_send;
  result_.names.record_ttfb(slot.name, ttfb_ns);
  if (is_open()) {
    result_.service.record(done - slot.t_send);
    service_ns_sum_ += done - slot.t_send;
  }
}

void Worker::handle_request_failed(Connection& c, std::uint32_t token, proto::RequestFailure why) {
  // A request the server refused unprocessed in a graceful GOAWAY is sent again
  // on the next connection, its latency clock still running, unless this
  // connection answered nothing at all (a server refusing everything would
  // otherwise be asked forever).
  if (why == proto::RequestFailure::kRefused && c.answered_on_connection > 0) {
    retry_request(c, token);
    return;
  }
  RequestSlot& slot = release_slot(c, token);
  slot.free_ns = now_;
  if (why == proto::RequestFailure::kRedirect || why == proto::RequestFailure::kDecode) {
    if (result_.first_error.empty()) note_error(0, c.session->failure_detail());  // formatted only if kept
    count_error(slot, why == proto::RequestFailure::kRedirect ? &stats::ErrorCounts::redirect
                                                              : &stats::ErrorCounts::decode);
    return;
  }
  if (why == proto::RequestFailure::kMalformed) {
    note_error(0, "malformed HTTP/2 response (:status not three digits 100-599)");
    count_error(slot, &stats::ErrorCounts::parse);
    return;
  }
  const bool goaway = why != proto::RequestFailure::kStreamReset;
  note_error(0, goaway ? "the server's GOAWAY refused a request" : "the server reset a stream (RST_STREAM)");
  count_error(slot, goaway ? &stats::ErrorCounts::goaway : &stats::ErrorCounts::stream_reset);
}

void Worker::count_error(const RequestSlot& slot, std::uint64_t stats::ErrorCounts::*error) {
  // Every way a request ends without a response passes here: a scenario's user resumes with the class.
  if (users_) scenario_failed(*slot.connection, error, is_recorded(slot.t_sched));
  if (!is_recorded(slot.t_sched)) return;
  ++(result_.counters.errors.*error);
  ++(result_.names.counts(slot.name).errors.*error);
}

void Worker::retry_request(Connection& c, std::uint32_t token) {
  RequestSlot& slot = release_slot(c, token);
  const TimeNs t_sched = slot.t_sched;
  if (is_recorded(t_sched)) {
    --result_.counters.requests_sent;  // it was never processed; it is sent again
    --result_.names.counts(slot.name).requests_sent;
    if (is_open()) {
      if (!backlog_.push(t_sched)) ++result_.counters.errors.backlog;
      return;
    }
    if (quota_left_) ++*quota_left_;  // its -n request is claimed again when resent
  } else if (is_open()) {
    backlog_.push(t_sched);
    return;
  }
  slot.free_ns = t_sched;  // closed loop: the slot resends with the original schedule time
}

// ---- failures and timeouts ---------------------------------------------------

void Worker::fail_connection(Connection& c, std::uint64_t stats::ErrorCounts::*error) {
  for (RequestSlot& slot : c.slots) {
    if (!slot.in_use) continue;
    count_error(slot, error);
    release_slot(c, slot.token).free_ns = now_;
  }
  reopen(c);
}

void Worker::count_timeout(const RequestSlot& slot) {
  count_error(slot, &stats::ErrorCounts::timeout);
  if (!is_recorded(slot.t_sched)) return;
  // Censored: the true latency is at least this.
  if (shared_.config->record_timeouts) {
    record_latency(slot.name, now_ - slot.t_sched, true);
  }
}

void Worker::expire_timeouts() {
  const TimeNs timeout = shared_.config->timeout_ns;
  while (!in_flight_.empty() && in_flight_.front()->t_send + timeout <= now_) {
    RequestSlot& expired = *in_flight_.front();
    Connection& c = *expired.connection;
    count_timeout(expired);
    const bool connection_survives = c.session->cancel(expired.token);
    release_slot(c, expired.token).free_ns = now_;
    if (connection_survives) {
      connection_ready(c);  // HTTP/2: the stream is reset, the slot sends again
      continue;
    }
    // HTTP/1.1: only closing the connection cancels a request, and the requests
    // pipelined behind it go with it; none of them got a response in time.
    for (RequestSlot& slot : c.slots) {
      if (!slot.in_use) continue;
      count_timeout(slot);
      release_slot(c, slot.token).free_ns = now_;
    }
    reopen(c);
  }
}

// ---- scripts -----------------------------------------------------------------

void Worker::send_delayed() {
  while (Connection* c = script_->pop_due(now_)) {
    if (free_capacity(*c) == 0 || !send_request(*c, now_)) continue;
    flush(*c);
  }
}

}  // namespace pacer::engine
