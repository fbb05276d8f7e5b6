// Kernel receive timestamps for the --log-arrivals log. A request "arrives" when
// the kernel queues its bytes on the socket, not when this server's thread wakes
// up to read them: the wake-up delay belongs to the server, and the log is meant
// to show how evenly the client sent. The kernel stamps with CLOCK_REALTIME; the
// log is in CLOCK_MONOTONIC, so each stamp is shifted by the current offset
// between the two. Used only when the log is on; any thread.
#pragma once

#include <cstddef>

#include "core/clock.h"
#include "net/tls_stream.h"

namespace pacer::server {

// Asks the kernel to stamp received data on `fd` (SO_TIMESTAMPNS). Set on the
// listening socket, accepted sockets inherit it. Returns false if refused.
bool enable_receive_stamps(int fd);

struct StampedRead {
  net::IoResult io;              // as net::plain_read reports it
  TimeNs kernel_arrival_ns = 0;  // monotonic; 0 when the data came unstamped
};

// A plain socket read (net::plain_read) that also says when the kernel received the data. Data can come
// unstamped: the kernel turns stamping on a moment after the first socket asks
// for it (deferred work), and a socket without the flag never gets stamps.
StampedRead read_stamped(int fd, char* buffer, std::size_t bytes);

}  // namespace pacer::server
