// TLS configuration shared by every connection of a run (client side) or of a
// `pacer serve` (server side): built once on the main thread before any worker
// starts and then only read. The TLS itself (OpenSSL) lives in the TLS module
// (tls/module.h), loaded by the first context made (net/tls_module.h): this
// header names no OpenSSL type, and a plain-HTTP run never loads the module.
//
// Setup errors are kBadInput naming the flag and the file at fault (exit 2); a
// module that cannot be loaded is kRuntime naming where it was looked for (exit 1).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "core/expected.h"
#include "net/tls_options.h"
#include "tls/module.h"

namespace pacer::net {

class TlsContext {
 public:
  static Result<TlsContext> client(const TlsClientOptions& options);
  // cert_file: the server's certificate chain (PEM); key_file: its key. The server
  // accepts ALPN "http/1.1" (or no ALPN).
  static Result<TlsContext> server(const std::string& cert_file, const std::string& key_file);

  const tls::Context& impl() const { return *impl_; }
  bool is_client() const { return impl_->facts().is_client; }
  // Client: the name sent as SNI (the URL's host, or --sni), only when it is a name, not an address literal.
  const std::string& server_name() const { return impl_->facts().server_name; }
  bool sends_sni() const { return impl_->facts().sends_sni; }
  bool resumes_sessions() const { return impl_->facts().resumes_sessions; }

 private:
  explicit TlsContext(std::unique_ptr<tls::Context> impl) : impl_(std::move(impl)) {}
  std::unique_ptr<tls::Context> impl_;
};

// One worker's resumable sessions (client side), newest last. Not shared between
// threads: each worker resumes from its own. Filled when a connection receives a
// ticket. A TLS 1.3 ticket is used once, so several are kept for connections
// that reconnect at the same time; a TLS 1.2 session stays for reuse. Fixed
// capacity (the oldest is dropped when full), made by the module on first use.
class TlsSessionCache {
 public:
  std::size_t size() const { return store_ ? store_->size() : 0; }
  // The module's store, made by `context` the first time.
  tls::Sessions* store_for(const TlsContext& context);

 private:
  std::unique_ptr<tls::Sessions> store_;
};

}  // namespace pacer::net
