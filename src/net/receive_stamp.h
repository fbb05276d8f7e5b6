// Kernel receive timestamps: when the kernel queued received bytes on a socket,
// not when the reading thread woke up to read them. The server's --log-arrivals
// log uses them to show how evenly the client sent (the server's own wake-up
// delay is not the client's); the client uses them to end a response's latency
// at the moment its bytes arrived, so its own wake-up delay is not the server's.
// The kernel stamps with CLOCK_REALTIME; each stamp is shifted to CLOCK_MONOTONIC
// by the current offset between the two. Any thread.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>

#include "core/clock.h"
#include "net/tls_stream.h"

namespace pacer::net {

// Asks the kernel to stamp received data on `fd` (SO_TIMESTAMPNS). Set on a
// listening socket, accepted sockets inherit it. Returns false if refused.
bool enable_receive_stamps(int fd);

// The receive stamp in a received message's control data (SCM_TIMESTAMPNS),
// shifted to CLOCK_MONOTONIC and never later than now; 0 when it carries none.
// For callers with their own recvmsg/recvmmsg (recv_stamped, net::DatagramReader).
TimeNs message_stamp(const msghdr& message);

struct StampedRead {
  IoResult io;                   // as plain_read reports it
  TimeNs kernel_arrival_ns = 0;  // monotonic; 0 when the data came unstamped
};

// recv(2) (EINTR retried) that also sets `stamp` to when the kernel received the
// data (monotonic; 0 when unstamped). Returns what recv returns; errno as recv
// leaves it. For callers that need the raw result (the TLS socket BIO).
ssize_t recv_stamped(int fd, char* buffer, std::size_t bytes, TimeNs& stamp);

// A plain socket read (plain_read) that also says when the kernel received the
// data (of the last segment read). Data can come unstamped: the kernel turns
// stamping on a moment after the first socket asks for it (deferred work), and a
// socket without the flag never gets stamps.
StampedRead read_stamped(int fd, char* buffer, std::size_t bytes);

// stream_read with a stamp: a plain socket through read_stamped; TLS through its
// socket BIO, which reads with recv_stamped (TlsStream::receive_stamp). Inline:
// the HTTP/3 module links this file's socket half without TlsStream.
inline StampedRead stream_read_stamped(int fd, TlsStream& tls, char* buffer, std::size_t bytes) {
  if (tls.active()) {
    const IoResult io = tls.read(buffer, bytes);
    return StampedRead{io, tls.receive_stamp()};
  }
  return read_stamped(fd, buffer, bytes);
}

}  // namespace pacer::net
