// OpenSslContext: SSL_CTX set-up for the client (verification, private CA,
// client certificate, ALPN, session cache) and the server, and the socket BIO
// method. Main thread, before workers start. See openssl_context.h.
#include "tls/openssl_context.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <cerrno>
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "net/address.h"
#include "net/receive_stamp.h"
#include "tls/openssl_link.h"
#include "tls/openssl_sessions.h"

namespace pacer::tls {
namespace {

// ---- the socket BIO: its data is a BioSocket (fd and last receive stamp) ----

int fd_of(BIO* bio) { return static_cast<BioSocket*>(BIO_get_data(bio))->fd; }

int bio_write(BIO* bio, const char* data, int length) {
  BIO_clear_retry_flags(bio);
  ssize_t n = 0;
  do {
    n = ::send(fd_of(bio), data, static_cast<std::size_t>(length), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(n);
}

int bio_read(BIO* bio, char* data, int length) {
  BIO_clear_retry_flags(bio);
  // The kernel's receive stamp (when the socket asked for stamps) is kept for
  // TlsStream::receive_stamp: the TLS twin of a plain read's stamp.
  auto* socket = static_cast<BioSocket*>(BIO_get_data(bio));
  TimeNs stamp = 0;
  const ssize_t n = net::recv_stamped(socket->fd, data, static_cast<std::size_t>(length), stamp);  // EINTR retried
  if (stamp != 0) socket->stamp = stamp;
  const bool would_block = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  socket->drained = n >= 0 ? n < length : would_block;
  if (would_block) BIO_set_retry_read(bio);
  // OpenSSL asks BIO_CTRL_EOF to tell a peer's close from an error.
  if (n == 0 && length > 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
  return static_cast<int>(n);
}

long bio_ctrl(BIO* bio, int command, long, void*) {
  switch (command) {
    case BIO_CTRL_FLUSH: return 1;  // nothing is buffered here
    case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0;
    case BIO_C_GET_FD: return fd_of(bio);
    default: return 0;
  }
}

int bio_create(BIO* bio) {
  BIO_set_data(bio, nullptr);  // TlsStream::attach sets it
  return 1;
}

int bio_destroy(BIO* bio) {
  delete static_cast<BioSocket*>(BIO_get_data(bio));
  BIO_set_data(bio, nullptr);
  return 1;
}

Result<std::unique_ptr<BIO_METHOD, BioMethodFree>> make_bio_method() {
  std::unique_ptr<BIO_METHOD, BioMethodFree> method(BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "pacer socket"));
  if (!method || BIO_meth_set_write(method.get(), bio_write) != 1 || BIO_meth_set_read(method.get(), bio_read) != 1 ||
      BIO_meth_set_ctrl(method.get(), bio_ctrl) != 1 || BIO_meth_set_create(method.get(), bio_create) != 1 ||
      BIO_meth_set_destroy(method.get(), bio_destroy) != 1) {
    return runtime_error(take_openssl_error("cannot create the TLS socket BIO"));
  }
  return method;
}

// ---- client -------------------------------------------------------------------

int on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* cache = static_cast<OpenSslSessions*>(SSL_get_app_data(ssl));
  if (cache == nullptr) return 0;  // not kept: OpenSSL frees it
  cache->store(session);
  return 1;  // the cache now holds this reference
}

Status set_verification(SSL_CTX* ctx, const net::TlsClientOptions& options) {
  if (!options.verify_peer) {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    return Ok{};
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!options.ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, options.ca_file.c_str(), nullptr) != 1) {
      return bad_input(fmt::format("--cacert: cannot load CA certificates from '{}': {}", options.ca_file,
                                   take_openssl_error("no certificate found")));
    }
  } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
    return runtime_error(take_openssl_error("cannot load the system's trusted certificates"));
  }
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  const std::string& host = options.server_name;
  const bool set = net::is_ip_literal(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) == 1
                                       : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size()) == 1;
  if (!set) return bad_argument(fmt::format("cannot check certificates for host '{}'", host));
  return Ok{};
}

// A certificate chain and its key (PEM files); errors name cert_flag/key_flag and the file.
Status load_key_pair(SSL_CTX* ctx, const std::string& cert_file, const std::string& key_file,
                     std::string_view cert_flag, std::string_view key_flag) {
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
    return bad_input(fmt::format("{}: cannot load a PEM certificate from '{}': {}", cert_flag, cert_file,
                                 take_openssl_error("unreadable")));
  }
  const bool loaded = SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) == 1;
  const bool mismatch = loaded ? SSL_CTX_check_private_key(ctx) != 1
                               : ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
  if (mismatch) {
    ERR_clear_error();
    return bad_input(
        fmt::format("{}: the key in '{}' does not match the certificate in '{}'", key_flag, key_file, cert_file));
  }
  if (!loaded) {
    return bad_input(fmt::format("{}: cannot load a PEM private key from '{}': {}", key_flag, key_file,
                                 take_openssl_error("unreadable")));
  }
  return Ok{};
}

Status set_client_certificate(SSL_CTX* ctx, const net::TlsClientOptions& options) {
  if (options.cert_file.empty() && options.key_file.empty()) return Ok{};
  if (options.cert_file.empty() || options.key_file.empty()) {
    return bad_argument("--cert and --key go together: give both or neither");
  }
  return load_key_pair(ctx, options.cert_file, options.key_file, "--cert", "--key");
}

