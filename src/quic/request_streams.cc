// See request_streams.h.
#include "quic/request_streams.h"

#include <algorithm>
#include <cstring>


namespace pacer::quic {

namespace {

RequestStreams& streams_of(void* user_data) { return *static_cast<RequestStreams*>(user_data); }

std::string_view as_view(nghttp3_rcbuf* buffer) {
  const nghttp3_vec v = nghttp3_rcbuf_get_buf(buffer);
  return {reinterpret_cast<const char*>(v.base), v.len};
}

// nghttp3's callbacks (conn user data: the RequestStreams; stream user data: token + 1).
int h3_recv_header(nghttp3_conn*, std::int64_t id, std::int32_t, nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                   std::uint8_t, void* user, void* stream_user) {
  streams_of(user).header(id, stream_user, as_view(name), as_view(value));
  return 0;
}
int h3_end_headers(nghttp3_conn*, std::int64_t id, int, void* user, void* stream_user) {
  streams_of(user).end_headers(id, stream_user);
  return 0;
}
int h3_recv_data(nghttp3_conn*, std::int64_t id, const std::uint8_t*, std::size_t length, void* user,
                 void* stream_user) {
  streams_of(user).data(id, stream_user, length);
  return 0;
}
int h3_deferred_consume(nghttp3_conn*, std::int64_t id, std::size_t consumed, void* user, void*) {
  streams_of(user).quic().consumed(id, consumed);
  return 0;
}
int h3_end_stream(nghttp3_conn*, std::int64_t id, void* user, void* stream_user) {
  streams_of(user).end_stream(id, stream_user);
  return 0;
}
int h3_stream_close(nghttp3_conn*, std::int64_t id, std::uint64_t, void* user, void* stream_user) {
  streams_of(user).closed(id, stream_user);
  return 0;
}
// nghttp3 asks for STOP_SENDING / RESET_STREAM on a stream.
int h3_stop_sending(nghttp3_conn*, std::int64_t id, std::uint64_t code, void* user, void*) {
  streams_of(user).quic().shutdown_stream_read(id, code);
  return 0;
}
int h3_reset_stream(nghttp3_conn*, std::int64_t id, std::uint64_t code, void* user, void*) {
  streams_of(user).quic().shutdown_stream_write(id, code);
  return 0;
}
// The request body, whole, from the shared request (it outlives every stream).
nghttp3_ssize h3_read_body(nghttp3_conn*, std::int64_t, nghttp3_vec* vec, std::size_t, std::uint32_t* flags,
                           void* user, void* stream_user) {
  const std::string& body = streams_of(user).body(stream_user);
  vec[0].base = reinterpret_cast<std::uint8_t*>(const_cast<char*>(body.data()));
  vec[0].len = body.size();
  *flags |= NGHTTP3_DATA_FLAG_EOF;
  return 1;
}
int h3_shutdown(nghttp3_conn*, std::int64_t id, void* user) {
  streams_of(user).refuse_from(id);
  return 0;
}

// A :status value: three digits 100-599, -1 (malformed) otherwise.
int parse_status(std::string_view v) {
  if (v.size() != 3 || v[0] < '1' || v[0] > '5' || v[1] < '0' || v[1] > '9' || v[2] < '0' || v[2] > '9') return -1;
  return (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
}

}  // namespace

RequestStreams::RequestStreams(std::span<const Http3Request> requests, std::uint32_t streams, Connection& quic)
    : requests_(requests),
      quic_(quic),
      stream_of_(streams, -1),
      status_(streams, 0),
      target_of_(streams, 0),
      body_bytes_(streams, 0) {}

nghttp3_callbacks RequestStreams::callbacks() {
  nghttp3_callbacks cb{};
  cb.stream_close = h3_stream_close;
  cb.recv_data = h3_recv_data;
  cb.deferred_consume = h3_deferred_consume;
  cb.recv_header = h3_recv_header;
  cb.end_headers = h3_end_headers;
  cb.end_stream = h3_end_stream;
  cb.stop_sending = h3_stop_sending;
  cb.reset_stream = h3_reset_stream;
  cb.shutdown = h3_shutdown;
  return cb;
}

nghttp3_data_reader RequestStreams::body_reader() { return nghttp3_data_reader{h3_read_body}; }

void* RequestStreams::user_data(std::uint32_t token) {
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(token) + 1);
}

void RequestStreams::clear() {
  std::fill(stream_of_.begin(), stream_of_.end(), -1);
  in_flight_ = 0;
  goaway_ = false;
}

void RequestStreams::submitted(std::uint32_t token, std::uint32_t target, std::int64_t id) {
  target_of_[token] = target;
  stream_of_[token] = id;
  status_[token] = 0;
  body_bytes_[token] = 0;
  if (keep_server_) server_[token].clear();
  ++in_flight_;
}

std::optional<std::int64_t> RequestStreams::cancel(std::uint32_t token) {
  const std::int64_t id = stream_of_[token];
  if (id == -1) return std::nullopt;
  release(token);
  return id;
}

void RequestStreams::reset_by_peer(std::int64_t id) {
  for (std::uint32_t t = 0; t < streams(); ++t) {
    if (stream_of_[t] == id) {
      fail(t, proto::RequestFailure::kStreamReset);
      return;
    }
  }
}

std::int64_t RequestStreams::token_of(std::int64_t id, void* stream_user) const {
  if (stream_user == nullptr) return -1;
  const auto token = reinterpret_cast<std::uintptr_t>(stream_user) - 1;
  if (token >= stream_of_.size() || stream_of_[token] != id) return -1;
  return static_cast<std::int64_t>(token);
}

void RequestStreams::header(std::int64_t id, void* stream_user, std::string_view name, std::string_view value) {
  const std::int64_t token = token_of(id, stream_user);
  if (token < 0) return;
  const auto t = static_cast<std::uint32_t>(token);
  if (report_headers_ && events_ != nullptr) events_->on_header(t, name, value);  // --trace
  constexpr std::size_t kMaxServerBytes = 256;  // a longer Server header is cut there
  if (keep_server_ && name == "server") server_[t].assign(value.substr(0, kMaxServerBytes));
  if (name != ":status") return;
  // Time to first byte: a head's :status, interim heads too (the engine keeps the first).
  if (events_ != nullptr) events_->on_first_byte(t);
  status_[t] = parse_status(value);
}

void RequestStreams::end_headers(std::int64_t id, void* stream_user) {
  // An informational (1xx) head: the final one is still to come.
  const std::int64_t token = token_of(id, stream_user);
  if (token >= 0 && status_[static_cast<std::size_t>(token)] >= 100 && status_[static_cast<std::size_t>(token)] < 200) {
    status_[static_cast<std::size_t>(token)] = 0;
  }
}

void RequestStreams::data(std::int64_t id, void* stream_user, std::size_t length) {
  // The body's length (ab's document length); bodies are counted, not kept: credit them back at once.
  if (const std::int64_t token = token_of(id, stream_user); token >= 0) {
    body_bytes_[static_cast<std::size_t>(token)] += length;
  }
  quic_.consumed(id, length);
}

void RequestStreams::end_stream(std::int64_t id, void* stream_user) {
  const std::int64_t token = token_of(id, stream_user);
  if (token < 0) return;
  const auto t = static_cast<std::uint32_t>(token);
  if (status_[t] >= 200) {
    complete(t);
    return;
  }
  quic_.shutdown_stream(id, NGHTTP3_H3_MESSAGE_ERROR);
  fail(t, proto::RequestFailure::kMalformed);
}

void RequestStreams::closed(std::int64_t id, void* stream_user) {
  const std::int64_t token = token_of(id, stream_user);
  if (token >= 0) fail(static_cast<std::uint32_t>(token), proto::RequestFailure::kStreamReset);
}

void RequestStreams::refuse_from(std::int64_t first_unprocessed) {
  goaway_ = true;
  for (std::uint32_t t = 0; t < streams(); ++t) {
    if (stream_of_[t] >= first_unprocessed) fail(t, proto::RequestFailure::kRefused);
  }
}

const std::string& RequestStreams::body(void* stream_user) const {
  const auto token = reinterpret_cast<std::uintptr_t>(stream_user) - 1;
  return requests_[target_of_[token]].body();
}

void RequestStreams::release(std::uint32_t token) {
  stream_of_[token] = -1;
  --in_flight_;
}

void RequestStreams::complete(std::uint32_t token) {
  release(token);
  if (events_ != nullptr) events_->on_response(token, status_[token]);
}

void RequestStreams::fail(std::uint32_t token, proto::RequestFailure why) {
  release(token);
  if (events_ != nullptr) events_->on_request_failed(token, why);
}

}  // namespace pacer::quic
