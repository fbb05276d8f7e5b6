// Configuration of `pacer serve`, the built-in test target (DESIGN.md section 8).
#pragma once

#include <cstdint>
#include <string>

#include "core/clock.h"

namespace pacer::server {

struct ServeConfig {
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 8080;   // 0: pick a free port (printed at start)
  std::string unix_path;              // --listen unix:PATH: a Unix domain socket instead (host, port unused)
  int threads = 2;
  TimeNs freeze_at_ns = -1;           // <0: no freeze; else measured from the first request
  TimeNs freeze_for_ns = 0;
  std::string log_arrivals_path;      // empty: off
  std::string tls_cert_path;          // --tls CERT KEY: serve HTTPS (PEM files); both empty: plain HTTP
  std::string tls_key_path;
  bool is_tls() const { return !tls_cert_path.empty(); }
};

}  // namespace pacer::server
