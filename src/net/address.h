// Name resolution and the start-up connection probe. Runs once, on the main
// thread, before any worker starts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "core/unique_fd.h"

namespace pacer::net {

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family() const { return storage.ss_family; }
  const sockaddr* sockaddr_ptr() const { return reinterpret_cast<const sockaddr*>(&storage); }
  std::string to_string() const;  // "127.0.0.1:8080", "[::1]:8080" or "unix:/run/app.sock"
};

// An IPv4 or IPv6 address literal (an IPv6 zone, "%eth0", ignored): checked as an
// IP address, never sent as SNI. Both TLS stacks (OpenSSL for TCP, GnuTLS for
// QUIC); inline, so the HTTP/3 module (src/quic/module.h) needs no net/ code.
inline bool is_ip_literal(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  const std::string bare = host.substr(0, host.find('%'));
  return inet_pton(AF_INET, bare.c_str(), buf) == 1 || inet_pton(AF_INET6, bare.c_str(), buf) == 1;
}

// The longest Unix socket path an address holds (sun_path less its NUL).
inline constexpr std::size_t kMaxUnixPathBytes = sizeof(sockaddr_un{}.sun_path) - 1;

// The address of a Unix domain stream socket (--unix-socket, pacer serve's
// --listen unix:). The path is 1 to kMaxUnixPathBytes bytes (cli checks it); an
// error names the path otherwise.
Result<Address> unix_address(const std::string& path);

// Every IPv4 and IPv6 address of host (in getaddrinfo's order). An error names
// the host and the resolver's reason.
Result<std::vector<Address>> resolve(const std::string& host, std::uint16_t port);

// A connected, non-blocking stream socket (TCP or Unix) and where it goes.
struct Connected {
  Address address;
  UniqueFd fd;
  TimeNs connect_ns = 0;  // how long the connect took
};

// Tries each address in order and returns a connection to the first that
// accepts within timeout_ns; the run uses that socket as its first connection,
// so the server sees exactly -c connections. The error lists every address with
// its reason.
// local: --bind's first address, bound before the connect (null: the kernel's choice).
Result<Connected> first_connectable(const std::vector<Address>& addresses, TimeNs timeout_ns,
                                    const Address* local = nullptr);

}  // namespace pacer::net
