// See exchange.h.
#include "engine/exchange/exchange.h"

#include "targets/request_set.h"

namespace pacer::engine {

namespace {

// Whether a request the peer's close caught may be sent again: not a byte of
// its response (t_first: none; complete: no response cut short), sent on a
// connection that had answered before (a new connection's close is the server's
// answer: sending again would ask it forever), and a resendable request (null
// requests: a script's, whose bytes are not kept).
bool resendable(const targets::RequestSet* requests, const Connection& c, const RequestSlot& slot, bool complete) {
  return complete && slot.t_first == 0 && requests != nullptr && requests->resendable(slot.target) &&
         c.exchanged.answered > 0;
}

}  // namespace

// The connection forwards its session's events to its worker's exchange.
Connection::Connection(Exchange* exchange_in, std::uint32_t slot_count) : exchange(exchange_in), slots(slot_count) {
  free_tokens.reserve(slot_count);
  for (std::uint32_t i = 0; i < slot_count; ++i) {
    slots[i].connection = this;
    slots[i].token = i;
    free_tokens.push_back(slot_count - 1 - i);  // token 0 on top
  }
}

void Connection::on_response(std::uint32_t token, int status) { exchange->response(*this, token, status); }
void Connection::on_batch_response(std::uint32_t token, int status) { exchange->batch_response(*this, token, status); }
void Connection::on_first_byte(std::uint32_t token) { exchange->first_byte(*this, token); }
void Connection::on_redirect(std::uint32_t token) { exchange->redirect(*this, token); }
void Connection::on_decoded(std::uint32_t token, std::uint64_t bytes) { exchange->decoded(*this, token, bytes); }
void Connection::on_header(std::uint32_t token, std::string_view name, std::string_view value) {
  exchange->header(*this, token, name, value);
}
void Connection::on_request_failed(std::uint32_t token, proto::RequestFailure why) {
  exchange->request_failed(*this, token, why);
}

Exchange::Exchange(const SharedRun& shared, LoopClock& clock, Recorder& recorder, int worker)
    : clock_(clock),
      recorder_(recorder),
      keep_alive_(shared.options.exchange.keep_alive),
      open_model_(shared.profile != nullptr),
      record_timeouts_(shared.options.exchange.record_timeouts),
      requests_(shared.script == nullptr ? shared.requests : nullptr),
      timeout_ns_(shared.options.exchange.timeout_ns),
      tap_(shared, recorder, worker) {}

void Exchange::prepare(RequestEnds& driver, std::size_t slots) {
  driver_ = &driver;
  sent_.reserve(slots);
}

bool Exchange::take_sent(std::vector<Connection*>& out) {
  out.clear();
  out.swap(sent_);  // both keep their capacity: no allocation
  const bool complete = !sent_overflow_;
  sent_overflow_ = false;
  return complete;
}

void Exchange::send(Connection& c, RequestSlot& slot, TimeNs t_sched, const OutgoingRequest& out) {
  // The send time was read by slot_for_send, not taken from the wake-up:
  // connections handled earlier in this wake-up took time that is not this
  // request's latency.
  c.free_tokens.pop_back();
  slot.in_use = true;
  slot.t_sched = t_sched;
  slot.t_send = clock_.now;
  slot.t_first = 0;
  in_flight_.push_back(slot);
  ++c.exchanged.sent;
  if (sent_.empty() || sent_.back() != &c) {
    if (sent_.size() < sent_.capacity()) {
      sent_.push_back(&c);
    } else {
      sent_overflow_ = true;
    }
  }
  tap_.sent(c, slot);
  recorder_.sent(slot.name, static_cast<std::uint64_t>(out.batch.count), t_sched, clock_.now, open_model_);
  if (out.bytes.empty()) {
    c.session->submit(slot.token, slot.target);
  } else {
    c.http1->submit_bytes(slot.token, out.bytes, static_cast<std::uint32_t>(out.batch.count), out.batch.head_bits);
  }
}

void Exchange::opened(Connection& c) {
  tap_.opened(c);
  c.exchanged.sent = 0;
  c.exchanged.answered = 0;
  c.session->keep_server(recorder_.wants_server());  // ab's Server header: until this worker has one
  c.session->reset();
  for (RequestSlot& slot : c.slots) {
    if (slot.has_free_time) continue;
    // The first connection of a slot is set-up, not load: the slot opens now.
    slot.free_ns = clock_.now;
    slot.has_free_time = true;
  }
}

RequestSlot& Exchange::release(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  if (!slot.in_use) return slot;
  in_flight_.remove(slot);
  ++ended_;
  slot.in_use = false;
  c.free_tokens.push_back(token);
  return slot;
}

void Exchange::abandon(Connection& c) {
  for (RequestSlot& slot : c.slots) {
    if (slot.in_use) release(c, slot.token);
  }
}

// ---- the session's events ------------------------------------------------------

void Exchange::response(Connection& c, std::uint32_t token, int status) {
  RequestSlot& slot = release(c, token);
  slot.free_ns = kAtSend;
  count_response(c, slot, status);
}

void Exchange::batch_response(Connection& c, std::uint32_t token, int status) {
  // One response of a script's pipelined batch before its last (counted like a response).
  count_response(c, c.slots[token], status);
}

void Exchange::first_byte(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  // Like the last byte (count_response): the read's kernel stamp, unless it predates the send.
  if (slot.in_use && slot.t_first == 0) slot.t_first = clock_.done_after(slot.t_send);
}

void Exchange::redirect(Connection& c, std::uint32_t token) {
  RequestSlot& slot = c.slots[token];
  slot.t_first = 0;  // time to first byte: the final response's
  recorder_.redirect(slot.t_sched);
  driver_->redirected(c, slot);
}

void Exchange::decoded(Connection& c, std::uint32_t token, std::uint64_t bytes) {
  recorder_.decoded(c.slots[token].t_sched, bytes);
}

void Exchange::count_response(Connection& c, RequestSlot& slot, int status) {
  driver_->naming(c, slot);  // before anything reads its name
  ++c.exchanged.answered;
  const TimeNs done = clock_.done_after(slot.t_send);
  const bool recorded = recorder_.recorded(slot.t_sched);
  // Read before the driver runs: it may send the next request on this token (a scenario's user).
  const std::uint64_t body_bytes = c.session->body_bytes(slot.token);
  if (recorded) {  // ab's fields: one virtual call and one relaxed load per response
    recorder_.document(slot.name, status, done, body_bytes, [&] { return c.session->server(slot.token); });
    // The worker has its Server header now: the connection's buffer for it goes
    // (once per connection, at its first answer).
    if (c.exchanged.answered == 1 && !recorder_.wants_server()) c.session->keep_server(false);
    recorder_.body(slot.name, body_bytes);
  }
  tap_.answered(c, slot, done, status, body_bytes);
  driver_->completed(c, slot, status, done, recorded);
  recorder_.response(slot.name, status, slot.t_sched, slot.t_send, slot.t_first, done, open_model_);
  tap_.logged(c, slot, done, status);
}

void Exchange::request_failed(Connection& c, std::uint32_t token, proto::RequestFailure why) {
  // A request the server refused unprocessed in a graceful GOAWAY is sent again
  // on the next connection, its latency clock still running, unless this
  // connection answered nothing at all (a server refusing everything would
  // otherwise be asked forever).
  if (why == proto::RequestFailure::kRefused && c.exchanged.answered > 0) {
    RequestSlot& slot = c.slots[token];
    if (driver_->put_back(slot, recorder_.recorded(slot.t_sched))) {
      release(c, token);
      recorder_.unsent_again(slot.name, slot.t_sched);  // never processed: it counts when sent again
      return;
    }
  }
  RequestSlot& slot = release(c, token);
  slot.free_ns = clock_.now;
  if (why == proto::RequestFailure::kRedirect || why == proto::RequestFailure::kDecode) {
    ConnectionRecord& record = recorder_.connections();
    if (!record.has_first_error()) record.note_error(0, c.session->failure_detail());  // formatted only if kept
    count_error(c, slot, why == proto::RequestFailure::kRedirect ? &stats::ErrorCounts::redirect
                                                                 : &stats::ErrorCounts::decode);
    return;
  }
  if (why == proto::RequestFailure::kMalformed) {
    recorder_.connections().note_error(0, "malformed HTTP/2 response (:status not three digits 100-599)");
    count_error(c, slot, &stats::ErrorCounts::parse);
    return;
  }
  const bool goaway = why != proto::RequestFailure::kStreamReset;
  recorder_.connections().note_error(
      0, goaway ? "the server's GOAWAY refused a request" : "the server reset a stream (RST_STREAM)");
  count_error(c, slot, goaway ? &stats::ErrorCounts::goaway : &stats::ErrorCounts::stream_reset);
}

void Exchange::count_error(Connection& c, const RequestSlot& slot, ErrorField error) {
  // Every way a request ends without a response passes here: the driver learns
  // of it (a scenario's user resumes with the class).
  driver_->failed(c, slot, error, recorder_.recorded(slot.t_sched));
  recorder_.failed(slot.name, slot.t_sched, error);
  tap_.failed(c, slot, clock_.now, error);
}

// ---- failures and timeouts ---------------------------------------------------------

void Exchange::fail_connection(Connection& c, ErrorField error) {
  for (RequestSlot& slot : c.slots) {
    if (!slot.in_use) continue;
    count_error(c, slot, error);
    release(c, slot.token).free_ns = clock_.now;
  }
}

void Exchange::peer_closed(Connection& c) {
  // The server (or a proxy) answered with keep-alive and closed anyway: the next
  // request on c would meet the close. curl, Go's transport and ab -k open a new
  // connection for it; so does pacer, and the report says how often. Read before
  // the session hears of the close (which ends a close-delimited body: that
  // close was the response's end, not a keep-alive broken).
  const std::uint32_t answered = c.exchanged.answered;
  const bool kept_open = answered > 0 && !takes_no_more(c);
  const bool complete = c.session->finish(c);
  const bool kept_alive = kept_open && c.exchanged.answered == answered;
  if (kept_alive) recorder_.add(&stats::Counters::keepalive_closed, 1);
  bool failed = false;
  for (RequestSlot& slot : c.slots) {
    if (!slot.in_use) continue;
    const bool recorded = recorder_.recorded(slot.t_sched);
    if (kept_alive && resendable(requests_, c, slot, complete) && driver_->put_back(slot, recorded)) {
      release(c, slot.token);
      recorder_.unsent_again(slot.name, slot.t_sched);  // the server never saw it: it counts when sent again
      if (recorded) recorder_.add(&stats::Counters::resent, 1);
      continue;
    }
    if (!failed) {
      recorder_.connections().note_error(0, complete ? "connection closed before the response"
                                                     : c.session->error_reason());
      failed = true;
    }
    count_error(c, slot, &stats::ErrorCounts::read);
    release(c, slot.token).free_ns = clock_.now;
  }
}

void Exchange::count_timeout(Connection& c, const RequestSlot& slot) {
  count_error(c, slot, &stats::ErrorCounts::timeout);
  // Censored: the true latency is at least this.
  if (record_timeouts_ && recorder_.recorded(slot.t_sched)) recorder_.censored(slot.name, clock_.now - slot.t_sched);
}

std::optional<Exchange::Expired> Exchange::expire_next() {
  if (in_flight_.empty() || in_flight_.front()->t_send + timeout_ns_ > clock_.now) return std::nullopt;
  RequestSlot& expired = *in_flight_.front();
  Connection& c = *expired.connection;
  count_timeout(c, expired);
  const bool connection_survives = c.session->cancel(expired.token);
  release(c, expired.token).free_ns = clock_.now;
  if (connection_survives) return Expired{&c, false};  // HTTP/2: the stream is reset, the slot sends again
  // HTTP/1.1: only closing the connection cancels a request, and the requests
  // pipelined behind it go with it; none of them got a response in time.
  for (RequestSlot& slot : c.slots) {
    if (!slot.in_use) continue;
    count_timeout(c, slot);
    release(c, slot.token).free_ns = clock_.now;
  }
  return Expired{&c, true};
}

TimeNs Exchange::next_due_ns() const { return in_flight_.empty() ? kNeverNs : in_flight_.front()->t_send + timeout_ns_; }

void Exchange::gauges(TimeNs interval_ns, IntervalGauges& out) const {
  out.in_flight = in_flight_.size();
  const RequestSlot* oldest = in_flight_.front();
  out.oldest_in_flight_ns = oldest != nullptr ? std::max<TimeNs>(0, clock_.now - oldest->t_send) : 0;
  std::uint64_t over = 0;
  for (const RequestSlot* s = oldest; s != nullptr && clock_.now - s->t_send > interval_ns; s = s->in_flight.next) {
    ++over;
  }
  out.in_flight_over_interval = over;
}

}  // namespace pacer::engine
