#include "net/address.h"
#include "net/bind_list.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/unique_fd.h"
#include "net/socket.h"

namespace pacer::net {

std::string Address::to_string() const {
  if (family() == AF_UNIX) return "unix:" + std::string(reinterpret_cast<const sockaddr_un*>(&storage)->sun_path);
  char text[INET6_ADDRSTRLEN] = {};
  if (family() == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    return fmt::format("[{}]:{}", text, ntohs(a->sin6_port));
  }
  const auto* a = reinterpret_cast<const sockaddr_in*>(&storage);
  inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
  return fmt::format("{}:{}", text, ntohs(a->sin_port));
}

Result<std::vector<Address>> resolve(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* raw = nullptr;
  const std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &raw);
  if (rc == EAI_NONAME || rc == EAI_ADDRFAMILY) {
    // AI_ADDRCONFIG hides ::1 when the machine has no global IPv6 address; retry without it.
    hints.ai_flags = 0;
    rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &raw);
  }
  if (rc != 0) return runtime_error(fmt::format("cannot resolve host '{}': {}", host, gai_strerror(rc)));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(raw, &freeaddrinfo);
  std::vector<Address> out;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
    Address a;
    std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
    a.length = static_cast<socklen_t>(ai->ai_addrlen);
    out.push_back(a);
  }
  if (out.empty()) return runtime_error(fmt::format("host '{}' has no IPv4 or IPv6 address", host));
  return out;
}

Result<Address> unix_address(const std::string& path) {
  Address a;
  auto* un = reinterpret_cast<sockaddr_un*>(&a.storage);
  if (path.empty() || path.size() > kMaxUnixPathBytes) {
    return runtime_error(fmt::format("unix socket path '{}' does not fit a socket address", path));
  }
  un->sun_family = AF_UNIX;
  std::memcpy(un->sun_path, path.data(), path.size());
  a.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return a;
}

namespace {

// Connect with a timeout; returns 0 (fd connected) or an errno value.
int try_connect(const Address& address, TimeNs timeout_ns, UniqueFd& fd, const Address* local) {
  fd.reset(open_tcp_socket(address.family()));
  if (!fd.valid()) return errno;
  if (local != nullptr) {
    if (const int err = bind_before_connect(fd.get(), *local); err != 0) return err;
  }
  if (::connect(fd.get(), address.sockaddr_ptr(), address.length) == 0) return 0;
  if (errno != EINPROGRESS) return errno;
  pollfd p{fd.get(), POLLOUT, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout_ns / kNsPerMs));
  if (ready == 0) return ETIMEDOUT;
  if (ready < 0) return errno;
  return socket_error(fd.get());
}

}  // namespace

Result<Connected> first_connectable(const std::vector<Address>& addresses, TimeNs timeout_ns, const Address* local) {
  std::string failures;
  for (const Address& a : addresses) {
    UniqueFd fd;
    const TimeNs start = monotonic_now_ns();
    const int err = try_connect(a, timeout_ns, fd, local);
    if (err == 0) return Connected{a, std::move(fd), monotonic_now_ns() - start};
    failures += fmt::format("{}{}: {}", failures.empty() ? "" : ", ", a.to_string(), std::strerror(err));
  }
  return runtime_error(fmt::format("unable to connect ({})", failures));
}

}  // namespace pacer::net
