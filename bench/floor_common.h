// What the floor clients (bench/floor_client.cc: HTTP/1.1; bench/floor_h2.h:
// HTTP/2 with prior knowledge) share: the command line, the connection, the one
// send and the one receive a request costs them, and a thread's counts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace floor_client {

struct Options {
  bool stamps = false;
  bool http2 = false;
  int streams = 1;  // --http2: requests in flight per connection
  int threads = 1;
  int connections = 10;
  int seconds = 5;
  in_addr address{};
  std::uint16_t port = 80;
  std::string authority;  // 127.0.0.1:PORT, as the URL gives it
  std::string path;
  std::string request;  // HTTP/1.1: the request wrk would send
};

[[noreturn]] inline void die(const std::string& message) {
  std::fprintf(stderr, "floor_client: %s\n", message.c_str());
  std::exit(2);
}

inline int positive(const char* flag, const char* value) {
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || n < 1 || n > 1000000) die(std::string(flag) + " needs a positive number, got '" + value + "'");
  return static_cast<int>(n);
}

// http://127.x.y.z:PORT/PATH -> address, port, authority, path and the HTTP/1.1 request.
inline void parse_url(std::string_view url, Options& options) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) die("the URL must start with http://");
  url.remove_prefix(kScheme.size());
  const std::size_t slash = url.find('/');
  const std::string_view authority = url.substr(0, slash);
  const std::string_view path = slash == std::string_view::npos ? "/" : url.substr(slash);
  const std::size_t colon = authority.find(':');
  const std::string host(authority.substr(0, colon));
  if (colon != std::string_view::npos) {
    options.port = static_cast<std::uint16_t>(positive("the URL's port", std::string(authority.substr(colon + 1)).c_str()));
  }
  if (inet_pton(AF_INET, host.c_str(), &options.address) != 1) die("the host must be an IPv4 address, got '" + host + "'");
  if ((ntohl(options.address.s_addr) >> 24) != 127) die("loopback addresses (127.0.0.0/8) only, got " + host);
  options.authority = authority;
  options.path = path;
  options.request = "GET " + options.path + " HTTP/1.1\r\nHost: " + options.authority + "\r\n\r\n";
}

inline Options parse(int argc, char** argv) {
  Options options;
  const char* url = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    const char* attached = nullptr;  // -c200 as well as -c 200, as run_client passes them
    if (arg.size() > 2 && arg[0] == '-' && arg[1] != '-') {
      attached = argv[i] + 2;
      arg = arg.substr(0, 2);
    }
    auto value = [&]() -> const char* {
      if (attached != nullptr) return attached;
      if (i + 1 >= argc) die(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--stamps") {
      options.stamps = true;
    } else if (arg == "--http2") {
      options.http2 = true;
    } else if (arg == "-m") {
      options.streams = positive("-m", value());
    } else if (arg == "-t") {
      options.threads = positive("-t", value());
    } else if (arg == "-c") {
      options.connections = positive("-c", value());
    } else if (arg == "-d") {
      std::string d = value();
      if (d.ends_with('s')) d.pop_back();  // 5s or 5
      options.seconds = positive("-d", d.c_str());
    } else if (url == nullptr && !arg.starts_with('-')) {
      url = argv[i];
    } else {
      die("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (url == nullptr) die("no URL");
  parse_url(url, options);
  if (options.streams > 1 && !options.http2) die("-m needs --http2 (HTTP/1.1 has one request in flight per connection)");
  if (options.threads > options.connections) options.threads = options.connections;
  return options;
}

inline int dial(const Options& options) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(options.port);
  to.sin_addr = options.address;
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    die(std::string("connect: ") + std::strerror(errno));
  }
  const int on = 1;
  if (options.stamps) ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  // HTTP/2's writes follow one another with requests still unanswered, where Nagle
  // would hold each one for an ACK; pacer and h2load set TCP_NODELAY too.
  if (options.http2) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return fd;
}

inline void send_all(int fd, std::string_view bytes) {
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
    die(std::string("send: ") + std::strerror(errno));  // a few small frames fit an empty socket buffer
  }
}

// One read; with --stamps, recvmsg with the kernel's receive stamp as pacer reads
// it (the stamp is read and not used).
inline ssize_t receive(int fd, char* buffer, std::size_t size, bool stamps) {
  if (!stamps) return ::read(fd, buffer, size);
  iovec io{buffer, size};
  alignas(cmsghdr) char control[64];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t n = ::recvmsg(fd, &message, 0);
  timespec stamp{};
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
  }
  asm volatile("" : : "r"(&stamp) : "memory");  // read, as pacer reads it
  return n;
}

struct ThreadResult {
  std::uint64_t responses = 0;
  std::uint64_t bytes = 0;
};

// One thread's connections, run until `stop`.
class FloorThread {
 public:
  virtual ~FloorThread() = default;
  virtual ThreadResult run(const std::atomic<bool>& stop) = 0;
};

}  // namespace floor_client
