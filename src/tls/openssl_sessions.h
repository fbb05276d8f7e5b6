// One worker's resumable OpenSSL sessions (tls/module.h's Sessions; the binary
// holds it as net::TlsSessionCache), newest last. Not shared between threads:
// each worker resumes from its own. Filled by the context's new-session callback
// when a connection receives a ticket. A TLS 1.3 ticket is used once (OpenSSL's
// client will not offer it again), so several are kept for connections that
// reconnect at the same time; a TLS 1.2 session stays for reuse. Fixed capacity:
// the oldest is dropped when full. No allocation of its own.
#pragma once

#include <openssl/ssl.h>

#include <array>
#include <cstddef>
#include <memory>

#include "tls/module.h"

namespace pacer::tls {

class OpenSslSessions final : public Sessions {
 public:
  static constexpr std::size_t kCapacity = 16;

  void store(SSL_SESSION* session);  // takes the reference
  // Offers the newest resumable session to ssl (a client SSL not yet started).
  // Returns false when there is none.
  bool offer_to(SSL* ssl);
  std::size_t size() const override { return count_; }

 private:
  struct Free {
    void operator()(SSL_SESSION* s) const { SSL_SESSION_free(s); }
  };
  void remove_at(std::size_t index);
  std::array<std::unique_ptr<SSL_SESSION, Free>, kCapacity> sessions_;
  std::size_t count_ = 0;
};

}  // namespace pacer::tls
