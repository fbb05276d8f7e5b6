// The least an HTTP/1.1 client can do per request over loopback TCP: one write
// and one read per request, edge-triggered epoll, no parser, no clock, no
// statistics. Its CPU time per request is the floor that the kernel charges any
// closed-loop client (pacer, wrk) for the same traffic: bench/compare_floor.sh sets
// pacer's and wrk's figures beside it.
//
// Responses must all have the size of the first one (a static file, `pacer
// serve`'s /bytes/N): a blocking probe request learns it, and after that bytes are
// only counted. Each response that starts a read must begin with "HTTP/1.1 2", or
// the run stops with an error, so a server that changes its answers cannot
// produce a silent wrong count.
//
//   floor_client [--stamps] -t THREADS -c CONNECTIONS -d SECONDS http://127.0.0.1:PORT/PATH
//
// --stamps reads with recvmsg and SO_TIMESTAMPNS, as pacer does for its latency
// end, to show what the kernel's receive stamps cost. Loopback addresses only.
// Prints wrk's summary lines ("N requests in Ts, B read", "Requests/sec:").
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

struct Options {
  bool stamps = false;
  int threads = 1;
  int connections = 10;
  int seconds = 5;
  in_addr address{};
  std::uint16_t port = 80;
  std::string request;
};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "floor_client: %s\n", message.c_str());
  std::exit(2);
}

int positive(const char* flag, const char* value) {
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || n < 1 || n > 1000000) die(std::string(flag) + " needs a positive number, got '" + value + "'");
  return static_cast<int>(n);
}

// http://127.x.y.z:PORT/PATH -> address, port, and the request wrk would send.
void parse_url(std::string_view url, Options& options) {
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
  options.request = "GET " + std::string(path) + " HTTP/1.1\r\nHost: " + std::string(authority) + "\r\n\r\n";
}

Options parse(int argc, char** argv) {
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
  if (options.threads > options.connections) options.threads = options.connections;
  return options;
}

int dial(const Options& options) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(options.port);
  to.sin_addr = options.address;
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    die(std::string("connect: ") + std::strerror(errno));
  }
  if (options.stamps) {
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
  }
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
    die(std::string("send: ") + std::strerror(errno));  // a small request fits an empty socket buffer
  }
}

// One blocking request: the size of every response in this run.
std::size_t probe_response_size(const Options& options) {
  const int fd = dial(options);
  send_all(fd, options.request);
  std::string got;
  char buffer[65536];
  std::size_t total = 0;
  while (total == 0 || got.size() < total) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) die("the probe's response ended early");
    got.append(buffer, static_cast<std::size_t>(n));
    const std::size_t head_end = got.find("\r\n\r\n");
    if (total == 0 && head_end != std::string::npos) {
      if (!got.starts_with("HTTP/1.1 2")) die("the probe's response is not a 2xx: " + got.substr(0, got.find('\r')));
      const std::size_t field = got.find("Content-Length: ");
      if (field == std::string::npos || field > head_end) die("the probe's response has no Content-Length");
      total = head_end + 4 + std::strtoul(got.c_str() + field + 16, nullptr, 10);
    }
  }
  ::close(fd);
  return total;
}

struct ThreadResult {
  std::uint64_t responses = 0;
  std::uint64_t bytes = 0;
};

class FloorThread {
 public:
  FloorThread(const Options& options, int connections, std::size_t response_size)
      : options_(options), response_size_(response_size), buffer_(65536), received_(static_cast<std::size_t>(connections)) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < connections; ++i) fds_.push_back(dial(options));
  }

  ThreadResult run(const std::atomic<bool>& stop) {
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      epoll_event event{};
      event.events = EPOLLIN | EPOLLET;
      event.data.u64 = i;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fds_[i], &event);
      send_all(fds_[i], options_.request);
    }
    std::vector<epoll_event> events(256);
    while (!stop.load(std::memory_order_relaxed)) {
      const int n = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 100);
      for (int e = 0; e < n; ++e) read_responses(events[static_cast<std::size_t>(e)].data.u64);
    }
    for (const int fd : fds_) ::close(fd);
    ::close(epoll_);
    return result_;
  }

 private:
  void read_responses(std::size_t index) {
    const int fd = fds_[index];
    while (true) {
      const ssize_t n = receive(fd);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) die(n == 0 ? "the server closed a connection" : std::string("read: ") + std::strerror(errno));
      std::size_t& received = received_[index];
      if (received == 0 && std::string_view(buffer_.data(), static_cast<std::size_t>(n)).substr(0, 10) != "HTTP/1.1 2") {
        die("a response is not a 2xx of the probe's size");
      }
      received += static_cast<std::size_t>(n);
      result_.bytes += static_cast<std::uint64_t>(n);
      // One request is in flight per connection, so a read ends at most one response.
      if (received > response_size_) die("a response is larger than the probe's");
      if (received == response_size_) {
        received = 0;
        ++result_.responses;
        send_all(fd, options_.request);  // closed loop: the next request
      }
      if (static_cast<std::size_t>(n) < buffer_.size()) return;  // drained: the next edge brings more
    }
  }

  ssize_t receive(int fd) {
    if (!options_.stamps) return ::read(fd, buffer_.data(), buffer_.size());
    iovec io{buffer_.data(), buffer_.size()};
    alignas(cmsghdr) char control[64];
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &message, 0);
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) std::memcpy(&stamp_, CMSG_DATA(c), sizeof stamp_);
    }
    return n;
  }

  const Options& options_;
  const std::size_t response_size_;
  int epoll_ = -1;
  std::vector<int> fds_;
  std::vector<char> buffer_;
  std::vector<std::size_t> received_;  // bytes of the response in progress, per connection
  timespec stamp_{};                   // --stamps: the last read's (read, as pacer reads it, not used)
  ThreadResult result_;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const std::size_t response_size = probe_response_size(options);
  std::vector<std::unique_ptr<FloorThread>> threads;
  for (int t = 0; t < options.threads; ++t) {
    // Connections spread as pacer spreads them (4/3/3 for -t3 -c10).
    const int share = options.connections / options.threads + (t < options.connections % options.threads ? 1 : 0);
    threads.push_back(std::make_unique<FloorThread>(options, share, response_size));
  }
  std::atomic<bool> stop{false};
  std::vector<ThreadResult> results(threads.size());
  std::vector<std::thread> running;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t t = 0; t < threads.size(); ++t) {
    running.emplace_back([&, t] { results[t] = threads[t]->run(stop); });
  }
  std::this_thread::sleep_until(start + std::chrono::seconds(options.seconds));  // the run's length, not a synchronisation
  stop.store(true, std::memory_order_relaxed);
  for (std::thread& t : running) t.join();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ThreadResult total;
  for (const ThreadResult& r : results) {
    total.responses += r.responses;
    total.bytes += r.bytes;
  }
  std::printf("  %llu requests in %.2fs, %.2fMB read\n", static_cast<unsigned long long>(total.responses), elapsed,
              static_cast<double>(total.bytes) / 1048576.0);
  std::printf("Requests/sec: %.2f\n", static_cast<double>(total.responses) / elapsed);
  return 0;
}
