// Http3Session: nghttp3 over quic::Connection, in memory. See http3_session.h.
#include "quic/http3_session.h"

#include <strings.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "quic/compat.h"

namespace pacer::quic {

namespace {

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

Http3Session::Http3Session(std::span<const Http3Request> requests, std::uint32_t streams, proto::H2Memory& memory)
    : memory_(memory), requests_(requests, std::max<std::uint32_t>(streams, 1), quic_) {
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
  requests_.clear();
}

bool Http3Session::start(const SessionSetup& setup, TimeNs now) {
  drop();
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
  const nghttp3_callbacks cb = RequestStreams::callbacks();
  nghttp3_settings settings;
  nghttp3_settings_default(&settings);
  if (nghttp3_conn_client_new(&h3_, &cb, &settings, &nghttp3_mem_, &requests_) != 0) {
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
  if (h3_ == nullptr || broken_ || requests_.refused() || quic_.ending() != Ending::kNone) return 0;
  const std::uint64_t left = quic_.bidi_streams_left();
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(requests_.streams(), requests_.in_flight() + left));
}

void Http3Session::submit(std::uint32_t token, std::uint32_t target) {
  const Http3Request& request = requests_.request(target);
  std::int64_t id = -1;
  if (!quic_.open_bidi_stream(id, RequestStreams::user_data(token))) {
    // capacity() said there was room: the stream limit moved under us. The
    // request stays in flight until its --timeout; no new ones are taken.
    broken_ = true;
    error_reason_ = "HTTP/3: no stream available (MAX_STREAMS)";
    requests_.submitted(token, target, -2);
    return;
  }
  requests_.submitted(token, target, id);
  const nghttp3_data_reader reader = RequestStreams::body_reader();
  const int rv = nghttp3_conn_submit_request(h3_, id, request.headers(), request.header_count(),
                                             request.has_body() ? &reader : nullptr, RequestStreams::user_data(token));
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
  requests_.set_events(&events);  // kept: timers can end streams too
  if (quic_.read_packet(data, length, now)) return true;
  broken_ = true;
  return false;
}

bool Http3Session::receive(const char* data, std::size_t len, proto::SessionEvents& events) {
  return receive_datagram(reinterpret_cast<const std::uint8_t*>(data), len, monotonic_now_ns(), events);
}

bool Http3Session::finish(proto::SessionEvents&) { return true; }  // UDP: no end of stream

bool Http3Session::cancel(std::uint32_t token) {
  const std::optional<std::int64_t> id = requests_.cancel(token);
  if (!id) return !broken_;
  if (*id >= 0 && h3_ != nullptr) {
    nghttp3_conn_shutdown_stream_read(h3_, *id);
    quic_.shutdown_stream(*id, NGHTTP3_H3_REQUEST_CANCELLED);  // RESET_STREAM and STOP_SENDING
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
  requests_.reset_by_peer(id);
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

int Http3Session::h3_failed(int rv, const char* what) {
  if (!nghttp3_err_is_fatal(rv)) return 0;
  quic_.fail_application(nghttp3_err_infer_quic_app_error_code(rv), what);
  broken_ = true;
  return -1;
}

}  // namespace pacer::quic
