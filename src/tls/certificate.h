// The TLS module's half of `pacer cert` (net/self_signed.h): an EC P-256 key and
// an X.509 v3 certificate naming each host in its subjectAltName (DNS names and
// IP addresses), signed by its own key, both as PEM. Any thread; no shared state.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "net/self_signed.h"

namespace pacer::tls {

// hosts: at least one (the caller checks); the first is also the subject's
// common name. valid_days (>= 1): from one hour ago.
Result<net::PemPair> make_certificate(const std::vector<std::string>& hosts, int valid_days);

}  // namespace pacer::tls
