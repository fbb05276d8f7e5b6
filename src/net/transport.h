// The one read/write interface connections use for plain and TLS sockets: a
// connection holds its fd and a TlsStream (inactive for http://), and these
// functions pick the path with one branch per call, never per byte. Plain
// sockets report their outcomes in the same IoResult terms as TLS, so the caller
// has one set of cases (data, would block, closed, error). Any thread; the
// connection's own.
//
// Edge-triggered readers: read until kWantRead, or until read_drained says that
// nothing is left (a plain read shorter than the buffer; for TLS, see
// TlsStream::drained).
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "net/tls_stream.h"

namespace pacer::net {

inline IoResult plain_read(int fd, char* buffer, std::size_t length) {
  while (true) {
    const ssize_t n = ::read(fd, buffer, length);
    if (n > 0) return IoResult{static_cast<std::size_t>(n), IoStatus::kOk, 0};
    if (n == 0) return IoResult{0, IoStatus::kClosed, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return IoResult{0, IoStatus::kWantRead, 0};
    return IoResult{0, IoStatus::kError, errno};
  }
}

inline IoResult plain_write(int fd, const char* data, std::size_t length) {
  while (true) {
    const ssize_t n = ::send(fd, data, length, MSG_NOSIGNAL);
    if (n >= 0) return IoResult{static_cast<std::size_t>(n), IoStatus::kOk, 0};
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return IoResult{0, IoStatus::kWantWrite, 0};
    return IoResult{0, IoStatus::kError, errno};
  }
}

inline IoResult stream_read(int fd, TlsStream& tls, char* buffer, std::size_t length) {
  return tls.active() ? tls.read(buffer, length) : plain_read(fd, buffer, length);
}

inline IoResult stream_write(int fd, TlsStream& tls, const char* data, std::size_t length) {
  return tls.active() ? tls.write(data, length) : plain_write(fd, data, length);
}

// Whether a read that returned `got` of `asked` bytes left nothing to read, so an
// edge-triggered reader can wait for the next edge instead of reading again.
// Plain: a short read drained the socket. TLS: a read returns one record at most,
// so ask the stream (TlsStream::drained).
inline bool read_drained(const TlsStream& tls, std::size_t got, std::size_t asked) {
  return tls.active() ? tls.drained() : got < asked;
}

}  // namespace pacer::net
