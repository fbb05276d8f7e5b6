// TLS configuration shared by every connection of a run (client side) or of a
// `pacer serve` (server side): one SSL_CTX, built once on the main thread before
// any worker starts and then only read (SSL_new on a finished SSL_CTX is
// thread-safe). The context also owns the BIO method every connection uses to
// move bytes: send(MSG_NOSIGNAL) and recv, so a peer's reset never raises SIGPIPE
// (OpenSSL's own socket BIO writes with write(2)).
//
// Setup errors are kBadInput naming the flag and the file at fault (exit 2).
#pragma once

#include <openssl/ssl.h>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"

namespace pacer::net {

struct TlsClientOptions {
  std::string server_name;         // the URL's host: SNI (host names only) and the certificate check
  bool verify_peer = true;         // false: -k/--insecure (no chain and no name check)
  std::string ca_file;             // --cacert: trust only this PEM bundle; empty: the system store
  std::string cert_file;           // --cert: client certificate chain (PEM), with key_file
  std::string key_file;            // --key: its private key (PEM)
  bool resume_sessions = true;     // false: --no-tls-resume (every handshake is a full one)
  std::vector<std::string> alpn;   // protocols offered, preferred first ("h2", "http/1.1")
  // Issue 33: --tls-min/--tls-max (TLS1_2_VERSION, TLS1_3_VERSION; 0: 1.2 and up),
  // --ciphers (TLS 1.2 list), --tls13-ciphers, --sni NAME (sent instead of
  // server_name; the certificate is still checked against server_name), --no-sni.
  int min_version = 0;
  int max_version = 0;
  std::string ciphers;
  std::string tls13_ciphers;
  std::string sni;                 // empty: server_name (when it is a name, not an address)
  bool send_sni = true;
};

// The protocols pacer offers over TLS today (HTTP/2 will put "h2" first).
std::vector<std::string> default_alpn();

// ALPN wire format: each name prefixed by its length. Names of 1..255 bytes.
std::string alpn_wire(const std::vector<std::string>& protocols);

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
// The data of a connection's socket BIO (bio_method()): its socket and when the
// kernel received the bytes of the BIO's last read that had a stamp. Created by
// TlsStream::attach, freed with the BIO.
struct BioSocket {
  int fd = -1;
  TimeNs stamp = 0;  // monotonic; 0: none since TlsStream last cleared it
  bool drained = false;  // the last recv returned less than asked, or would block
};

struct BioMethodFree {
  void operator()(BIO_METHOD* method) const { BIO_meth_free(method); }
};

class TlsContext {
 public:
  static Result<TlsContext> client(const TlsClientOptions& options);
  // cert_file: the server's certificate chain (PEM); key_file: its key. The server
  // accepts ALPN "http/1.1" (or no ALPN).
  static Result<TlsContext> server(const std::string& cert_file, const std::string& key_file);

  SSL_CTX* get() const { return ctx_.get(); }
  const BIO_METHOD* bio_method() const { return bio_.get(); }
  bool is_client() const { return is_client_; }
  // Client: the name sent as SNI (the URL's host, or --sni), only when it is a name, not an address literal.
  const std::string& server_name() const { return server_name_; }
  bool sends_sni() const { return sends_sni_; }
  bool resumes_sessions() const { return resume_sessions_; }

 private:
  TlsContext() = default;
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx_;
  std::unique_ptr<BIO_METHOD, BioMethodFree> bio_;
  bool is_client_ = true;
  std::string server_name_;
  bool sends_sni_ = false;
  bool resume_sessions_ = false;
};

// One worker's resumable sessions (client side), newest last. Not shared between
// threads: each worker resumes from its own. Filled by OpenSSL's new-session
// callback when a connection receives a ticket. A TLS 1.3 ticket is used once
// (OpenSSL's client will not offer it again), so several are kept for
// connections that reconnect at the same time; a TLS 1.2 session stays for reuse.
// Fixed capacity: the oldest is dropped when full. No allocation of its own.
class TlsSessionCache {
 public:
  static constexpr std::size_t kCapacity = 16;

  void store(SSL_SESSION* session);  // takes the reference
  // Offers the newest resumable session to ssl (a client SSL not yet started).
  // Returns false when there is none.
  bool offer_to(SSL* ssl);
  std::size_t size() const { return count_; }

 private:
  struct Free {
    void operator()(SSL_SESSION* s) const { SSL_SESSION_free(s); }
  };
  void remove_at(std::size_t index);
  std::array<std::unique_ptr<SSL_SESSION, Free>, kCapacity> sessions_;
  std::size_t count_ = 0;
};

// The first error on OpenSSL's queue of this thread as text (and clears the
// queue); `fallback` when it is empty.
std::string take_openssl_error(std::string_view fallback);

}  // namespace pacer::net
