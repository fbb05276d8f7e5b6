// See text_connect.h.
#include "report/text_connect.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "report/labelled.h"
#include "report/units.h"

namespace pacer::report {

namespace {

// Linux resends an unanswered SYN after 1 s (then after longer waits): a
// connect that took that long waited for a resend. Just under 1 s, for the
// histogram's bucket width there.
constexpr TimeNs kSynResendNs = 990 * kNsPerMs;

// Connects that waited for a resent SYN: those that took about 1 s or more,
// when the fastest took under half of that (so it is not the path's round
// trip). 0: none, or no sign of it.
std::uint64_t connects_after_a_resent_syn(const stats::Histogram& connect) {
  if (connect.total_count() == 0 || connect.min() >= kSynResendNs / 2) return 0;
  return static_cast<std::uint64_t>(connect.total_count() - connect.count_at_or_below(kSynResendNs));
}

}  // namespace

std::string avg_p99_max(const stats::Histogram& h) {
  return fmt::format("avg {}, p99 {}, max {}", format_time_ns(h.mean()),
                     format_time_ns(static_cast<double>(h.value_at_percentile(99))),
                     format_time_ns(static_cast<double>(h.max())));
}

void append_connect_lines(std::string& out, const RunReport& r) {
  if (r.connect.total_count() == 0) return;
  out += labelled("Connect:", fmt::format("{} ({} connections opened{})", avg_p99_max(r.connect), r.counters.connects,
                                          r.proxy.empty() ? "" : ", to the proxy"));
  if (r.connections_ramp_ns && *r.connections_ramp_ns >= r.measured_ns) {  // issue 31: the connect burst
    out += labelled("", fmt::format("connections were still being opened when the run ended: not every one "
                                    "of the {} had opened once",
                                    r.connections));
  } else if (r.connections_ramp_ns && *r.connections_ramp_ns >= kNsPerS / 10) {  // a few ms: not worth a line
    out += labelled("", fmt::format("connections were still being opened: the last of them first opened {} "
                                    "into the measured time (--warmup {:.1f}s leaves that out)",
                                    format_time_ns(static_cast<double>(*r.connections_ramp_ns)),
                                    std::ceil(static_cast<double>(*r.connections_ramp_ns) / 1e8) / 10));
  }
  // A server blamed for timeouts that its accept queue caused (issue 31, item 15).
  if (const std::uint64_t resent = connects_after_a_resent_syn(r.connect); resent > 0) {
    out += labelled("", fmt::format("{} connect{} took 1s or more, waiting for the kernel to resend a SYN the "
                                    "server dropped (after 1s, then longer): a server drops SYNs when its accept "
                                    "queue (the listen backlog) is full; raise its backlog or open fewer "
                                    "connections at once",
                                    resent, resent == 1 ? "" : "s"));
  }
  if (const std::uint64_t n = r.counters.redials; n > 0) {  // the start gate's (engine/conn/start_gate.h)
    out += labelled("", fmt::format("{} connect{} dialled again at the start, from a fresh socket: the server left "
                                    "{} SYN unanswered while others connected, as when its accept queue (the "
                                    "listen backlog) is full; the connections started sending together once all "
                                    "had connected",
                                    n, n == 1 ? " was" : "s were", n == 1 ? "its" : "their"));
  }
  append_keepalive_line(out, r);
}

void append_keepalive_line(std::string& out, const RunReport& r) {
  // Issue 43: a server or proxy that answers with keep-alive and closes anyway
  // (engine/exchange/exchange.h: peer_closed).
  const std::uint64_t closed = r.counters.keepalive_closed;
  if (closed == 0) return;
  const bool mostly = closed * 2 >= r.counters.connects;  // half the connections or more
  std::string line = fmt::format("{} closed {} of {} connections after a response that kept {} open{}",
                                 r.proxy.empty() ? "the server" : "the proxy", closed, r.counters.connects,
                                 closed == 1 ? "it" : "them", mostly ? ": keep-alive is not kept" : "");
  if (const std::uint64_t n = r.counters.resent; n > 0) {
    line += fmt::format("; {} request{} that met the close {} sent again on a new connection", n, n == 1 ? "" : "s",
                        n == 1 ? "was" : "were");
  }
  out += labelled("Keep-alive:", line);
}

// The connection path (issue 33): the proxy and its tunnel's set-up, the source
// addresses, what TLS negotiated (one line).
void append_path_lines(std::string& out, const RunReport& r) {
  if (!r.proxy.empty()) {
    out += labelled("Proxy:", fmt::format("{} (from {}), {}", r.proxy, r.proxy_source,
                                          r.proxy_tunnel ? "CONNECT tunnel" : "requests forwarded"));
  }
  if (r.tunnel.total_count() > 0) {
    out += labelled("Tunnel:", fmt::format("{} ({} tunnels)", avg_p99_max(r.tunnel), r.tunnel.total_count()));
  }
  if (r.bind_addresses > 0) {
    out += labelled("Source:", fmt::format("{} local address{} (--bind)", r.bind_addresses,
                                           r.bind_addresses == 1 ? "" : "es"));
  }
  if (!r.tls_protocol.empty()) {
    out += labelled("TLS:", fmt::format("{}, {}, ALPN {}, {} of {} resumed", r.tls_protocol, r.tls_cipher,
                                        r.tls_alpn.empty() ? "none" : r.tls_alpn, r.counters.tls_resumed,
                                        r.counters.tls_handshakes));
  }
}

}  // namespace pacer::report
