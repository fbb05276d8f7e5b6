// GnuTLS for QUIC (client side). Debian 12's OpenSSL 3.0 has no QUIC API, so the
// QUIC handshake runs on GnuTLS through ngtcp2_crypto_gnutls; HTTPS over TCP
// stays on OpenSSL (the TLS module, tls/module.h). The same options mean the same thing on
// both stacks: -k (no chain and no name check), --cacert (trust only this
// bundle, else the system store), --cert/--key, the host name or IP check.
//
// TlsClient is built once on the main thread before any worker starts and is
// then only read (GnuTLS credentials and a priority cache may be shared by
// sessions of several threads). TicketCache is one worker's resumption state.
#pragma once

#include <gnutls/gnutls.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "net/tls_options.h"
#include "quic/module.h"

namespace pacer::quic {

// The newest resumption data (a TLS 1.3 ticket) one worker's connections
// received; a new connection offers it. No 0-RTT: early data could be replayed.
class TicketCache final : public Tickets {
 public:
  void store(const gnutls_datum_t& data);
  bool empty() const { return size_ == 0; }
  gnutls_datum_t datum() { return gnutls_datum_t{data_.data(), static_cast<unsigned>(size_)}; }

 private:
  std::vector<unsigned char> data_;  // grows to the largest ticket seen, then stays
  std::size_t size_ = 0;
};

class TlsClient final : public TlsConfig {
 public:
  // Bad --cacert/--cert/--key files are kBadInput naming the flag (exit 2).
  static Result<std::unique_ptr<TlsClient>> create(const net::TlsClientOptions& options);
  ~TlsClient() override;
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // A client session ready for ngtcp2_crypto_gnutls: ALPN "h3" (mandatory),
  // SNI for host names, the certificate check unless -k, `conn_ref` as its
  // pointer (ngtcp2_crypto_gnutls finds the QUIC connection through it), and
  // the cached ticket offered when resumption is on. Null on failure.
  gnutls_session_t new_session(void* conn_ref, TicketCache* tickets) const;
  bool resumes() const { return resume_; }

  // Why the handshake of `session` failed: the certificate check's verdict when
  // that failed, else GnuTLS's error (`tls_error`, from ngtcp2_conn_get_tls_error)
  // or the alert the peer sent. Written into `out` (no allocation).
  static void describe_failure(gnutls_session_t session, int tls_error, std::uint8_t peer_alert,
                               std::array<char, 256>& out);

 private:
  TlsClient() = default;
  gnutls_certificate_credentials_t credentials_ = nullptr;
  gnutls_priority_t priority_ = nullptr;
  std::string server_name_;
  bool sends_sni_ = false;
  bool verify_ = true;
  bool resume_ = true;
};

}  // namespace pacer::quic
