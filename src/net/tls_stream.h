// One TLS connection over a non-blocking socket: owns its SSL (RAII), drives the
// handshake step by step, and reads and writes plaintext. Every call returns at
// once with what happened (done, want-read, want-write, closed, error), so an
// edge-triggered event loop can wait for the right readiness. Owned by the
// connection that owns the socket, touched only by that connection's thread.
//
// The socket itself is not owned: the caller closes it after close().
// Client SSLs carry their worker's TlsSessionCache as SSL app data (read by the
// context's new-session callback).
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "net/tls_context.h"

namespace pacer::net {

enum class IoStatus : std::uint8_t {
  kOk,         // bytes moved (read: > 0 bytes), or the handshake finished
  kWantRead,   // wait for the socket to become readable, then call again
  kWantWrite,  // wait for it to become writable, then call again
  kClosed,     // the peer closed the stream (EOF or close_notify)
  kError,      // a socket error; `err` is the errno
  kTlsError,   // a TLS failure (bad certificate, protocol error); see TlsStream::describe_failure
};

struct IoResult {
  std::size_t bytes = 0;
  IoStatus status = IoStatus::kOk;
  int err = 0;  // kError: errno
};

class TlsStream {
 public:
  TlsStream() = default;
  TlsStream(TlsStream&&) noexcept = default;
  TlsStream& operator=(TlsStream&&) noexcept = default;
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // Begins a client connection on connected socket fd: SNI and the name check come
  // from the context; a session from `cache` (may be null) is offered for
  // resumption, and new ones are stored there. False if OpenSSL cannot allocate.
  bool start_client(const TlsContext& context, int fd, TlsSessionCache* cache);
  // Begins the server side on an accepted socket fd.
  bool start_server(const TlsContext& context, int fd);

  // One step of the handshake: kOk once it is complete.
  IoStatus handshake();
  // Plaintext in and out. Reads return at most one TLS record's worth: call again
  // until kWantRead before waiting (OpenSSL may hold more than one read's worth).
  IoResult read(char* buffer, std::size_t length);
  IoResult write(const char* data, std::size_t length);
  // When the kernel received the bytes that the last read() took from the
  // socket (monotonic), if the socket has receive stamps on
  // (net/receive_stamp.h); 0 if not, or if that read took none from the socket.
  TimeNs receive_stamp() const;
  // After a read that returned data: whether nothing is left to read, neither in
  // the socket (a recv made by that read came back short; with read-ahead, as
  // client contexts have, it asks for all there is) nor in OpenSSL's buffers.
  // False when unsure (that read made no recv): the caller reads again.
  bool drained() const;

  // Sends close_notify if the handshake completed (so the session stays
  // resumable), then frees the SSL. The socket stays open. Idempotent.
  void close();

  bool active() const { return ssl() != nullptr; }
  bool is_established() const { return state_ && state_->established; }
  // After the handshake: whether it resumed a session, and the ALPN protocol
  // chosen ("" when none).
  bool resumed() const;
  std::string_view alpn() const;
  // The negotiated protocol ("TLSv1.3") and cipher ("TLS_AES_128_GCM_SHA256"); empty when inactive.
  std::string_view protocol() const;
  std::string_view cipher() const;

  // Why the last kTlsError (or a failed handshake) happened, e.g. "certificate
  // verify failed: self-signed certificate"; NUL-terminated, truncated to fit.
  // No allocation.
  void describe_failure(std::span<char> out) const;

 private:
  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  // What a connection holds only once it speaks TLS, out of line so that a plain
  // connection's TlsStream is one pointer. Kept (and reused) after close(): the
  // failure stays for describe_failure.
  struct State {
    std::unique_ptr<SSL, SslFree> ssl;
    bool established = false;
    unsigned long error_code = 0;  // the first OpenSSL error of the last failure
    long verify_result = X509_V_OK;
    int socket_errno = 0;          // the socket error of the last failure, if any
  };
  bool attach(const TlsContext& context, int fd);
  SSL* ssl() const { return state_ ? state_->ssl.get() : nullptr; }
  BioSocket* socket() const;  // the read BIO's data; only while active
  IoResult failed(int rc);

  std::unique_ptr<State> state_;  // null until the first start
};

}  // namespace pacer::net
