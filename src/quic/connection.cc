// A QUIC client connection over ngtcp2 + GnuTLS, in memory. See connection.h.
#include "quic/connection.h"

#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <sys/random.h>

#include <cstdio>
#include <cstring>
#include <limits>

#include "quic/compat.h"

namespace pacer::quic {

namespace {

constexpr TimeNs kNoTimer = std::numeric_limits<TimeNs>::max();
// Windows: 1 MiB per stream and 16 MiB per connection to start with; ngtcp2
// widens them (auto-tuning) up to the maxima as the application consumes.
constexpr std::uint64_t kStreamWindow = 1024 * 1024;
constexpr std::uint64_t kConnectionWindow = 16 * 1024 * 1024;
constexpr std::uint64_t kMaxStreamWindow = 6 * 1024 * 1024;
constexpr std::uint64_t kMaxConnectionWindow = 64 * 1024 * 1024;

void fill_random(std::uint8_t* out, std::size_t length) {
  while (length > 0) {
    const ssize_t n = ::getrandom(out, length, 0);
    if (n <= 0) continue;  // EINTR
    out += n;
    length -= static_cast<std::size_t>(n);
  }
}

// ngtcp2's connection user data: the application's stream handler.
StreamHandler& handler_of(void* user_data) { return *static_cast<StreamHandler*>(user_data); }

void on_rand(std::uint8_t* dest, std::size_t length, const ngtcp2_rand_ctx*) { fill_random(dest, length); }

int on_new_cid(ngtcp2_conn*, ngtcp2_cid* cid, std::uint8_t* token, std::size_t cidlen, void*) {
  fill_random(cid->data, cidlen);
  cid->datalen = cidlen;
  fill_random(token, NGTCP2_STATELESS_RESET_TOKENLEN);
  return 0;
}

ngtcp2_addr as_addr(net::Address& a) {
  return ngtcp2_addr{reinterpret_cast<ngtcp2_sockaddr*>(&a.storage), static_cast<ngtcp2_socklen>(a.length)};
}

// The packets-decrypted count of the connection whose ngtcp2_conn_read_pkt runs
// on this thread, set only for the duration of that call: ngtcp2's decrypt
// callback carries no user data, and a packet that decrypts is one that reached
// the connection (read_packet).
thread_local std::uint64_t* t_decrypted = nullptr;

// The ngtcp2 callbacks the application sees (user data: its StreamHandler).
int on_decrypt(std::uint8_t* dest, const ngtcp2_crypto_aead* aead, const ngtcp2_crypto_aead_ctx* aead_ctx,
               const std::uint8_t* ciphertext, std::size_t ciphertext_len, const std::uint8_t* nonce,
               std::size_t nonce_len, const std::uint8_t* aad, std::size_t aad_len) {
  const int rv = ngtcp2_crypto_decrypt_cb(dest, aead, aead_ctx, ciphertext, ciphertext_len, nonce, nonce_len, aad,
                                          aad_len);
  if (rv == 0 && t_decrypted != nullptr) ++*t_decrypted;
  return rv;
}
int on_recv_stream_data(ngtcp2_conn*, std::uint32_t flags, std::int64_t id, std::uint64_t, const std::uint8_t* data,
                        std::size_t length, void* user, void*) {
  const int rv = handler_of(user).on_stream_data(id, data, length, (flags & NGTCP2_STREAM_DATA_FLAG_FIN) != 0);
  return rv < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}
int on_acked(ngtcp2_conn*, std::int64_t id, std::uint64_t, std::uint64_t length, void* user, void*) {
  return handler_of(user).on_acked(id, length) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}
int on_stream_close(ngtcp2_conn*, std::uint32_t flags, std::int64_t id, std::uint64_t code, void* user, void*) {
  if ((flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET) == 0) code = NGHTTP3_H3_NO_ERROR;
  return handler_of(user).on_stream_close(id, code) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}
int on_stream_reset(ngtcp2_conn*, std::int64_t id, std::uint64_t, std::uint64_t code, void* user, void*) {
  return handler_of(user).on_stream_reset(id, code) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}
int on_stop_sending(ngtcp2_conn*, std::int64_t id, std::uint64_t code, void* user, void*) {
  return handler_of(user).on_stop_sending(id, code) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}
int on_extend_max_stream_data(ngtcp2_conn*, std::int64_t id, std::uint64_t, void* user, void*) {
  return handler_of(user).on_stream_unblocked(id) < 0 ? NGTCP2_ERR_CALLBACK_FAILURE : 0;
}

}  // namespace

ngtcp2_callbacks Connection::callbacks() {
  ngtcp2_callbacks cb{};
  cb.client_initial = ngtcp2_crypto_client_initial_cb;
  cb.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb;
  cb.encrypt = ngtcp2_crypto_encrypt_cb;
  cb.decrypt = on_decrypt;
  cb.hp_mask = ngtcp2_crypto_hp_mask_cb;
  cb.recv_retry = ngtcp2_crypto_recv_retry_cb;
  cb.update_key = ngtcp2_crypto_update_key_cb;
  cb.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb;
  cb.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb;
  cb.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb;
  cb.version_negotiation = ngtcp2_crypto_version_negotiation_cb;
  cb.rand = on_rand;
  cb.get_new_connection_id = on_new_cid;
  cb.recv_stream_data = on_recv_stream_data;
  cb.acked_stream_data_offset = on_acked;
  cb.stream_close = on_stream_close;
  cb.stream_reset = on_stream_reset;
  cb.stream_stop_sending = on_stop_sending;
  cb.extend_max_stream_data = on_extend_max_stream_data;
  return cb;
}

Connection::Connection() {
  ref_.get_conn = &Connection::conn_of;
  ref_.user_data = this;
}

Connection::~Connection() { reset(); }

ngtcp2_conn* Connection::conn_of(ngtcp2_crypto_conn_ref* ref) { return static_cast<Connection*>(ref->user_data)->conn_; }

int Connection::on_ticket(gnutls_session_t session, unsigned, unsigned, unsigned, const gnutls_datum_t*) {
  auto* ref = static_cast<ngtcp2_crypto_conn_ref*>(gnutls_session_get_ptr(session));
  Connection& c = *static_cast<Connection*>(ref->user_data);
  gnutls_datum_t data{};
  if (c.tickets_ != nullptr && gnutls_session_get_data2(session, &data) == GNUTLS_E_SUCCESS) {
    c.tickets_->store(data);
    gnutls_free(data.data);
  }
  return 0;
}

bool Connection::start(const ConnectionSetup& setup, StreamHandler* handler, TimeNs now) {
  reset();
  handler_ = handler;
  const auto& tls = static_cast<const TlsClient&>(*setup.tls);
  tickets_ = tls.resumes() ? static_cast<TicketCache*>(setup.tickets) : nullptr;
  local_ = setup.local;
  remote_ = setup.remote;
  ngtcp2_cid dcid{};
  ngtcp2_cid scid{};
  dcid.datalen = 18;
  fill_random(dcid.data, dcid.datalen);
  scid.datalen = 17;
  fill_random(scid.data, scid.datalen);
  ngtcp2_settings settings;
  ngtcp2_settings_default(&settings);
  settings.initial_ts = static_cast<ngtcp2_tstamp>(now);
  settings.max_tx_udp_payload_size = net::kMaxTxPayload;
  settings.no_pmtud = 1;
  settings.handshake_timeout = std::numeric_limits<ngtcp2_duration>::max();  // --timeout governs (the worker)
  settings.max_stream_window = kMaxStreamWindow;
  settings.max_window = kMaxConnectionWindow;
  ngtcp2_transport_params params;
  ngtcp2_transport_params_default(&params);
  params.initial_max_stream_data_bidi_local = kStreamWindow;
  params.initial_max_stream_data_uni = 256 * 1024;
  params.initial_max_data = kConnectionWindow;
  params.initial_max_streams_bidi = 0;
  params.initial_max_streams_uni = 3;  // the server's control and QPACK streams
  params.max_idle_timeout = static_cast<ngtcp2_duration>(setup.idle_timeout_ns);
  params.max_udp_payload_size = net::kMaxRxPayload;
  ngtcp2_path path{as_addr(local_), as_addr(remote_), nullptr};
  const ngtcp2_callbacks cb = callbacks();
  if (const int rv = ngtcp2_conn_client_new(&conn_, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1, &cb, &settings, &params,
                                            setup.mem, handler);
      rv != 0) {
    conn_ = nullptr;
    std::snprintf(reason_.data(), reason_.size(), "QUIC: cannot create a connection: %s", ngtcp2_strerror(rv));
    ending_ = Ending::kFailed;
    return false;
  }
  session_ = tls.new_session(&ref_, tickets_);
  if (session_ == nullptr) {
    std::snprintf(reason_.data(), reason_.size(), "QUIC: cannot create a GnuTLS session");
    ending_ = Ending::kFailed;
    reset();
    return false;
  }
  if (tickets_ != nullptr) {
    gnutls_handshake_set_hook_function(session_, GNUTLS_HANDSHAKE_NEW_SESSION_TICKET, GNUTLS_HOOK_POST, on_ticket);
  }
  ngtcp2_conn_set_tls_native_handle(conn_, session_);
  return true;
}

void Connection::reset() {
  if (conn_ != nullptr) ngtcp2_conn_del(conn_);
  conn_ = nullptr;
  if (session_ != nullptr) gnutls_deinit(session_);
  session_ = nullptr;
  ending_ = Ending::kNone;
  peer_closed_ = false;
  graceful_ = false;
  close_code_ = NGHTTP3_H3_NO_ERROR;
  close_is_transport_ = false;
  close_liberr_ = 0;
  reason_[0] = '\0';
}

bool Connection::handshake_completed() const { return conn_ != nullptr && ngtcp2_conn_get_handshake_completed(conn_); }

bool Connection::resumed() const { return session_ != nullptr && gnutls_session_is_resumed(session_) != 0; }

bool Connection::read_packet(const std::uint8_t* data, std::size_t length, TimeNs now) {
  last_accepted_ = false;
  if (conn_ == nullptr || ending_ != Ending::kNone) return false;
  ngtcp2_pkt_info pi{};
  const std::uint64_t decrypted_before = packets_decrypted_;
  t_decrypted = &packets_decrypted_;
  const int rv = ngtcp2_conn_read_pkt(conn_, ngtcp2_conn_get_path(conn_), &pi, data, length,
                                      static_cast<ngtcp2_tstamp>(now));
  t_decrypted = nullptr;
  last_accepted_ = packets_decrypted_ > decrypted_before;
  return rv == 0 || fail(rv);
}

bool Connection::write_packets(net::PacketBatch& out, TimeNs now) {
  if (conn_ == nullptr || ending_ != Ending::kNone) return false;
  const auto ts = static_cast<ngtcp2_tstamp>(now);
  const std::size_t max_payload = std::min(net::kMaxTxPayload, ngtcp2_conn_get_max_tx_udp_payload_size(conn_));
  while (!out.full()) {
    std::int64_t stream_id = -1;
    int fin = 0;
    std::array<ngtcp2_vec, 16> vec{};
    long count = 0;
    if (handler_ != nullptr) {
      count = handler_->next_stream_data(&stream_id, &fin, vec.data(), vec.size());
      if (count < 0) return false;  // the handler failed the connection (fail_application)
    }
    std::uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
    if (fin != 0) flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
    ngtcp2_ssize written = -1;
    const ngtcp2_ssize n = ngtcp2_conn_writev_stream(conn_, nullptr, nullptr, out.slot(), max_payload, &written, flags,
                                                     stream_id, vec.data(), static_cast<std::size_t>(count), ts);
    if (n < 0) {
      switch (n) {
        case NGTCP2_ERR_WRITE_MORE:  // the packet has room for more: the next stream's data goes in too
          if (handler_->on_written(stream_id, static_cast<std::size_t>(written)) < 0) return false;
          continue;
        case NGTCP2_ERR_STREAM_DATA_BLOCKED:  // flow control: this stream waits for MAX_STREAM_DATA
          handler_->on_stream_blocked(stream_id);
          continue;
        case NGTCP2_ERR_STREAM_SHUT_WR:  // reset (by us or STOP_SENDING): nothing more goes on it
          handler_->on_stream_shut(stream_id);
          continue;
        default:
          return fail(static_cast<int>(n));
      }
    }
    if (written >= 0 && handler_->on_written(stream_id, static_cast<std::size_t>(written)) < 0) return false;
    if (n == 0) break;  // nothing to send now (or the congestion window is full)
    out.commit(static_cast<std::size_t>(n));
  }
  ngtcp2_conn_update_pkt_tx_time(conn_, ts);
  return true;
}

TimeNs Connection::expiry() const {
  if (conn_ == nullptr || ending_ != Ending::kNone) return kNoTimer;
  const ngtcp2_tstamp t = ngtcp2_conn_get_expiry(conn_);
  return t >= static_cast<ngtcp2_tstamp>(kNoTimer) ? kNoTimer : static_cast<TimeNs>(t);
}

bool Connection::handle_expiry(TimeNs now) {
  if (conn_ == nullptr || ending_ != Ending::kNone) return false;
  const int rv = ngtcp2_conn_handle_expiry(conn_, static_cast<ngtcp2_tstamp>(now));
  return rv == 0 || fail(rv);
}

void Connection::write_close(net::PacketBatch& out, TimeNs now) {
  if (conn_ == nullptr || peer_closed_ || out.full() || ending_ == Ending::kIdle) return;
  if (ngtcp2_conn_is_in_closing_period(conn_) || ngtcp2_conn_is_in_draining_period(conn_)) return;
  compat::CloseError e{};
  compat::close_error_default(e);
  if (close_is_transport_) {
    compat::set_liberr(e, close_liberr_);
  } else {
    compat::set_application_error(e, close_code_);
  }
  const ngtcp2_ssize n = compat::write_connection_close(conn_, out.slot(), net::kMaxTxPayload, e,
                                                        static_cast<ngtcp2_tstamp>(now));
  if (n > 0) out.commit(static_cast<std::size_t>(n));
}

bool Connection::open_bidi_stream(std::int64_t& stream_id, void* user_data) {
  return ngtcp2_conn_open_bidi_stream(conn_, &stream_id, user_data) == 0;
}

bool Connection::open_uni_stream(std::int64_t& stream_id) {
  return ngtcp2_conn_open_uni_stream(conn_, &stream_id, nullptr) == 0;
}

void Connection::shutdown_stream(std::int64_t stream_id, std::uint64_t app_error_code) {
  compat::shutdown_stream(conn_, stream_id, app_error_code);
}

void Connection::shutdown_stream_write(std::int64_t stream_id, std::uint64_t app_error_code) {
  compat::shutdown_stream_write(conn_, stream_id, app_error_code);
}

void Connection::shutdown_stream_read(std::int64_t stream_id, std::uint64_t app_error_code) {
  compat::shutdown_stream_read(conn_, stream_id, app_error_code);
}

void Connection::consumed(std::int64_t stream_id, std::size_t bytes) {
  if (bytes == 0) return;
  ngtcp2_conn_extend_max_stream_offset(conn_, stream_id, bytes);
  ngtcp2_conn_extend_max_offset(conn_, bytes);
}

std::uint64_t Connection::bidi_streams_left() const {
  return conn_ == nullptr ? 0 : ngtcp2_conn_get_streams_bidi_left(conn_);
}

void Connection::fail_application(std::uint64_t app_error_code, const char* why) {
  if (ending_ != Ending::kNone) return;
  ending_ = Ending::kFailed;
  close_code_ = app_error_code;
  std::snprintf(reason_.data(), reason_.size(), "HTTP/3: %s", why);
}

bool Connection::fail(int liberr) {
  if (ending_ != Ending::kNone) return false;  // the handler already said why
  switch (liberr) {
    case NGTCP2_ERR_DRAINING:
    case NGTCP2_ERR_CLOSING:
      peer_closed_ = true;
      describe_peer_close();
      break;
    case NGTCP2_ERR_IDLE_CLOSE:
      ending_ = Ending::kIdle;
      std::snprintf(reason_.data(), reason_.size(), "QUIC: idle timeout (no packet from the server)");
      break;
    case NGTCP2_ERR_CRYPTO:
      ending_ = Ending::kTls;
      TlsClient::describe_failure(session_, ngtcp2_conn_get_tls_error(conn_), ngtcp2_conn_get_tls_alert(conn_), reason_);
      close_is_transport_ = true;
      close_liberr_ = liberr;
      break;
    default:
      ending_ = Ending::kFailed;
      std::snprintf(reason_.data(), reason_.size(), "QUIC: %s", ngtcp2_strerror(liberr));
      close_is_transport_ = true;
      close_liberr_ = liberr;
      break;
  }
  return false;
}

void Connection::describe_peer_close() {
  compat::CloseError e{};
  compat::peer_close_error(conn_, e);
  const auto code = static_cast<unsigned long long>(e.error_code);
  const int reason_length = static_cast<int>(std::min<std::size_t>(e.reasonlen, 120));
  const char* text = e.reason != nullptr ? reinterpret_cast<const char*>(e.reason) : "";
  // A crypto error (0x100-0x1ff: a TLS alert) before the handshake completed is a TLS failure.
  if (!compat::is_application_error(e) && code >= 0x100 && code <= 0x1ff && !handshake_completed()) {
    ending_ = Ending::kTls;
    const char* alert = gnutls_alert_get_strname(static_cast<gnutls_alert_description_t>(code - 0x100));
    std::snprintf(reason_.data(), reason_.size(), "TLS handshake failed: the server sent alert %s%s%.*s",
                  alert != nullptr ? alert : "unknown", reason_length > 0 ? ": " : "", reason_length, text);
    return;
  }
  ending_ = Ending::kPeerClosed;
  graceful_ = compat::is_application_error(e) ? code == NGHTTP3_H3_NO_ERROR : code == NGTCP2_NO_ERROR;
  std::snprintf(reason_.data(), reason_.size(), "QUIC: the server closed the connection with %s error 0x%llx%s%.*s",
                compat::is_application_error(e) ? "application" : "transport", code, reason_length > 0 ? ": " : "",
                reason_length, text);
}

}  // namespace pacer::quic
