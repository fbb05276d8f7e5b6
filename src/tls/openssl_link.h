// One TLS connection over OpenSSL (tls/module.h's Link; the binary holds it as
// net::TlsStream): owns its SSL (RAII), drives the handshake step by step, and
// reads and writes plaintext through the context's socket BIO. Touched only by
// its connection's thread. Client SSLs carry their worker's OpenSslSessions as
// SSL app data (read by the context's new-session callback).
#pragma once

#include <openssl/ssl.h>

#include <memory>

#include "tls/module.h"
#include "tls/openssl_context.h"

namespace pacer::tls {

class OpenSslLink final : public Link {
 public:
  bool start_client(const Context& context, int fd, Sessions* sessions) override;
  bool start_server(const Context& context, int fd) override;
  net::IoStatus handshake() override;
  net::IoResult read(char* buffer, std::size_t length) override;
  net::IoResult write(const char* data, std::size_t length) override;
  TimeNs receive_stamp() const override;
  bool drained() const override;
  void close() override;
  bool active() const override { return ssl_ != nullptr; }
  bool established() const override { return established_; }
  bool resumed() const override;
  std::string_view alpn() const override;
  std::string_view protocol() const override;
  std::string_view cipher() const override;
  void describe_failure(std::span<char> out) const override;

 private:
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  bool attach(const OpenSslContext& context, int fd);
  SSL* ssl() const { return ssl_.get(); }
  BioSocket* socket() const;  // the read BIO's data; only while active
  net::IoResult failed(int rc);

  std::unique_ptr<SSL, SslFree> ssl_;
  bool established_ = false;
  unsigned long error_code_ = 0;  // the first OpenSSL error of the last failure
  long verify_result_ = X509_V_OK;
  int socket_errno_ = 0;          // the socket error of the last failure, if any
};

}  // namespace pacer::tls
