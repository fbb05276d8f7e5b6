// The HTTP/3 module's entry (quic/module.h): Module over TlsClient,
// probe_handshake, Http3Request and Http3Session. Built into pacer-http3.so; the
// unit tests link these objects into their binary instead.
#include "quic/module.h"

#include <cstring>
#include <string>
#include <utility>

#include <gnutls/gnutls.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>

#include "quic/http3_session.h"
#include "quic/probe.h"
#include "quic/tls_client.h"

namespace pacer::quic {

namespace {

class Http3Requests final : public Requests {
 public:
  explicit Http3Requests(std::span<const proto::Http2Request> requests) {
    list.reserve(requests.size());
    for (const proto::Http2Request& r : requests) list.emplace_back(r);
  }
  std::vector<Http3Request> list;
};

class Http3Module final : public Module {
 public:
  Result<std::unique_ptr<TlsConfig>> tls(const net::TlsClientOptions& options) const override {
    auto client = TlsClient::create(options);
    if (!client) return client.error();
    return std::unique_ptr<TlsConfig>(std::move(*client));
  }
  Result<net::Address> probe(const std::vector<net::Address>& addresses, const TlsConfig& tls,
                             TimeNs wait_ns) const override {
    return probe_handshake(addresses, static_cast<const TlsClient&>(tls), wait_ns);
  }
  std::unique_ptr<Requests> requests(std::span<const proto::Http2Request> requests) const override {
    return std::make_unique<Http3Requests>(requests);
  }
  std::unique_ptr<Tickets> tickets() const override { return std::make_unique<TicketCache>(); }
  std::unique_ptr<DatagramSession> session(const Requests& requests, std::uint32_t streams,
                                           proto::H2Memory& memory) const override {
    return std::make_unique<Http3Session>(static_cast<const Http3Requests&>(requests).list, streams, memory);
  }
  std::string library_versions() const override {
    const char* gnutls = gnutls_check_version(nullptr);
    return std::string("ngtcp2/") + ngtcp2_version(0)->version_str + " nghttp3/" + nghttp3_version(0)->version_str +
           " GnuTLS/" + (gnutls != nullptr ? gnutls : "?");
  }
};

const Http3Module kModule;

}  // namespace

}  // namespace pacer::quic

extern "C" __attribute__((visibility("default"))) const pacer::quic::Module* pacer_http3_module(
    const char* version, const pacer::quic::ModuleAbi* abi) {
  if (version == nullptr || abi == nullptr || std::strcmp(version, PACER_VERSION) != 0 ||
      !(*abi == pacer::quic::ModuleAbi{})) {
    return nullptr;
  }
  return &pacer::quic::kModule;
}
