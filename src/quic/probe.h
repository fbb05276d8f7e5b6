// The start-up check of an --http3 run: one QUIC handshake, blocking, before
// the clock starts, so a server that does not answer UDP at all, refuses the
// port (ICMP unreachable), or fails the certificate check ends the run at once
// with the reason (exit 1) instead of a run of handshake timeouts. The probe's
// connection is closed afterwards (the workers open their own). Main thread.
#pragma once

#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "net/address.h"
#include "quic/tls_client.h"

namespace pacer::quic {

// Tries each address in order; returns the first that completes a handshake
// within wait_ns. The error names the last address's reason.
Result<net::Address> probe_handshake(const std::vector<net::Address>& addresses, const TlsClient& tls, TimeNs wait_ns);

}  // namespace pacer::quic
