// Http3Session: nghttp3 over quic::Connection, in memory. See http3_session.h.
#include "quic/http3_session.h"

#include <strings.h>

#include <algorithm>
#include <cstring>

#include "quic/compat.h"

namespace pacer::quic {

namespace {

Http3Session& self_of(void* user_data) { return *static_cast<Http3Session*>(user_data); }

// Tokens travel as stream user data, offset by one so that token 0 is not null.
void* as_user_data(std::uint32_t token) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(token) + 1); }

// ngtcp2 and nghttp3 allocate through the worker's pool (same shape as nghttp2_mem).
void* pool_malloc(std::size_t size, void* user) { return static_cast<proto::H2Memory*>(user)->allocate(size); }
void pool_free(void* block, void* user) { static_cast<proto::H2Memory*>(user)->release(block); }
void* pool_calloc(std::size_t count, std::size_t size, void* user) {
  void* block = static_cast<proto::H2Memory*>(user)->allocate(count * size);
  if (block != nullptr) std::memset(block, 0, count * size);
  return block;
}
void* pool_realloc(void* block, std::size_t size, void* user) {
  return static_cast<proto::H2Memory*>(user)->reallocate(block, size);
}

}  // namespace

Http3Request::Http3Request(const proto::Http2Request& request) : request_(&request) {
  for (std::size_t i = 0; i < request.header_count(); ++i) {
    const nghttp2_nv& h = request.headers()[i];
    nv_.push_back(compat::header(h.name, h.namelen, h.value, h.valuelen));
  }
}

// nghttp3's callbacks (conn user data: the session; stream user data: token + 1).
struct Http3Glue {
  static int recv_header(nghttp3_conn*, std::int64_t id, std::int32_t, nghttp3_rcbuf* name, nghttp3_rcbuf* value,
                         std::uint8_t, void* user, void* stream_user) {
    Http3Session& s = self_of(user);
    const std::int64_t token = s.token_of(id, stream_user);
    if (token < 0) return 0;
    const nghttp3_vec n = nghttp3_rcbuf_get_buf(name);
    if (s.keep_server_ || s.report_headers_) note_header(s, static_cast<std::uint32_t>(token), n, nghttp3_rcbuf_get_buf(value));
    if (n.len != 7 || std::memcmp(n.base, ":status", 7) != 0) return 0;
    // Time to first byte: a head's :status, interim heads too (the engine keeps the first).
    if (s.events_ != nullptr) s.events_->on_first_byte(static_cast<std::uint32_t>(token));
    const nghttp3_vec v = nghttp3_rcbuf_get_buf(value);
    int status = -1;  // malformed unless three digits 100-599
    if (v.len == 3 && v.base[0] >= '1' && v.base[0] <= '5' && v.base[1] >= '0' && v.base[1] <= '9' &&
        v.base[2] >= '0' && v.base[2] <= '9') {
      status = (v.base[0] - '0') * 100 + (v.base[1] - '0') * 10 + (v.base[2] - '0');
    }
    s.status_[static_cast<std::size_t>(token)] = status;
    return 0;
  }
  // keep_server, report_headers (--trace): a header field of the stream of token t.
  static void note_header(Http3Session& s, std::uint32_t t, nghttp3_vec n, nghttp3_vec v) {
    constexpr std::size_t kMaxServerBytes = 256;  // a longer Server header is cut there
    const std::string_view name(reinterpret_cast<const char*>(n.base), n.len);
    const std::string_view value(reinterpret_cast<const char*>(v.base), v.len);
    if (s.report_headers_ && s.events_ != nullptr) s.events_->on_header(t, name, value);
    if (s.keep_server_ && name == "server") s.server_[t].assign(value.substr(0, kMaxServerBytes));
  }
  static int end_headers(nghttp3_conn*, std::int64_t id, int, void* user, void* stream_user) {
    Http3Session& s = self_of(user);
    const std::int64_t token = s.token_of(id, stream_user);
    // An informational (1xx) head: the final one is still to come.
    if (token >= 0 && s.status_[static_cast<std::size_t>(token)] >= 100 && s.status_[static_cast<std::size_t>(token)] < 200) {
      s.status_[static_cast<std::size_t>(token)] = 0;
    }
    return 0;
  }
  static int recv_data(nghttp3_conn*, std::int64_t id, const std::uint8_t*, std::size_t length, void* user,
                       void* stream_user) {
    Http3Session& s = self_of(user);
    // The body's length (ab's document length); bodies are counted, not kept: credit them back at once.
    if (const std::int64_t token = s.token_of(id, stream_user); token >= 0) s.body_bytes_[static_cast<std::size_t>(token)] += length;
    s.quic_.consumed(id, length);
    return 0;
  }
  static int deferred_consume(nghttp3_conn*, std::int64_t id, std::size_t consumed, void* user, void*) {
    self_of(user).quic_.consumed(id, consumed);
    return 0;
  }
  static int end_stream(nghttp3_conn*, std::int64_t id, void* user, void* stream_user) {
    Http3Session& s = self_of(user);
    const std::int64_t token = s.token_of(id, stream_user);
    if (token < 0) return 0;
    const auto t = static_cast<std::uint32_t>(token);
    if (s.status_[t] >= 200) {
      s.complete(t);
    } else {
      s.quic_.shutdown_stream(id, NGHTTP3_H3_MESSAGE_ERROR);
      s.fail_request(t, proto::RequestFailure::kMalformed);
    }
    return 0;
  }
  static int stream_close(nghttp3_conn*, std::int64_t id, std::uint64_t, void* user, void* stream_user) {
    Http3Session& s = self_of(user);
    const std::int64_t token = s.token_of(id, stream_user);
    if (token >= 0) s.fail_request(static_cast<std::uint32_t>(token), proto::RequestFailure::kStreamReset);
    return 0;
  }
  // nghttp3 asks for STOP_SENDING / RESET_STREAM on a stream.
  static int stop_sending(nghttp3_conn*, std::int64_t id, std::uint64_t code, void* user, void*) {
    self_of(user).quic_.shutdown_stream_read(id, code);
    return 0;
  }
  static int reset_stream(nghttp3_conn*, std::int64_t id, std::uint64_t code, void* user, void*) {
    self_of(user).quic_.shutdown_stream_write(id, code);
    return 0;
  }
  // The request body, whole, from the shared request (it outlives every stream).
  static nghttp3_ssize read_body(nghttp3_conn*, std::int64_t, nghttp3_vec* vec, std::size_t, std::uint32_t* flags,
                                 void* user, void* stream_user) {
    Http3Session& s = self_of(user);
    const auto token = reinterpret_cast<std::uintptr_t>(stream_user) - 1;
    const std::string& body = s.requests_[s.target_of_[token]].body();
    vec[0].base = reinterpret_cast<std::uint8_t*>(const_cast<char*>(body.data()));
    vec[0].len = body.size();
    *flags |= NGHTTP3_DATA_FLAG_EOF;
    return 1;
  }
  static int shutdown(nghttp3_conn*, std::int64_t id, void* user) {
    self_of(user).refuse_from(id);
    return 0;
  }
};


