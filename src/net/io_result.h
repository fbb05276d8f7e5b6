// What one read, write or handshake step on a socket did, in the same terms for
// plain sockets (net/transport.h) and TLS (net/tls_stream.h), so the caller has
// one set of cases. Plain values; any thread.
#pragma once

#include <cstddef>
#include <cstdint>

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

}  // namespace pacer::net
