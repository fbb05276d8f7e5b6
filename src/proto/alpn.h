// ALPN for HTTPS: what pacer offers in the TLS handshake and whether what the
// server chose fits the run. Pure functions, no TLS library: the TLS context
// (net/tls_context.h) encodes alpn_protocols() for the handshake, and the worker
// passes the negotiated name to alpn_mismatch() once the handshake completes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pacer::proto {

// The protocols offered: "h2" alone with --http2 (no fallback: an HTTP/2 test
// must not quietly measure HTTP/1.1), else "http/1.1".
std::vector<std::string> alpn_protocols(bool http2);

// Empty when `negotiated` (possibly empty: the server did no ALPN) fits the run;
// otherwise the message for the user, which ends the run with exit code 1.
std::string_view alpn_mismatch(bool http2, std::string_view negotiated);

}  // namespace pacer::proto
