// Test support: a temporary directory holding a self-signed certificate and key
// made by net::make_self_signed (removed with the object), and an in-process
// `pacer serve --tls` using them.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "net/self_signed.h"
#include "server/server.h"

namespace pacer::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "pacer-tls-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// cert.pem and key.pem in their own directory, for `hosts`.
struct TlsFiles {
  TempDir dir;
  std::string cert;
  std::string key;
  bool ok = false;
  explicit TlsFiles(const std::vector<std::string>& hosts = net::default_certificate_hosts()) {
    auto pair = net::make_self_signed(hosts, 1);
    ok = !dir.path().empty() && pair && net::write_pem_pair(*pair, dir.path());
    cert = dir.file("cert.pem");
    key = dir.file("key.pem");
  }
};

inline std::unique_ptr<server::Server> start_tls_server(const TlsFiles& files, int threads = 1) {
  server::ServeConfig sc;
  sc.listen_host = "127.0.0.1";
  sc.listen_port = 0;
  sc.threads = threads;
  sc.tls_cert_path = files.cert;
  sc.tls_key_path = files.key;
  auto started = server::Server::start(sc);
  if (!started) return nullptr;
  return std::move(*started);
}

}  // namespace pacer::testing
