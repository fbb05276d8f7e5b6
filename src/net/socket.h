// Thin wrappers over the socket calls every connection makes.
#pragma once

namespace pacer::net {

// A non-blocking, close-on-exec stream socket of `family` (TCP with TCP_NODELAY,
// or AF_UNIX for --unix-socket); -1 and errno on failure.
int open_tcp_socket(int family);

// The pending error of a socket (SO_ERROR): 0 when a connect succeeded.
int socket_error(int fd);

}  // namespace pacer::net
