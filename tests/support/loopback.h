// Test support: a `pacer serve` in-process on a free loopback port, and a Config
// aimed at one of its routes.
#pragma once

#include <memory>
#include <string>

#include "core/config.h"
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

inline Config config_for(const server::Server& srv, const std::string& path) {
  Config c;
  c.target.scheme = "http";
  c.target.host = "127.0.0.1";
  c.target.port = srv.port();
  c.target.has_explicit_port = true;
  c.target.path = path;
  c.target.url = "http://127.0.0.1:" + std::to_string(srv.port()) + path;
  c.threads = 1;
  c.connections = 4;
  return c;
}

}  // namespace pacer::testing
