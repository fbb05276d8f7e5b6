// TlsContext and TlsSessionCache over the TLS module. See tls_context.h.
#include "net/tls_context.h"

#include "net/tls_module.h"

namespace pacer::net {

Result<TlsContext> TlsContext::client(const TlsClientOptions& options) {
  auto module = tls_module();
  if (!module) return module.error();
  auto context = (*module)->client(options);
  if (!context) return context.error();
  return TlsContext(std::move(*context));
}

Result<TlsContext> TlsContext::server(const std::string& cert_file, const std::string& key_file) {
  auto module = tls_module();
  if (!module) return module.error();
  auto context = (*module)->server(cert_file, key_file);
  if (!context) return context.error();
  return TlsContext(std::move(*context));
}

tls::Sessions* TlsSessionCache::store_for(const TlsContext& context) {
  if (!store_) store_ = context.impl().sessions();
  return store_.get();
}

}  // namespace pacer::net
