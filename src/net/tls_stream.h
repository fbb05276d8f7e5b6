// One TLS connection over a non-blocking socket: drives the handshake step by
// step, and reads and writes plaintext. Every call returns at once with what
// happened (done, want-read, want-write, closed, error), so an edge-triggered
// event loop can wait for the right readiness. Owned by the connection that owns
// the socket, touched only by that connection's thread.
//
// The TLS itself is the TLS module's (tls/module.h: an OpenSSL SSL behind
// tls::Link, made by the context of the first start): a plain connection's
// TlsStream is one null pointer, and a call on an active one is one virtual call.
// The socket itself is not owned: the caller closes it after close().
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

#include "net/io_result.h"
#include "net/tls_context.h"

namespace pacer::net {

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
  IoStatus handshake() { return link_->handshake(); }
  // Plaintext in and out. Reads return at most one TLS record's worth: call again
  // until kWantRead before waiting (OpenSSL may hold more than one read's worth).
  IoResult read(char* buffer, std::size_t length) { return link_->read(buffer, length); }
  IoResult write(const char* data, std::size_t length) { return link_->write(data, length); }
  // When the kernel received the bytes that the last read() took from the
  // socket (monotonic), if the socket has receive stamps on
  // (net/receive_stamp.h); 0 if not, or if that read took none from the socket.
  TimeNs receive_stamp() const { return active() ? link_->receive_stamp() : 0; }
  // After a read that returned data: whether nothing is left to read, neither in
  // the socket (a recv made by that read came back short; with read-ahead, as
  // client contexts have, it asks for all there is) nor in OpenSSL's buffers.
  // False when unsure (that read made no recv): the caller reads again.
  bool drained() const { return active() && link_->drained(); }

  // Sends close_notify if the handshake completed (so the session stays
  // resumable), then frees the SSL. The socket stays open. Idempotent.
  void close() {
    if (link_) link_->close();
  }

  bool active() const { return link_ != nullptr && link_->active(); }
  bool is_established() const { return link_ != nullptr && link_->established(); }
  // After the handshake: whether it resumed a session, and the ALPN protocol
  // chosen ("" when none).
  bool resumed() const { return active() && link_->resumed(); }
  std::string_view alpn() const { return active() ? link_->alpn() : std::string_view(); }
  // The negotiated protocol ("TLSv1.3") and cipher ("TLS_AES_128_GCM_SHA256"); empty when inactive.
  std::string_view protocol() const { return active() ? link_->protocol() : std::string_view(); }
  std::string_view cipher() const { return active() ? link_->cipher() : std::string_view(); }

  // Why the last kTlsError (or a failed handshake) happened, e.g. "certificate
  // verify failed: self-signed certificate"; NUL-terminated, truncated to fit.
  // No allocation.
  void describe_failure(std::span<char> out) const;

 private:
  // Made by the first start's context, kept (and reused) after close().
  std::unique_ptr<tls::Link> link_;
};

}  // namespace pacer::net
