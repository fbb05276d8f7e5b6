// See start_up.h.
#include "engine/start_up.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/http3_module.h"
#include "net/address.h"
#include "net/bind_list.h"
#include "net/h2c_probe.h"
#include "net/tls_probe.h"
#include "proto/alpn.h"
#include "proxy/connect_tunnel.h"

namespace pacer::engine {

net::TlsClientOptions tls_options(const Config& config) {
  net::TlsClientOptions o;
  o.server_name = config.target.host;
  o.verify_peer = config.tls_verify;
  o.ca_file = config.tls_ca_file;
  o.cert_file = config.tls_cert_file;
  o.key_file = config.tls_key_file;
  o.resume_sessions = config.tls_resume;
  o.alpn = proto::alpn_protocols(config.http2);
  o.min_version = config.tls_knobs.min_version;
  o.max_version = config.tls_knobs.max_version;
  o.ciphers = config.tls_knobs.ciphers;
  o.tls13_ciphers = config.tls_knobs.tls13_ciphers;
  o.sni = config.tls_knobs.sni.value_or("");
  o.send_sni = !config.tls_knobs.no_sni;
  return o;
}

namespace {

// h2c (prior knowledge): a server that speaks only HTTP/1.1 answers the preface in
// HTTP/1.1. Said once, here, rather than as an error per request. The probe
// connection is spent (its preface went out), so it is closed: the workers open their own.
// Where connections go: the host's addresses, or the --unix-socket path.
// Through a proxy: the proxy's. With --bind: only those of its family.
Result<std::vector<net::Address>> resolve_target(const Config& config, const ConnectRoute& route) {
  if (config.unix_socket_path.empty()) {
    const std::string& host = config.proxy ? config.proxy->host : config.target.host;
    auto all = net::resolve(host, config.proxy ? config.proxy->port : config.target.port);
    if (!all || route.bind.empty()) return all;
    const int family = route.bind.front().family();
    std::erase_if(*all, [family](const net::Address& a) { return a.family() != family; });
    if (all->empty()) {
      const char* name = family == AF_INET ? "IPv4" : "IPv6";
      return bad_input(fmt::format("--bind gives {} source addresses, but {} '{}' has no {} address", name,
                                   config.proxy ? "the proxy" : "the target", host, name));
    }
    return all;
  }
  auto address = net::unix_address(config.unix_socket_path);
  if (!address) return address.error();
  return std::vector<net::Address>{*address};
}

Status check_h2c(const Config& config, UniqueFd& probe_fd) {
  const TimeNs wait_ns = std::min<TimeNs>(config.timeout_ns, 2 * kNsPerS);
  const bool http1 = net::answers_h2_preface_in_http1(probe_fd.get(), wait_ns);
  probe_fd.reset();
  if (!http1) return Ok{};
  return runtime_error(config.target.host + ":" + std::to_string(config.target.port) +
                       ": the server answered in HTTP/1.1, not HTTP/2 (--http2 on http:// speaks HTTP/2 by "
                       "prior knowledge; the server may offer HTTP/2 only over https://, or not at all)");
}

// --http3: the start-up check is a QUIC handshake (quic::Module::probe); its connection
// is not adopted, so the result carries the address that answered and no socket.
Result<net::Connected> probe_http3(const Config& config, const std::vector<net::Address>& addresses,
                                   const quic::Module& http3, const quic::TlsConfig& tls) {
  auto answered = http3.probe(addresses, tls, std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
  if (!answered) {
    return runtime_error(config.target.host + ":" + std::to_string(config.target.port) + " (HTTP/3 over QUIC): " +
                         answered.error().message);
  }
  net::Connected probe;
  probe.address = *answered;
  return probe;
}

// --bind's addresses, the CONNECT request, the words for exhausted ports.
Result<ConnectRoute> make_route(const Config& config) {
  ConnectRoute route;
  if (!config.bind_addresses.empty()) {
    std::string joined;
    for (const std::string& a : config.bind_addresses) joined += (joined.empty() ? "" : ",") + a;
    auto list = net::parse_bind_list(joined);
    if (!list) return bad_input("--bind: " + list.error().message);
    route.bind = std::move(*list);
    // Before the run: an address of another host would fail every connect as if ports were out.
    if (const net::Unbindable bad = net::first_unbindable(route.bind); bad.address != nullptr) {
      const std::string address = net::address_literal(*bad.address);
      if (bad.err == EADDRNOTAVAIL) {
        return bad_input(fmt::format("--bind {}: this host has no such address (no interface holds it); add it to "
                                     "one first (ip addr add {}/{} dev eth0) or give addresses `ip addr` lists",
                                     address, address, bad.address->family() == AF_INET6 ? 128 : 32));
      }
      return bad_input(fmt::format("--bind {}: {}", address, std::strerror(bad.err)));
    }
  }
  if (config.proxy) {
    route.via_proxy = true;
    if (config.proxy->tunnel) route.tunnel_request = proxy::connect_request(config.target, *config.proxy);
  }
  const net::PortRange range = net::local_port_range();
  const std::size_t sources = std::max<std::size_t>(route.bind.size(), 1);
  const std::string destination =
      config.proxy ? config.proxy->shown : config.target.host + ":" + std::to_string(config.target.port);
  route.ports_exhausted = fmt::format(
      "no free local port (EADDRNOTAVAIL): {} ports per source address (net.ipv4.ip_local_port_range {}-{}) x {} "
      "source address{} = {} connections to {} at most; spread them over more source addresses (--bind "
      "127.0.0.2-127.0.0.9, or addresses of this host's interfaces) or widen the range (sysctl -w "
      "net.ipv4.ip_local_port_range=\"1024 65535\")",
      range.count(), range.first, range.last, sources, sources == 1 ? "" : "es",
      static_cast<std::uint64_t>(range.count()) * sources, destination);
  return route;
}

// Through a proxy's tunnel: CONNECT on the probe's socket, before any TLS.
Status probe_tunnel(const Config& config, StartUp& s) {
  const TimeNs start = monotonic_now_ns();
  if (Status open = proxy::tunnel_blocking(s.probe.fd.get(), s.route.tunnel_request,
                                           std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
      !open) {
    return runtime_error(fmt::format("proxy {} (from {}), CONNECT {}:{}: {}", config.proxy->shown, config.proxy->source,
                                     config.target.host, config.target.port, open.error().message));
  }
  s.route.probe_tunnel_ns = monotonic_now_ns() - start;
  return Ok{};
}

}  // namespace

Result<StartUp> start_up(const Config& config) {
  StartUp s;
  const auto io = io::choose_engine(config.io);  // --io uring where it cannot run stops here
  if (!io) return io.error();
  s.io = *io;
  // TLS files are checked first: a bad --cacert is the user's to fix (exit 2).
  // --http3 loads its module before (the module reads them with GnuTLS instead
  // of OpenSSL: docs/http3.md).
  if (config.http3) {
    auto module = http3_module();
    if (!module) return module.error();
    s.http3 = *module;
    auto client = s.http3->tls(tls_options(config));
    if (!client) return client.error();
    s.quic_tls = std::move(*client);
  }
  if (config.target.is_tls() && !config.http3) {
    auto context = net::TlsContext::client(tls_options(config));
    if (!context) return context.error();
    s.tls.emplace(std::move(*context));
  }
  auto route = make_route(config);
  if (!route) return route.error();
  s.route = std::move(*route);
  auto addresses = resolve_target(config, s.route);
  if (!addresses) return addresses.error();
  const net::Address* local = s.route.bind.empty() ? nullptr : &s.route.bind.front();
  auto probe = config.http3 ? probe_http3(config, *addresses, *s.http3, *s.quic_tls)
                            : net::first_connectable(*addresses, std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS), local);
  if (!probe && config.http3) return probe.error();
  if (!probe) {
    const std::string where = !config.unix_socket_path.empty() ? "unix socket " + config.unix_socket_path
                              : config.proxy ? "the proxy " + config.proxy->shown + " (from " + config.proxy->source + ")"
                                             : config.target.host + ":" + std::to_string(config.target.port);
    // Every local port to it is taken (TIME_WAIT of an earlier run, another client): say the arithmetic.
    // (A --bind address this host lacks was refused in make_route.) One line: the
    // printed message is one line, a raw break in it would be shown as '?'.
    const bool no_port = probe.error().message.find(std::strerror(EADDRNOTAVAIL)) != std::string::npos;
    return runtime_error("cannot connect to " + where + ": " + probe.error().message +
                         (no_port ? "; " + s.route.ports_exhausted : ""));
  }
  s.probe = std::move(*probe);
  if (s.route.tunnels()) {
    if (Status tunnel = probe_tunnel(config, s); !tunnel) return tunnel.error();
  }
  // https: the probe connection also proves the handshake (and ALPN) before the run.
  if (s.tls) {
    const std::string where = config.target.host + ":" + std::to_string(config.target.port);
    auto handshake = net::handshake_blocking(s.probe_tls, *s.tls, s.probe.fd.get(), std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
    if (!handshake) {
      // A server that speaks no protocol we offered ends the handshake with an alert.
      const bool declined_h2 = config.http2 && handshake.error().message.find("no application protocol") != std::string::npos;
      return runtime_error(where + ": " + handshake.error().message +
                           (declined_h2 ? " (" + std::string(proto::alpn_mismatch(true, "")) + ")" : ""));
    }
    if (const std::string_view mismatch = proto::alpn_mismatch(config.http2, s.probe_tls.alpn()); !mismatch.empty()) {
      return runtime_error(where + ": " + std::string(mismatch));
    }
    s.probe_handshake_ns = *handshake;
    s.negotiated = TlsNegotiated{std::string(s.probe_tls.protocol()), std::string(s.probe_tls.cipher()),
                                 std::string(s.probe_tls.alpn())};
  }
  if (config.http2 && !s.tls) {
    if (Status h2c = check_h2c(config, s.probe.fd); !h2c) return h2c.error();
  }
  return s;
}

}  // namespace pacer::engine