Http3Session::Http3Session(std::span<const Http3Request> requests, std::uint32_t streams, proto::H2Memory& memory)
    : requests_(requests),
      streams_(std::max<std::uint32_t>(streams, 1)),
      memory_(memory),
      stream_of_(streams_, -1),
      status_(streams_, 0),
      target_of_(streams_, 0),
      body_bytes_(streams_, 0) {
  ngtcp2_mem_ = ngtcp2_mem{&memory_, pool_malloc, pool_free, pool_calloc, pool_realloc};
  nghttp3_mem_ = nghttp3_mem{&memory_, pool_malloc, pool_free, pool_calloc, pool_realloc};
}

Http3Session::~Http3Session() { drop(); }

void Http3Session::free_h3() {
  if (h3_ != nullptr) nghttp3_conn_del(h3_);
  h3_ = nullptr;
}

void Http3Session::drop() {
  free_h3();
  quic_.reset();
  out_.clear();
  std::fill(stream_of_.begin(), stream_of_.end(), -1);
  in_flight_ = 0;
}

bool Http3Session::start(const SessionSetup& setup, TimeNs now) {
  drop();
  goaway_ = false;
  broken_ = false;
  error_reason_ = "";
  ConnectionSetup with_pool;
  static_cast<SessionSetup&>(with_pool) = setup;
  with_pool.mem = &ngtcp2_mem_;
  if (!quic_.start(with_pool, this, now)) {
    broken_ = true;
    return false;
  }
  // nghttp3 exists from the start: the server's control stream can arrive in the
  // very datagram that completes the handshake.
  nghttp3_callbacks cb{};
  cb.stream_close = Http3Glue::stream_close;
  cb.recv_data = Http3Glue::recv_data;
  cb.deferred_consume = Http3Glue::deferred_consume;
  cb.recv_header = Http3Glue::recv_header;
  cb.end_headers = Http3Glue::end_headers;
  cb.end_stream = Http3Glue::end_stream;
  cb.stop_sending = Http3Glue::stop_sending;
  cb.reset_stream = Http3Glue::reset_stream;
  cb.shutdown = Http3Glue::shutdown;
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  if (nghttp3_conn_client_new(&h3_, &cb, &settings, &nghttp3_mem_, this) != 0) {
    h3_ = nullptr;
    quic_.fail_application(NGHTTP3_H3_INTERNAL_ERROR, "cannot create an nghttp3 connection");
    broken_ = true;
    return false;
  }
  return true;
}

