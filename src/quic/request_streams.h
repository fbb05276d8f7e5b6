// The requests of one HTTP/3 connection, by token (the engine's request slot):
// the stream each is on, the final :status seen, the response body's length, the
// Server header kept; how many are in flight, and whether a GOAWAY refused more.
// nghttp3's callbacks land here (callbacks() below: its connection's user
// data is this object, a stream's is its token + 1) and end requests through the
// session's events. Http3Session (http3_session.h) owns one beside its
// quic::Connection and nghttp3 connection, and tells it of each submit and cancel.
//
// Invariant: stream_of(token) is the stream carrying `token`, -1 when the token
// is free (-2: submitted but no stream could be opened); callbacks for any other
// stream (a cancelled one) are ignored.
// Thread: the owning worker's.
#pragma once

#include <nghttp3/nghttp3.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "proto/session.h"
#include "quic/connection.h"
#include "quic/http3_request.h"

namespace pacer::quic {

class RequestStreams {
 public:
  // requests: one per target; they outlive this. quic: the connection the streams are on.
  RequestStreams(std::span<const Http3Request> requests, std::uint32_t streams, Connection& quic);

  // The callbacks to create an nghttp3 connection with (its user data: this).
  static nghttp3_callbacks callbacks();
  // nghttp3's reader of a request body (a stream's user data: its token + 1).
  static nghttp3_data_reader body_reader();
  // Tokens travel as stream user data, offset by one so that token 0 is not null.
  static void* user_data(std::uint32_t token);

  // Every token free again (a new connection); no GOAWAY yet.
  void clear();
  // Where the responses' events go (the receive that runs the callbacks).
  void set_events(proto::SessionEvents* events) { events_ = events; }
  std::uint32_t streams() const { return static_cast<std::uint32_t>(stream_of_.size()); }
  std::uint32_t in_flight() const { return in_flight_; }
  bool refused() const { return goaway_; }
  const Http3Request& request(std::uint32_t target) const { return requests_[target]; }

  // token's request (of `target`) went out on stream id (-2: no stream could be opened).
  void submitted(std::uint32_t token, std::uint32_t target, std::int64_t id);
  // token's request is given up (the engine's --timeout): the stream it was on
  // (-2: none was opened), nullopt if token had no request. Its events are
  // ignored from now on.
  std::optional<std::int64_t> cancel(std::uint32_t token);
  // The peer reset stream id: its request fails (kStreamReset).
  void reset_by_peer(std::int64_t id);

  std::uint64_t body_bytes(std::uint32_t token) const { return body_bytes_[token]; }
  std::string_view server(std::uint32_t token) const {
    return keep_server_ ? std::string_view(server_[token]) : std::string_view();
  }
  void keep_server(bool keep) {
    keep_server_ = keep;
    if (keep) server_.resize(stream_of_.size());  // once: each keeps its capacity
  }
  void report_headers(bool on) { report_headers_ = on; }

  // nghttp3's events (stream_user: the stream's user data).
  void header(std::int64_t id, void* stream_user, std::string_view name, std::string_view value);
  void end_headers(std::int64_t id, void* stream_user);
  void data(std::int64_t id, void* stream_user, std::size_t length);
  void end_stream(std::int64_t id, void* stream_user);
  void closed(std::int64_t id, void* stream_user);
  void refuse_from(std::int64_t first_unprocessed);  // GOAWAY
  const std::string& body(void* stream_user) const;
  Connection& quic() { return quic_; }

 private:
  // The token whose current stream is id, from its stream user data; -1 if none.
  std::int64_t token_of(std::int64_t id, void* stream_user) const;
  // token's request ends: with its response, or failing `why`. Its stream is free.
  void complete(std::uint32_t token);
  void fail(std::uint32_t token, proto::RequestFailure why);
  void release(std::uint32_t token);

  std::span<const Http3Request> requests_;
  Connection& quic_;
  std::vector<std::int64_t> stream_of_;    // per token
  std::vector<int> status_;                // per token: the final :status seen
  std::vector<std::uint32_t> target_of_;   // per token: its request (the body nghttp3 reads)
  std::vector<std::uint64_t> body_bytes_;  // per token: its response body's bytes so far
  std::vector<std::string> server_;        // per token, with keep_server: its response's Server header
  bool keep_server_ = false;
  bool report_headers_ = false;            // --trace: header fields go to SessionEvents::on_header
  std::uint32_t in_flight_ = 0;
  bool goaway_ = false;
  proto::SessionEvents* events_ = nullptr;  // during receive
};

}  // namespace pacer::quic
