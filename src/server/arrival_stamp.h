// Kernel receive timestamps for the --log-arrivals log. A request "arrives" when
// the kernel queues its bytes on the socket, not when this server's thread wakes
// up to read them: the wake-up delay belongs to the server, and the log is meant
// to show how evenly the client sent. The kernel stamps with CLOCK_REALTIME; the
// log is in CLOCK_MONOTONIC, so each stamp is shifted by the current offset
// between the two. Used only when the log is on; any thread.
#pragma once

#include <cstddef>
#include <sys/types.h>

#include "core/clock.h"

namespace pacer::server {

// Asks the kernel to stamp received data on `fd` (SO_TIMESTAMPNS). Set on the
// listening socket, accepted sockets inherit it. Returns false if refused.
bool enable_receive_stamps(int fd);

// read(2) that also returns when the kernel received the data (monotonic ns).
// `arrival_ns` is set only when got > 0: to the kernel's stamp when there is one,
// otherwise to the current time.
ssize_t read_stamped(int fd, char* buffer, std::size_t bytes, TimeNs& arrival_ns);

}  // namespace pacer::server
