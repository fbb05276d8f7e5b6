// Throwaway self-signed certificates for tests and local HTTPS targets (`pacer
// cert`): an EC P-256 key and an X.509 v3 certificate naming each host in its
// subjectAltName (DNS names and IP addresses), signed by its own key. Not for
// production: no CA, no revocation. The certificate itself is made by the TLS
// module (tls/certificate.h), loaded by the first call (net/tls_module.h: the
// main thread). No shared state.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"

namespace pacer::net {

struct PemPair {
  std::string certificate_pem;
  std::string private_key_pem;  // PKCS#8, unencrypted
};

// The default names: what a test on this machine connects to.
std::vector<std::string> default_certificate_hosts();  // localhost, 127.0.0.1, ::1

// hosts: at least one; an address literal becomes IP:, anything else DNS:. The
// first is also the subject's common name. valid_days: from one hour ago.
Result<PemPair> make_self_signed(const std::vector<std::string>& hosts, int valid_days);

// Writes cert.pem (0644) and key.pem (0600) into directory `dir`, created with its
// missing parents as `mkdir -p` would.
// Errors name the file.
Status write_pem_pair(const PemPair& pair, const std::string& dir);

}  // namespace pacer::net
