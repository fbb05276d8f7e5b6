// The TLS module's entry (tls/module.h): Module over OpenSslContext and
// make_certificate. Built into pacer-tls.so; the unit tests link these objects
// into their binary instead.
#include "tls/module.h"

#include <openssl/crypto.h>

#include <cstring>
#include <string>

#include "tls/certificate.h"
#include "tls/openssl_context.h"

namespace pacer::tls {

namespace {

class OpenSslModule final : public Module {
 public:
  Result<std::unique_ptr<Context>> client(const net::TlsClientOptions& options) const override {
    return OpenSslContext::client(options);
  }
  Result<std::unique_ptr<Context>> server(const std::string& cert_file, const std::string& key_file) const override {
    return OpenSslContext::server(cert_file, key_file);
  }
  Result<net::PemPair> self_signed(const std::vector<std::string>& hosts, int valid_days) const override {
    return make_certificate(hosts, valid_days);
  }
  std::string library_versions() const override {
    return std::string("OpenSSL/") + OpenSSL_version(OPENSSL_VERSION_STRING);
  }
};

const OpenSslModule kModule;

}  // namespace

}  // namespace pacer::tls

extern "C" __attribute__((visibility("default"))) const pacer::tls::Module* pacer_tls_module(
    const char* version, const pacer::tls::ModuleAbi* abi) {
  if (version == nullptr || abi == nullptr || std::strcmp(version, PACER_VERSION) != 0 ||
      !(*abi == pacer::tls::ModuleAbi{})) {
    return nullptr;
  }
  return &pacer::tls::kModule;
}