void Http3Session::reset() {
  // The handshake is done: the peer's transport parameters allow our
  // unidirectional streams now (control with SETTINGS, QPACK encoder/decoder).
  std::int64_t control = -1;
  std::int64_t encoder = -1;
  std::int64_t decoder = -1;
  if (h3_ == nullptr || !quic_.open_uni_stream(control) || !quic_.open_uni_stream(encoder) ||
      !quic_.open_uni_stream(decoder)) {
    quic_.fail_application(NGHTTP3_H3_INTERNAL_ERROR, "the server allows no unidirectional stream");
    broken_ = true;
    return;
  }
  int rv = nghttp3_conn_bind_control_stream(h3_, control);
  if (rv == 0) rv = nghttp3_conn_bind_qpack_streams(h3_, encoder, decoder);
  if (rv != 0) h3_failed(rv, "cannot bind the control streams");
}

std::uint32_t Http3Session::capacity() const {
  if (h3_ == nullptr || broken_ || goaway_ || quic_.ending() != Ending::kNone) return 0;
  const std::uint64_t left = quic_.bidi_streams_left();
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(streams_, in_flight_ + left));
}

void Http3Session::submit(std::uint32_t token, std::uint32_t target) {
  target_of_[token] = target;
  const Http3Request& request = requests_[target];
  std::int64_t id = -1;
  if (!quic_.open_bidi_stream(id, as_user_data(token))) {
    // capacity() said there was room: the stream limit moved under us. The
    // request stays in flight until its --timeout; no new ones are taken.
    broken_ = true;
    error_reason_ = "HTTP/3: no stream available (MAX_STREAMS)";
    stream_of_[token] = -2;
    ++in_flight_;
    return;
  }
  nghttp3_data_reader reader{Http3Glue::read_body};
  const int rv = nghttp3_conn_submit_request(h3_, id, request.headers(), request.header_count(),
                                             request.has_body() ? &reader : nullptr, as_user_data(token));
  stream_of_[token] = id;
  status_[token] = 0;
  body_bytes_[token] = 0;
  if (keep_server_) server_[token].clear();
  ++in_flight_;
  if (rv != 0) h3_failed(rv, "cannot submit a request");
}

bool Http3Session::fill_datagrams(TimeNs now) {
  if (!quic_.active()) return false;
  if (!out_.full() && !quic_.write_packets(out_, now)) broken_ = true;
  return !broken_ || !out_.empty();
}

std::span<const char> Http3Session::pending_output() {
  if (out_.empty()) fill_datagrams(monotonic_now_ns());
  if (out_.empty()) return {};
  return {reinterpret_cast<const char*>(out_.packet(out_.first())), out_.length(out_.first())};
}

void Http3Session::consume(std::size_t) { out_.sent(1); }

bool Http3Session::receive_datagram(const std::uint8_t* data, std::size_t length, TimeNs now, proto::SessionEvents& events) {
  events_ = &events;  // kept: timers can end streams too
  if (quic_.read_packet(data, length, now)) return true;
  broken_ = true;
  return false;
}

bool Http3Session::receive(const char* data, std::size_t len, proto::SessionEvents& events) {
  return receive_datagram(reinterpret_cast<const std::uint8_t*>(data), len, monotonic_now_ns(), events);
}

bool Http3Session::finish(proto::SessionEvents&) { return true; }  // UDP: no end of stream

bool Http3Session::cancel(std::uint32_t token) {
  const std::int64_t id = stream_of_[token];
  if (id < 0 && id != -2) return !broken_;
  stream_of_[token] = -1;
  --in_flight_;
  if (id >= 0 && h3_ != nullptr) {
    nghttp3_conn_shutdown_stream_read(h3_, id);
    quic_.shutdown_stream(id, NGHTTP3_H3_REQUEST_CANCELLED);  // RESET_STREAM and STOP_SENDING
  }
  return !broken_ && quic_.ending() == Ending::kNone;
}

const char* Http3Session::error_reason() const {
  return quic_.ending() != Ending::kNone ? quic_.reason() : error_reason_;
}

bool Http3Session::on_timer(TimeNs now) {
  if (quic_.handle_expiry(now)) return true;
  broken_ = true;
  return false;
}

void Http3Session::close(TimeNs now) {
  out_.clear();
  quic_.write_close(out_, now);
}

// ---- quic::StreamHandler ------------------------------------------------------

int Http3Session::on_stream_data(std::int64_t id, const std::uint8_t* data, std::size_t length, bool fin) {
  if (h3_ == nullptr) return -1;
  const nghttp3_ssize consumed = nghttp3_conn_read_stream(h3_, id, data, length, fin ? 1 : 0);
  if (consumed < 0) return h3_failed(static_cast<int>(consumed), "cannot parse the server's stream");
  quic_.consumed(id, static_cast<std::size_t>(consumed));  // frames and headers (bodies: recv_data)
  return 0;
}

