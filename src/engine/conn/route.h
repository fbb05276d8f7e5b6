// The way a run's connections go, decided once at start-up (engine/start_up.cc)
// and then only read by every worker: the source addresses (--bind, handed out
// round-robin), the CONNECT request when connections go through a proxy's tunnel
// (issue 33, src/proxy/), and the words for the failures that have their own
// error class (`ports`, `proxy`). Main thread builds it; workers read it.
#pragma once

#include <string>
#include <vector>

#include "core/clock.h"
#include "net/address.h"
#include "net/tls_context.h"

namespace pacer::engine {

struct ConnectRoute {
  std::vector<net::Address> bind;   // --bind: local addresses (port 0); empty: the kernel's choice
  bool via_proxy = false;           // connections go to the proxy (forwarded or tunneled)
  std::string tunnel_request;       // the CONNECT request; empty: no tunnel
  // EADDRNOTAVAIL on connect: the port arithmetic and the fix (the `ports` class's first error).
  std::string ports_exhausted;
  TimeNs probe_tunnel_ns = -1;      // the start-up probe's tunnel set-up, recorded by the connection that adopts it
  bool tunnels() const { return !tunnel_request.empty(); }
};

// Another origin than the run's URL (a scenario's users, issue 42;
// engine/drive/origin_links.h owns these): where its connections go and their
// TLS. A connection the pool made with add() goes this way instead of the run's
// address, transport and TLS. Worker thread.
struct OriginRoute {
  net::Address address;                          // the address its connects dial now
  const net::TlsContext* tls = nullptr;          // https: its context (SNI and name check: its host); null: plain
  net::TlsSessionCache* tls_sessions = nullptr;  // https: the sessions its connections resume
};

// What the start-up's TLS handshake negotiated (https://), for the report.
struct TlsNegotiated {
  std::string protocol;  // "TLSv1.3"
  std::string cipher;    // "TLS_AES_256_GCM_SHA384"
  std::string alpn;      // "h2", "http/1.1"; empty: none
};

}  // namespace pacer::engine
