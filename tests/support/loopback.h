// Test support: a `pacer serve` in-process on a free loopback port, a loopback
// listening socket that never accepts, and a Config aimed at either.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "core/config.h"
#include "core/unique_fd.h"
#include "server/server.h"

namespace pacer::testing {

inline std::unique_ptr<server::Server> start_loopback_server(int threads = 1) {
  server::ServeConfig sc;
  sc.listen_host = "127.0.0.1";
  sc.listen_port = 0;
  sc.threads = threads;
  auto started = server::Server::start(sc);
  if (!started) return nullptr;
  return std::move(*started);
}

// A listening socket on 127.0.0.1 that nobody accepts from; its port goes to
// `port` (0 on failure: the socket is then invalid). Linux queues backlog + 1
// connections and then drops every SYN, so a further connect waits (the kernel
// retries the SYN for minutes).
inline UniqueFd listen_never_accepting(int backlog, std::uint16_t& port) {
  port = 0;
  UniqueFd listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (!listener.valid() || ::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener.get(), backlog) != 0 ||
      ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return UniqueFd();
  }
  port = ntohs(address.sin_port);
  return listener;
}

// A port on 127.0.0.1 free a moment ago for `socket_type` (SOCK_STREAM or
// SOCK_DGRAM): bound to port 0, read back, released. For child servers that
// take a port number on their command line.
inline std::uint16_t free_loopback_port(int socket_type) {
  const int fd = ::socket(AF_INET, socket_type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

inline Config config_for_port(std::uint16_t port, const std::string& path, const std::string& scheme = "http") {
  Config c;
  c.target.scheme = scheme;
  c.target.host = "127.0.0.1";
  c.target.port = port;
  c.target.has_explicit_port = true;
  c.target.path = path;
  c.target.url = scheme + "://127.0.0.1:" + std::to_string(port) + path;
  c.threads = 1;
  c.connections = 4;
  return c;
}

inline Config config_for(const server::Server& srv, const std::string& path) { return config_for_port(srv.port(), path); }

// What `srv` has answered once it reached `expected` or 2 s passed: the server
// counts a reply once the kernel took its last byte, which can be just after the
// client has read it, so a test waits (bounded) for the count to arrive.
inline std::uint64_t answered(server::Server& srv, std::uint64_t expected) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (srv.requests_answered() < expected && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  return srv.requests_answered();
}

}  // namespace pacer::testing
