// Thin wrappers over the socket calls every connection makes.
#pragma once

namespace pacer::net {

// A non-blocking, close-on-exec stream socket of `family` (TCP with TCP_NODELAY,
// or AF_UNIX for --unix-socket); -1 and errno on failure.
int open_tcp_socket(int family);

// The pending error of a socket (SO_ERROR): 0 when a connect succeeded.
int socket_error(int fd);

// A TCP connect whose SYN has had no answer yet (the kernel's SYN_SENT); false
// for anything else, or when the kernel cannot say.
bool syn_unanswered(int fd);

}  // namespace pacer::net