int Http3Session::on_acked(std::int64_t id, std::uint64_t bytes) {
  const int rv = nghttp3_conn_add_ack_offset(h3_, id, bytes);
  return rv == 0 ? 0 : h3_failed(rv, "ack offset");
}

int Http3Session::on_stream_close(std::int64_t id, std::uint64_t code) {
  if (h3_ == nullptr) return 0;
  const int rv = nghttp3_conn_close_stream(h3_, id, code);
  if (rv == 0 || rv == NGHTTP3_ERR_STREAM_NOT_FOUND) return 0;
  return h3_failed(rv, "a critical stream was closed");
}

int Http3Session::on_stream_reset(std::int64_t id, std::uint64_t) {
  if (h3_ == nullptr) return 0;
  // The request fails now (kStreamReset); nghttp3 drops what is left of the stream.
  for (std::uint32_t t = 0; t < streams_; ++t) {
    if (stream_of_[t] == id) {
      fail_request(t, proto::RequestFailure::kStreamReset);
      break;
    }
  }
  const int rv = nghttp3_conn_shutdown_stream_read(h3_, id);
  return rv == 0 ? 0 : h3_failed(rv, "stream reset");
}

int Http3Session::on_stop_sending(std::int64_t id, std::uint64_t) {
  if (h3_ == nullptr) return 0;
  const int rv = nghttp3_conn_shutdown_stream_read(h3_, id);
  return rv == 0 ? 0 : h3_failed(rv, "stop sending");
}

int Http3Session::on_stream_unblocked(std::int64_t id) {
  if (h3_ == nullptr) return 0;
  const int rv = nghttp3_conn_unblock_stream(h3_, id);
  return rv == 0 || rv == NGHTTP3_ERR_STREAM_NOT_FOUND ? 0 : h3_failed(rv, "unblock stream");
}

long Http3Session::next_stream_data(std::int64_t* id, int* fin, ngtcp2_vec* vec, std::size_t count) {
  *id = -1;
  *fin = 0;
  if (h3_ == nullptr || !quic_.handshake_completed()) return 0;
  std::array<nghttp3_vec, 16> v{};
  const nghttp3_ssize n = nghttp3_conn_writev_stream(h3_, id, fin, v.data(), std::min(count, v.size()));
  if (n < 0) return h3_failed(static_cast<int>(n), "cannot write a stream");
  for (nghttp3_ssize i = 0; i < n; ++i) vec[i] = *compat::as_ngtcp2(&v[static_cast<std::size_t>(i)]);
  return n;
}

int Http3Session::on_written(std::int64_t id, std::size_t bytes) {
  if (id < 0 || h3_ == nullptr) return 0;
  const int rv = nghttp3_conn_add_write_offset(h3_, id, bytes);
  return rv == 0 ? 0 : h3_failed(rv, "write offset");
}

void Http3Session::on_stream_blocked(std::int64_t id) {
  if (h3_ != nullptr) nghttp3_conn_block_stream(h3_, id);
}

void Http3Session::on_stream_shut(std::int64_t id) {
  if (h3_ != nullptr) nghttp3_conn_shutdown_stream_write(h3_, id);
}

// ---- requests -------------------------------------------------------------------

std::int64_t Http3Session::token_of(std::int64_t id, void* stream_user_data) const {
  if (stream_user_data == nullptr) return -1;
  const auto token = reinterpret_cast<std::uintptr_t>(stream_user_data) - 1;
  if (token >= streams_ || stream_of_[token] != id) return -1;
  return static_cast<std::int64_t>(token);
}

void Http3Session::complete(std::uint32_t token) {
  stream_of_[token] = -1;
  --in_flight_;
  if (events_ != nullptr) events_->on_response(token, status_[token]);
}

void Http3Session::fail_request(std::uint32_t token, proto::RequestFailure why) {
  stream_of_[token] = -1;
  --in_flight_;
  if (events_ != nullptr) events_->on_request_failed(token, why);
}

void Http3Session::refuse_from(std::int64_t first_unprocessed) {
  goaway_ = true;
  for (std::uint32_t t = 0; t < streams_; ++t) {
    if (stream_of_[t] >= first_unprocessed) fail_request(t, proto::RequestFailure::kRefused);
  }
}

int Http3Session::h3_failed(int rv, const char* what) {
  if (!nghttp3_err_is_fatal(rv)) return 0;
  quic_.fail_application(nghttp3_err_infer_quic_app_error_code(rv), what);
  broken_ = true;
  return -1;
}

}  // namespace pacer::quic
