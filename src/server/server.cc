// Server: the listening socket, starting and stopping the workers, and the
// counters' sums. Runs on the caller's thread. See server.h.
#include "server/server.h"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/stop_signals_thread.h"
#include "net/address.h"
#include "net/receive_stamp.h"
#include "server/arrivals_log.h"
#include "server/body_stream.h"
#include "server/worker.h"

namespace pacer::server {
namespace {

constexpr int kListenBacklog = 16384;  // the kernel caps it at net.core.somaxconn

std::string host_port(const std::string& host, std::uint16_t port) {
  return host.find(':') == std::string::npos ? fmt::format("{}:{}", host, port) : fmt::format("[{}]:{}", host, port);
}

// --listen unix:PATH. A socket file left by an earlier server is replaced;
// any other file at PATH is not touched.
Result<UniqueFd> listen_on_unix(const ServeConfig& config) {
  const std::string& path = config.unix_path;
  const auto address = net::unix_address(path);
  if (!address) return bad_argument(fmt::format("unix socket path too long: {}", path));
  struct stat existing{};
  if (::lstat(path.c_str(), &existing) == 0 && S_ISSOCK(existing.st_mode)) ::unlink(path.c_str());
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid() || ::bind(fd.get(), address->sockaddr_ptr(), address->length) != 0 ||
      ::listen(fd.get(), kListenBacklog) != 0) {
    return runtime_error(fmt::format("cannot listen on unix:{}: {}", path, std::strerror(errno)));
  }
  return fd;
}

Result<UniqueFd> listen_on(const ServeConfig& config) {
  if (!config.unix_path.empty()) return listen_on_unix(config);
  const std::string where = host_port(config.listen_host, config.listen_port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(config.listen_port);
  const char* host = config.listen_host.empty() ? nullptr : config.listen_host.c_str();
  if (const int rc = ::getaddrinfo(host, port.c_str(), &hints, &found); rc != 0) {
    return runtime_error(fmt::format("cannot resolve listen address {}: {}", where, ::gai_strerror(rc)));
  }
  const std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> addresses(found, &::freeaddrinfo);
  std::string failure = "no address";
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    UniqueFd fd(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid()) {
      failure = std::strerror(errno);
      continue;
    }
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), kListenBacklog) != 0) {
      failure = std::strerror(errno);
      continue;
    }
    // Accepted sockets inherit the flag, so no request arrives unstamped.
    if (!config.log_arrivals_path.empty() && !net::enable_receive_stamps(fd.get())) {
      return runtime_error(fmt::format("cannot enable receive timestamps on {}: {}", where, std::strerror(errno)));
    }
    return fd;
  }
  return runtime_error(fmt::format("cannot listen on {}: {}", where, failure));
}

Result<std::uint16_t> bound_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return runtime_error(fmt::format("getsockname: {}", std::strerror(errno)));
  }
  if (address.ss_family == AF_UNIX) return std::uint16_t{0};
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(const ServeConfig& config) {
  if (config.threads < 1) return bad_argument(fmt::format("serve: threads must be at least 1, got {}", config.threads));
  if (config.freeze_for_ns < 0) return bad_argument("serve: the freeze duration must not be negative");
  body_pattern();  // build the static bodies now, not on the first request
  std::optional<net::TlsContext> tls;
  if (config.is_tls()) {
    auto context = net::TlsContext::server(config.tls_cert_path, config.tls_key_path);
    if (!context) return context.error();
    tls.emplace(std::move(*context));
  }
  Result<UniqueFd> listen_fd = listen_on(config);
  if (!listen_fd) return listen_fd.error();
  Result<std::uint16_t> port = bound_port(listen_fd->get());
  if (!port) return port.error();

  std::unique_ptr<Server> server(new Server(std::move(*listen_fd), *port, config, std::move(tls)));
  for (int i = 0; i < config.threads; ++i) {
    auto worker = std::make_unique<Worker>(i, server->shared_, server->listen_fd_.get());
    if (Status status = worker->init(); !status) return status.error();
    server->workers_.push_back(std::move(worker));
  }
  server->threads_.reserve(server->workers_.size());
  for (const auto& worker : server->workers_) {
    server->threads_.push_back(thread_leaving_stop_signals([w = worker.get()] { w->run(); }));
  }
  return server;
}

Server::Server(UniqueFd listen_fd, std::uint16_t port, const ServeConfig& config,
               std::optional<net::TlsContext> tls)
    : tls_(std::move(tls)), listen_fd_(std::move(listen_fd)), port_(port), shared_(config, config.threads) {
  shared_.tls = tls_ ? &*tls_ : nullptr;
}

Server::~Server() { stop(); }

std::uint64_t Server::requests_answered() const { return shared_.sum(&WorkerCounters::requests_answered); }
std::uint64_t Server::connections_accepted() const { return shared_.sum(&WorkerCounters::connections_accepted); }
std::uint64_t Server::requests_received() const { return shared_.sum(&WorkerCounters::requests_received); }
std::uint64_t Server::connections_open() const { return shared_.sum(&WorkerCounters::connections_open); }

void Server::stop() {
  if (stopped_) return;
  stopped_ = true;
  shared_.stop_requested.store(true, std::memory_order_release);
  for (const auto& worker : workers_) worker->wake();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  listen_fd_.reset();
  if (!shared_.config.log_arrivals_path.empty()) {
    std::vector<const std::vector<TimeNs>*> per_worker;
    for (const auto& worker : workers_) per_worker.push_back(&worker->arrivals());
    if (Status written = write_arrivals_log(shared_.config.log_arrivals_path, per_worker); !written) {
      fmt::print(stderr, "pacer serve: {}\n", written.error().message);
    }
  }
  workers_.clear();  // closes every connection
}

}  // namespace pacer::server
