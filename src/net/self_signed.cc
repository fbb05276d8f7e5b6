// Self-signed certificates: the names, the files, and the certificate itself
// from the TLS module (tls/certificate.h). See self_signed.h.
#include "net/self_signed.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/unique_fd.h"
#include "net/tls_module.h"

namespace pacer::net {
namespace {

Status write_file(const std::string& path, const std::string& content, mode_t mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid()) return runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return runtime_error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  return Ok{};
}

}  // namespace

std::vector<std::string> default_certificate_hosts() { return {"localhost", "127.0.0.1", "::1"}; }

Result<PemPair> make_self_signed(const std::vector<std::string>& hosts, int valid_days) {
  if (hosts.empty()) return bad_argument("a certificate needs at least one host name");
  if (valid_days < 1) return bad_argument("a certificate must be valid for at least one day");
  auto module = tls_module();
  if (!module) return module.error();
  return (*module)->self_signed(hosts, valid_days);
}

Status write_pem_pair(const PemPair& pair, const std::string& dir) {
  // Like `mkdir -p DIR`: the directory and its missing parents (0755).
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return runtime_error(fmt::format("cannot create the directory '{}': {}", dir, error.message()));
  if (Status s = write_file(dir + "/cert.pem", pair.certificate_pem, 0644); !s) return s;
  return write_file(dir + "/key.pem", pair.private_key_pem, 0600);
}

}  // namespace pacer::net
