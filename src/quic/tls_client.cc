// GnuTLS client sessions for QUIC. See tls_client.h.
#include "quic/tls_client.h"

#include <gnutls/x509.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "net/address.h"

namespace pacer::quic {

namespace {

// TLS 1.3 only (QUIC requires it), the AEADs QUIC defines, no middlebox compatibility mode.
constexpr const char* kPriority =
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:+AES-128-CCM:"
    "-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:%DISABLE_TLS13_COMPAT_MODE";

constexpr unsigned char kAlpnH3[] = {'h', '3'};

}  // namespace

void TicketCache::store(const gnutls_datum_t& data) {
  if (data.size > data_.size()) data_.resize(data.size);
  std::memcpy(data_.data(), data.data, data.size);
  size_ = data.size;
}

Result<std::unique_ptr<TlsClient>> TlsClient::create(const net::TlsClientOptions& options) {
  std::unique_ptr<TlsClient> client(new TlsClient());
  if (gnutls_certificate_allocate_credentials(&client->credentials_) != GNUTLS_E_SUCCESS) {
    return runtime_error("GnuTLS: cannot allocate credentials");
  }
  if (!options.ca_file.empty()) {
    const int n = gnutls_certificate_set_x509_trust_file(client->credentials_, options.ca_file.c_str(),
                                                         GNUTLS_X509_FMT_PEM);
    if (n <= 0) {
      return bad_input(fmt::format("--cacert: cannot load CA certificates from '{}': {}", options.ca_file,
                                   n == 0 ? "no certificate in the file" : gnutls_strerror(n)));
    }
  } else if (options.verify_peer) {
    gnutls_certificate_set_x509_system_trust(client->credentials_);
  }
  if (!options.cert_file.empty()) {
    const int rc = gnutls_certificate_set_x509_key_file(client->credentials_, options.cert_file.c_str(),
                                                        options.key_file.c_str(), GNUTLS_X509_FMT_PEM);
    if (rc != GNUTLS_E_SUCCESS) {
      return bad_input(fmt::format("--cert/--key: cannot load '{}' / '{}': {}", options.cert_file, options.key_file,
                                   gnutls_strerror(rc)));
    }
  }
  if (gnutls_priority_init(&client->priority_, kPriority, nullptr) != GNUTLS_E_SUCCESS) {
    return runtime_error("GnuTLS: the QUIC priority string is not supported by this GnuTLS");
  }
  client->server_name_ = options.server_name;
  client->sends_sni_ = !options.server_name.empty() && !net::is_ip_literal(options.server_name);
  client->verify_ = options.verify_peer;
  client->resume_ = options.resume_sessions;
  return client;
}

TlsClient::~TlsClient() {
  if (priority_ != nullptr) gnutls_priority_deinit(priority_);
  if (credentials_ != nullptr) gnutls_certificate_free_credentials(credentials_);
}

gnutls_session_t TlsClient::new_session(void* conn_ref, TicketCache* tickets) const {
  gnutls_session_t session = nullptr;
  if (gnutls_init(&session, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA) != GNUTLS_E_SUCCESS) return nullptr;
  const auto fail = [&session] {
    gnutls_deinit(session);
    return nullptr;
  };
  if (gnutls_priority_set(session, priority_) != GNUTLS_E_SUCCESS) return fail();
  if (ngtcp2_crypto_gnutls_configure_client_session(session) != 0) return fail();
  // ngtcp2_crypto_gnutls reaches the QUIC connection through the session's pointer.
  gnutls_session_set_ptr(session, conn_ref);
  if (gnutls_credentials_set(session, GNUTLS_CRD_CERTIFICATE, credentials_) != GNUTLS_E_SUCCESS) return fail();
  gnutls_datum_t alpn{const_cast<unsigned char*>(kAlpnH3), sizeof kAlpnH3};
  if (gnutls_alpn_set_protocols(session, &alpn, 1, GNUTLS_ALPN_MANDATORY) != GNUTLS_E_SUCCESS) return fail();
  if (sends_sni_) gnutls_server_name_set(session, GNUTLS_NAME_DNS, server_name_.data(), server_name_.size());
  // Chain and name (or IP address: GnuTLS matches iPAddress entries for a literal).
  if (verify_) gnutls_session_set_verify_cert(session, server_name_.c_str(), 0);
  if (resume_ && tickets != nullptr && !tickets->empty()) {
    const gnutls_datum_t data = tickets->datum();
    gnutls_session_set_data(session, data.data, data.size);
  }
  return session;
}

void TlsClient::describe_failure(gnutls_session_t session, int tls_error, std::uint8_t peer_alert,
                                 std::array<char, 256>& out) {
  const unsigned status = session != nullptr ? gnutls_session_get_verify_cert_status(session) : 0;
  if (status != 0) {
    gnutls_datum_t text{};
    if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &text, 0) == GNUTLS_E_SUCCESS) {
      std::snprintf(out.data(), out.size(), "certificate verify failed: %s", reinterpret_cast<char*>(text.data));
      gnutls_free(text.data);
      return;
    }
    std::snprintf(out.data(), out.size(), "certificate verify failed (status 0x%x)", status);
    return;
  }
  if (tls_error != 0 && tls_error != GNUTLS_E_SUCCESS) {
    std::snprintf(out.data(), out.size(), "TLS handshake failed: %s", gnutls_strerror(tls_error));
    return;
  }
  if (peer_alert != 0) {
    const char* name = gnutls_alert_get_strname(static_cast<gnutls_alert_description_t>(peer_alert));
    std::snprintf(out.data(), out.size(), "TLS handshake failed: alert %s", name != nullptr ? name : "unknown");
    return;
  }
  std::snprintf(out.data(), out.size(), "TLS handshake failed");
}

}  // namespace pacer::quic
