// The start-up TLS handshake of an https:// run, on the probe connection (see
// net::first_connectable): a certificate the client refuses, a server that does
// not speak TLS, or ALPN that does not fit end the run at once with the reason
// (exit 1), instead of every connection failing for the whole run. On success
// the stream is handed to a worker as its first connection. Main thread.
#pragma once

#include "core/clock.h"
#include "core/expected.h"
#include "net/tls_context.h"
#include "net/tls_stream.h"

namespace pacer::net {

// Runs the client handshake on connected socket fd (blocking in poll, at most
// timeout_ns). Returns the handshake time; kRuntime with OpenSSL's reason on
// failure. `stream` holds the established connection afterwards.
Result<TimeNs> handshake_blocking(TlsStream& stream, const TlsContext& context, int fd, TimeNs timeout_ns);

}  // namespace pacer::net
