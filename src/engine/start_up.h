// The run's start-up, before any worker exists (main thread): the TLS client
// (https://) or the HTTP/3 module and its GnuTLS client (--http3, loaded first:
// the module reads the TLS files itself), the target's addresses, and the probe:
// one connection (a QUIC handshake for HTTP/3) proving the target answers, and
// for https its TLS handshake and ALPN, for h2c that the server speaks HTTP/2.
// The probe's connection is handed to the first worker (StartUp::probe).
// Through a proxy (Config::proxy) connections go to the proxy; a tunnel's
// CONNECT is part of the probe, and a refusal stops the run here (exit 1, the
// proxy's status in the message). --bind's family must match the target's.
#pragma once

#include <memory>
#include <optional>

#include "core/config.h"
#include "core/expected.h"
#include "engine/conn/route.h"
#include "io/select.h"
#include "net/address.h"
#include "net/tls_context.h"
#include "net/tls_stream.h"
#include "quic/module.h"

namespace pacer::engine {

struct StartUp {
  io::EngineChoice io;                        // the I/O engine --io picked
  const quic::Module* http3 = nullptr;        // --http3: the loaded module
  std::unique_ptr<quic::TlsConfig> quic_tls;  // --http3: its TLS client
  std::optional<net::TlsContext> tls;         // https:// (not --http3): the TLS client
  net::Connected probe;                       // the address that answered and, but for HTTP/3, its socket
  net::TlsStream probe_tls;                   // https: the probe's established stream
  TimeNs probe_handshake_ns = 0;
  ConnectRoute route;                         // --bind, the proxy's tunnel (issue 33)
  TlsNegotiated negotiated;                   // https: what the probe's handshake agreed
};

// Errors: kBadInput/kBadArgument (exit 2) for TLS files or cipher lists that
// cannot be used, a --bind family the target has no address of;
// kRuntime (exit 1) for an impossible --io, a missing HTTP/3 module, a host that
// does not resolve or answer, a failed handshake or ALPN, an h2c target that
// answers in HTTP/1.1. Each names the address or the file at fault.
Result<StartUp> start_up(const Config& config);

// The run's TLS client settings from the command line (-k, --cacert, --cert,
// --tls-*, --sni, ALPN); the server name is the URL's host.
net::TlsClientOptions tls_options(const Config& config);

}  // namespace pacer::engine
