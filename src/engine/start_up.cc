// See start_up.h.
#include "engine/start_up.h"

#include <algorithm>
#include <string>
#include <vector>

#include "engine/http3_module.h"
#include "net/address.h"
#include "net/h2c_probe.h"
#include "net/tls_probe.h"
#include "proto/alpn.h"

namespace pacer::engine {

namespace {

net::TlsClientOptions tls_options(const Config& config) {
  net::TlsClientOptions o;
  o.server_name = config.target.host;
  o.verify_peer = config.tls_verify;
  o.ca_file = config.tls_ca_file;
  o.cert_file = config.tls_cert_file;
  o.key_file = config.tls_key_file;
  o.resume_sessions = config.tls_resume;
  o.alpn = proto::alpn_protocols(config.http2);
  return o;
}

// h2c (prior knowledge): a server that speaks only HTTP/1.1 answers the preface in
// HTTP/1.1. Said once, here, rather than as an error per request. The probe
// connection is spent (its preface went out), so it is closed: the workers open their own.
// Where connections go: the host's addresses, or the --unix-socket path.
Result<std::vector<net::Address>> resolve_target(const Config& config) {
  if (config.unix_socket_path.empty()) return net::resolve(config.target.host, config.target.port);
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
  auto addresses = resolve_target(config);
  if (!addresses) return addresses.error();
  auto probe = config.http3 ? probe_http3(config, *addresses, *s.http3, *s.quic_tls)
                            : net::first_connectable(*addresses, std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
  if (!probe && config.http3) return probe.error();
  if (!probe) {
    const std::string where = config.unix_socket_path.empty()
                                  ? config.target.host + ":" + std::to_string(config.target.port)
                                  : "unix socket " + config.unix_socket_path;
    return runtime_error("cannot connect to " + where + ": " + probe.error().message);
  }
  s.probe = std::move(*probe);
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
  }
  if (config.http2 && !s.tls) {
    if (Status h2c = check_h2c(config, s.probe.fd); !h2c) return h2c.error();
  }
  return s;
}

}  // namespace pacer::engine