// --tls-min/--tls-max and the cipher lists. A list OpenSSL cannot use is the
// user's to fix (exit 2), named with its flag.
Status set_versions_and_ciphers(SSL_CTX* ctx, const net::TlsClientOptions& options) {
  if (options.min_version != 0) SSL_CTX_set_min_proto_version(ctx, options.min_version);
  if (options.max_version != 0) SSL_CTX_set_max_proto_version(ctx, options.max_version);
  if (!options.ciphers.empty() && SSL_CTX_set_cipher_list(ctx, options.ciphers.c_str()) != 1) {
    return bad_input(fmt::format("--ciphers '{}': no cipher OpenSSL knows ({}; see `openssl ciphers -v`)",
                                 options.ciphers, take_openssl_error("no cipher match")));
  }
  // OpenSSL accepts a TLS 1.3 list with unknown names in it, so each name is checked.
  if (!options.tls13_ciphers.empty()) {
    std::size_t pos = 0;
    while (pos <= options.tls13_ciphers.size()) {
      const std::size_t end = std::min(options.tls13_ciphers.find(':', pos), options.tls13_ciphers.size());
      const std::string name = options.tls13_ciphers.substr(pos, end - pos);
      if (name.empty() || SSL_CTX_set_ciphersuites(ctx, name.c_str()) != 1) {
        ERR_clear_error();
        return bad_input(fmt::format("--tls13-ciphers '{}': '{}' is not a TLS 1.3 cipher suite (TLS_AES_128_GCM_SHA256, "
                                     "TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, ...)",
                                     options.tls13_ciphers, name));
      }
      pos = end + 1;
    }
    if (SSL_CTX_set_ciphersuites(ctx, options.tls13_ciphers.c_str()) != 1) {
      return bad_input(fmt::format("--tls13-ciphers '{}': {}", options.tls13_ciphers, take_openssl_error("rejected")));
    }
  }
  return Ok{};
}

// ---- server -------------------------------------------------------------------

int select_http11(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* offered,
                  unsigned int offered_length, void*) {
  static constexpr unsigned char kOurs[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, out_length, kOurs, sizeof kOurs, offered, offered_length) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;  // go on without ALPN rather than fail the handshake
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

Result<std::unique_ptr<SSL_CTX, SslCtxFree>> new_ctx(const SSL_METHOD* method) {
  std::unique_ptr<SSL_CTX, SslCtxFree> ctx(SSL_CTX_new(method));
  if (!ctx) return runtime_error(take_openssl_error("cannot create a TLS context"));
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  // A peer that closes without close_notify ends the stream like a plain socket's EOF.
  SSL_CTX_set_options(ctx.get(), SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

}  // namespace

Result<std::unique_ptr<Context>> OpenSslContext::client(const net::TlsClientOptions& options) {
  auto ctx = new_ctx(TLS_client_method());
  if (!ctx) return ctx.error();
  auto bio = make_bio_method();
  if (!bio) return bio.error();
  if (Status s = set_verification(ctx->get(), options); !s) return s.error();
  if (Status s = set_client_certificate(ctx->get(), options); !s) return s.error();
  if (Status s = set_versions_and_ciphers(ctx->get(), options); !s) return s.error();
  const std::string wire = net::alpn_wire(options.alpn);
  if (!wire.empty() &&
      SSL_CTX_set_alpn_protos(ctx->get(), reinterpret_cast<const unsigned char*>(wire.data()),
                              static_cast<unsigned int>(wire.size())) != 0) {
    return runtime_error(take_openssl_error("cannot set the ALPN protocols"));
  }
  if (options.resume_sessions) {
    // Sessions live in each worker's OpenSslSessions, not in OpenSSL's store.
    SSL_CTX_set_session_cache_mode(ctx->get(), SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx->get(), on_new_session);
  } else {
    SSL_CTX_set_session_cache_mode(ctx->get(), SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx->get(), SSL_OP_NO_TICKET);
  }
  // Read-ahead: the socket BIO asks for all the socket holds, so a short recv
  // tells the reader that the socket is drained (TlsStream::drained) and saves
  // the read that would only say "would block".
  SSL_CTX_set_read_ahead(ctx->get(), 1);
  ContextFacts facts;
  facts.is_client = true;
  facts.server_name = options.sni.empty() ? options.server_name : options.sni;
  facts.sends_sni = options.send_sni && !facts.server_name.empty() && !net::is_ip_literal(facts.server_name);
  facts.resumes_sessions = options.resume_sessions;
  return std::unique_ptr<Context>(new OpenSslContext(std::move(facts), std::move(*ctx), std::move(*bio)));
}

Result<std::unique_ptr<Context>> OpenSslContext::server(const std::string& cert_file, const std::string& key_file) {
  auto ctx = new_ctx(TLS_server_method());
  if (!ctx) return ctx.error();
  auto bio = make_bio_method();
  if (!bio) return bio.error();
  if (Status s = load_key_pair(ctx->get(), cert_file, key_file, "--tls", "--tls"); !s) return s.error();
  SSL_CTX_set_alpn_select_cb(ctx->get(), select_http11, nullptr);
  ContextFacts facts;
  facts.is_client = false;
  return std::unique_ptr<Context>(new OpenSslContext(std::move(facts), std::move(*ctx), std::move(*bio)));
}

std::unique_ptr<Link> OpenSslContext::link() const { return std::make_unique<OpenSslLink>(); }

std::unique_ptr<Sessions> OpenSslContext::sessions() const { return std::make_unique<OpenSslSessions>(); }

std::string take_openssl_error(std::string_view fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return std::string(fallback);
  const char* reason = ERR_reason_error_string(code);
  if (reason != nullptr) return reason;
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

}  // namespace pacer::tls
