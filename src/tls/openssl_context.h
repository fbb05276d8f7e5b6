// The TLS module's context (tls/module.h's Context): one SSL_CTX, built once on
// the main thread before any worker starts and then only read (SSL_new on a
// finished SSL_CTX is thread-safe). The context also owns the BIO method every
// connection uses to move bytes: send(MSG_NOSIGNAL) and recv, so a peer's reset
// never raises SIGPIPE (OpenSSL's own socket BIO writes with write(2)).
//
// Setup errors are kBadInput naming the flag and the file at fault (exit 2).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/expected.h"
#include "net/tls_options.h"
#include "tls/module.h"

namespace pacer::tls {

static_assert(net::kTls12Version == TLS1_2_VERSION && net::kTls13Version == TLS1_3_VERSION);

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
struct BioMethodFree {
  void operator()(BIO_METHOD* method) const { BIO_meth_free(method); }
};

// The data of a connection's socket BIO (bio_method()): its socket and when the
// kernel received the bytes of the BIO's last read that had a stamp. Created by
// OpenSslLink::attach, freed with the BIO.
struct BioSocket {
  int fd = -1;
  TimeNs stamp = 0;  // monotonic; 0: none since the link last cleared it
  bool drained = false;  // the last recv returned less than asked, or would block
};

class OpenSslContext final : public Context {
 public:
  static Result<std::unique_ptr<Context>> client(const net::TlsClientOptions& options);
  static Result<std::unique_ptr<Context>> server(const std::string& cert_file, const std::string& key_file);

  SSL_CTX* get() const { return ctx_.get(); }
  const BIO_METHOD* bio_method() const { return bio_.get(); }
  std::unique_ptr<Link> link() const override;
  std::unique_ptr<Sessions> sessions() const override;

 private:
  OpenSslContext(ContextFacts facts, std::unique_ptr<SSL_CTX, SslCtxFree> ctx,
                 std::unique_ptr<BIO_METHOD, BioMethodFree> bio)
      : Context(std::move(facts)), ctx_(std::move(ctx)), bio_(std::move(bio)) {}
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx_;
  std::unique_ptr<BIO_METHOD, BioMethodFree> bio_;
};

// The first error on OpenSSL's queue of this thread as text (and clears the
// queue); `fallback` when it is empty.
std::string take_openssl_error(std::string_view fallback);

}  // namespace pacer::tls
