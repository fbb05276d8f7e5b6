// What a TLS client is asked to do (https:// over OpenSSL, net/tls_context.h;
// --http3 over GnuTLS, quic/module.h): plain values from the command line, read
// by both TLS modules. No library type; any thread.
#pragma once

#include <string>
#include <vector>

namespace pacer::net {

// The protocol versions of --tls-min/--tls-max, as TLS numbers them on the wire
// (OpenSSL's TLS1_2_VERSION and TLS1_3_VERSION have the same values).
inline constexpr int kTls12Version = 0x0303;
inline constexpr int kTls13Version = 0x0304;

struct TlsClientOptions {
  std::string server_name;         // the URL's host: SNI (host names only) and the certificate check
  bool verify_peer = true;         // false: -k/--insecure (no chain and no name check)
  std::string ca_file;             // --cacert: trust only this PEM bundle; empty: the system store
  std::string cert_file;           // --cert: client certificate chain (PEM), with key_file
  std::string key_file;            // --key: its private key (PEM)
  bool resume_sessions = true;     // false: --no-tls-resume (every handshake is a full one)
  std::vector<std::string> alpn;   // protocols offered, preferred first ("h2", "http/1.1")
  // Issue 33: --tls-min/--tls-max (kTls12Version, kTls13Version; 0: 1.2 and up),
  // --ciphers (TLS 1.2 list), --tls13-ciphers, --sni NAME (sent instead of
  // server_name; the certificate is still checked against server_name), --no-sni.
  int min_version = 0;
  int max_version = 0;
  std::string ciphers;
  std::string tls13_ciphers;
  std::string sni;                 // empty: server_name (when it is a name, not an address)
  bool send_sni = true;
};

// The protocols pacer offers over TLS by default.
inline std::vector<std::string> default_alpn() { return {"http/1.1"}; }

// ALPN wire format: each name prefixed by its length. Names of 1..255 bytes.
inline std::string alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& p : protocols) {
    if (p.empty() || p.size() > 255) continue;
    wire += static_cast<char>(p.size());
    wire += p;
  }
  return wire;
}

}  // namespace pacer::net
