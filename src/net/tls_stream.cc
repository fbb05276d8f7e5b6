// TlsStream: handshake steps, plaintext reads and writes, failure reasons. See
// tls_stream.h. OpenSSL's error queue is thread-local; this file leaves it empty
// after every failure, so the next SSL_get_error sees only its own call.
#include "net/tls_stream.h"

#include <openssl/err.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace pacer::net {

bool TlsStream::attach(const TlsContext& context, int fd) {
  close();
  if (!state_) state_ = std::make_unique<State>();
  *state_ = State{};
  state_->ssl.reset(SSL_new(context.get()));
  if (!state_->ssl) {
    ERR_clear_error();
    return false;
  }
  BIO* bio = BIO_new(context.bio_method());
  if (bio == nullptr) {
    state_->ssl.reset();
    ERR_clear_error();
    return false;
  }
  BIO_set_data(bio, new BioSocket{fd, 0});  // freed with the BIO
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl(), bio, bio);  // the SSL owns the BIO (one reference for both directions)
  return true;
}

bool TlsStream::start_client(const TlsContext& context, int fd, TlsSessionCache* cache) {
  if (!attach(context, fd)) return false;
  SSL_set_connect_state(ssl());
  if (context.sends_sni() && SSL_set_tlsext_host_name(ssl(), context.server_name().c_str()) != 1) {
    state_->ssl.reset();
    ERR_clear_error();
    return false;
  }
  if (context.resumes_sessions() && cache != nullptr) {
    SSL_set_app_data(ssl(), cache);
    cache->offer_to(ssl());
  }
  return true;
}

bool TlsStream::start_server(const TlsContext& context, int fd) {
  if (!attach(context, fd)) return false;
  SSL_set_accept_state(ssl());
  return true;
}

IoStatus TlsStream::handshake() {
  const int rc = SSL_do_handshake(ssl());
  if (rc == 1) {
    state_->established = true;
    return IoStatus::kOk;
  }
  const IoResult r = failed(rc);
  // Mid-handshake, a peer's close is a failed handshake, not a clean end.
  if (r.status == IoStatus::kClosed || r.status == IoStatus::kError) {
    if (state_->error_code == 0 && state_->socket_errno == 0) state_->socket_errno = ECONNRESET;
    return IoStatus::kTlsError;
  }
  return r.status;
}

BioSocket* TlsStream::socket() const { return static_cast<BioSocket*>(BIO_get_data(SSL_get_rbio(ssl()))); }

TimeNs TlsStream::receive_stamp() const { return active() ? socket()->stamp : 0; }

bool TlsStream::drained() const { return active() && socket()->drained && SSL_has_pending(ssl()) == 0; }

IoResult TlsStream::read(char* buffer, std::size_t length) {
  std::size_t got = 0;
  errno = 0;
  // Only this read's socket reads count: data served from OpenSSL's buffer says
  // nothing about what arrived in the socket since (its edge may be the one
  // being handled now).
  BioSocket* s = socket();
  s->stamp = 0;
  s->drained = false;
  const int rc = SSL_read_ex(ssl(), buffer, length, &got);
  if (rc == 1) return IoResult{got, IoStatus::kOk, 0};
  return failed(rc);
}

IoResult TlsStream::write(const char* data, std::size_t length) {
  std::size_t put = 0;
  errno = 0;
  const int rc = SSL_write_ex(ssl(), data, length, &put);
  if (rc == 1) return IoResult{put, IoStatus::kOk, 0};
  return failed(rc);
}

IoResult TlsStream::failed(int rc) {
  const int socket_errno = errno;
  switch (SSL_get_error(ssl(), rc)) {
    case SSL_ERROR_WANT_READ: return IoResult{0, IoStatus::kWantRead, 0};
    case SSL_ERROR_WANT_WRITE: return IoResult{0, IoStatus::kWantWrite, 0};
    case SSL_ERROR_ZERO_RETURN: return IoResult{0, IoStatus::kClosed, 0};
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (socket_errno == 0) return IoResult{0, IoStatus::kClosed, 0};
      state_->socket_errno = socket_errno;
      return IoResult{0, IoStatus::kError, socket_errno};
    default:
      state_->error_code = ERR_peek_error();
      state_->verify_result = SSL_get_verify_result(ssl());
      ERR_clear_error();
      return IoResult{0, IoStatus::kTlsError, 0};
  }
}

void TlsStream::close() {
  if (!active()) return;
  // One close_notify, never waiting for the peer's: the socket closes next.
  if (state_->established) {
    SSL_shutdown(ssl());
    // Also when SSL_shutdown declined (a post-handshake message half read):
    // OpenSSL would otherwise mark the session this connection resumed (often
    // the one the worker's cache holds) as not resumable when the SSL is freed.
    SSL_set_shutdown(ssl(), SSL_get_shutdown(ssl()) | SSL_SENT_SHUTDOWN);
  }
  ERR_clear_error();
  state_->ssl.reset();
  state_->established = false;
}

bool TlsStream::resumed() const { return active() && SSL_session_reused(ssl()) == 1; }

std::string_view TlsStream::alpn() const {
  if (!active()) return {};
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl(), &name, &length);
  return name == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(name), length);
}

std::string_view TlsStream::protocol() const { return active() ? SSL_get_version(ssl()) : std::string_view(); }

std::string_view TlsStream::cipher() const {
  if (!active()) return {};
  const char* name = SSL_get_cipher_name(ssl());
  return name == nullptr ? std::string_view() : std::string_view(name);
}

void TlsStream::describe_failure(std::span<char> out) const {
  if (out.empty()) return;
  const State none;
  const State& st = state_ ? *state_ : none;
  const char* reason = st.error_code != 0 ? ERR_reason_error_string(st.error_code) : nullptr;
  if (reason == nullptr && st.error_code != 0) reason = "TLS error";
  if (reason != nullptr && st.verify_result != X509_V_OK) {
    std::snprintf(out.data(), out.size(), "%s: %s", reason, X509_verify_cert_error_string(st.verify_result));
  } else if (reason != nullptr) {
    std::snprintf(out.data(), out.size(), "%s", reason);
  } else if (st.socket_errno != 0) {
    std::snprintf(out.data(), out.size(), "TLS handshake: %s", std::strerror(st.socket_errno));
  } else {
    std::snprintf(out.data(), out.size(), "TLS error");
  }
}

}  // namespace pacer::net
