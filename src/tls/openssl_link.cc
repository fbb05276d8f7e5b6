// OpenSslLink: handshake steps, plaintext reads and writes, failure reasons. See
// openssl_link.h. OpenSSL's error queue is thread-local; this file leaves it empty
// after every failure, so the next SSL_get_error sees only its own call.
#include "tls/openssl_link.h"

#include <openssl/err.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tls/openssl_sessions.h"

namespace pacer::tls {

using net::IoResult;
using net::IoStatus;

bool OpenSslLink::attach(const OpenSslContext& context, int fd) {
  close();
  established_ = false;
  error_code_ = 0;
  verify_result_ = X509_V_OK;
  socket_errno_ = 0;
  ssl_.reset(SSL_new(context.get()));
  if (!ssl_) {
    ERR_clear_error();
    return false;
  }
  BIO* bio = BIO_new(context.bio_method());
  if (bio == nullptr) {
    ssl_.reset();
    ERR_clear_error();
    return false;
  }
  BIO_set_data(bio, new BioSocket{fd, 0});  // freed with the BIO
  BIO_set_init(bio, 1);
  SSL_set_bio(ssl(), bio, bio);  // the SSL owns the BIO (one reference for both directions)
  return true;
}

bool OpenSslLink::start_client(const Context& context, int fd, Sessions* sessions) {
  const auto& openssl = static_cast<const OpenSslContext&>(context);
  if (!attach(openssl, fd)) return false;
  SSL_set_connect_state(ssl());
  const ContextFacts& facts = context.facts();
  if (facts.sends_sni && SSL_set_tlsext_host_name(ssl(), facts.server_name.c_str()) != 1) {
    ssl_.reset();
    ERR_clear_error();
    return false;
  }
  if (facts.resumes_sessions && sessions != nullptr) {
    auto* cache = static_cast<OpenSslSessions*>(sessions);
    SSL_set_app_data(ssl(), cache);
    cache->offer_to(ssl());
  }
  return true;
}

bool OpenSslLink::start_server(const Context& context, int fd) {
  if (!attach(static_cast<const OpenSslContext&>(context), fd)) return false;
  SSL_set_accept_state(ssl());
  return true;
}

IoStatus OpenSslLink::handshake() {
  const int rc = SSL_do_handshake(ssl());
  if (rc == 1) {
    established_ = true;
    return IoStatus::kOk;
  }
  const IoResult r = failed(rc);
  // Mid-handshake, a peer's close is a failed handshake, not a clean end.
  if (r.status == IoStatus::kClosed || r.status == IoStatus::kError) {
    if (error_code_ == 0 && socket_errno_ == 0) socket_errno_ = ECONNRESET;
    return IoStatus::kTlsError;
  }
  return r.status;
}

BioSocket* OpenSslLink::socket() const { return static_cast<BioSocket*>(BIO_get_data(SSL_get_rbio(ssl()))); }

TimeNs OpenSslLink::receive_stamp() const { return active() ? socket()->stamp : 0; }

bool OpenSslLink::drained() const { return active() && socket()->drained && SSL_has_pending(ssl()) == 0; }

IoResult OpenSslLink::read(char* buffer, std::size_t length) {
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

IoResult OpenSslLink::write(const char* data, std::size_t length) {
  std::size_t put = 0;
  errno = 0;
  const int rc = SSL_write_ex(ssl(), data, length, &put);
  if (rc == 1) return IoResult{put, IoStatus::kOk, 0};
  return failed(rc);
}

IoResult OpenSslLink::failed(int rc) {
  const int socket_errno = errno;
  switch (SSL_get_error(ssl(), rc)) {
    case SSL_ERROR_WANT_READ: return IoResult{0, IoStatus::kWantRead, 0};
    case SSL_ERROR_WANT_WRITE: return IoResult{0, IoStatus::kWantWrite, 0};
    case SSL_ERROR_ZERO_RETURN: return IoResult{0, IoStatus::kClosed, 0};
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (socket_errno == 0) return IoResult{0, IoStatus::kClosed, 0};
      socket_errno_ = socket_errno;
      return IoResult{0, IoStatus::kError, socket_errno};
    default:
      error_code_ = ERR_peek_error();
      verify_result_ = SSL_get_verify_result(ssl());
      ERR_clear_error();
      return IoResult{0, IoStatus::kTlsError, 0};
  }
}

void OpenSslLink::close() {
  if (!active()) return;
  // One close_notify, never waiting for the peer's: the socket closes next.
  if (established_) {
    SSL_shutdown(ssl());
    // Also when SSL_shutdown declined (a post-handshake message half read):
    // OpenSSL would otherwise mark the session this connection resumed (often
    // the one the worker's cache holds) as not resumable when the SSL is freed.
    SSL_set_shutdown(ssl(), SSL_get_shutdown(ssl()) | SSL_SENT_SHUTDOWN);
  }
  ERR_clear_error();
  ssl_.reset();
  established_ = false;
}

bool OpenSslLink::resumed() const { return active() && SSL_session_reused(ssl()) == 1; }

std::string_view OpenSslLink::alpn() const {
  if (!active()) return {};
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl(), &name, &length);
  return name == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(name), length);
}

std::string_view OpenSslLink::protocol() const { return active() ? SSL_get_version(ssl()) : std::string_view(); }

std::string_view OpenSslLink::cipher() const {
  if (!active()) return {};
  const char* name = SSL_get_cipher_name(ssl());
  return name == nullptr ? std::string_view() : std::string_view(name);
}

void OpenSslLink::describe_failure(std::span<char> out) const {
  if (out.empty()) return;
  const char* reason = error_code_ != 0 ? ERR_reason_error_string(error_code_) : nullptr;
  if (reason == nullptr && error_code_ != 0) reason = "TLS error";
  if (reason != nullptr && verify_result_ != X509_V_OK) {
    std::snprintf(out.data(), out.size(), "%s: %s", reason, X509_verify_cert_error_string(verify_result_));
  } else if (reason != nullptr) {
    std::snprintf(out.data(), out.size(), "%s", reason);
  } else if (socket_errno_ != 0) {
    std::snprintf(out.data(), out.size(), "TLS handshake: %s", std::strerror(socket_errno_));
  } else {
    std::snprintf(out.data(), out.size(), "TLS error");
  }
}

}  // namespace pacer::tls
