// The least an HTTP client can do per request over loopback TCP: one write and
// one read per request (per batch of requests, for HTTP/2 streams), edge-triggered
// epoll, no parser beyond counting, no clock, no statistics. Its CPU time per
// request is the floor that the kernel charges any closed-loop client for the same
// traffic: bench/compare_floor.sh sets pacer's and wrk's figures beside it, and
// bench/compare_h2load.sh (--http2) pacer's and h2load's.
//
// HTTP/1.1: responses must all have the size of the first one (a static file,
// `pacer serve`'s /bytes/N): a blocking probe request learns it, and after that
// bytes are only counted. Each response that starts a read must begin with
// "HTTP/1.1 2", or the run stops with an error, so a server that changes its
// answers cannot produce a silent wrong count. HTTP/2: see bench/floor_h2.h.
//
//   floor_client [--stamps] [--http2 [-m STREAMS]] -t THREADS -c CONNECTIONS -d SECONDS http://127.0.0.1:PORT/PATH
//
// --stamps reads with recvmsg and SO_TIMESTAMPNS, as pacer does for its latency
// end, to show what the kernel's receive stamps cost. Loopback addresses only.
// Prints wrk's summary lines ("N requests in Ts, B read", "Requests/sec:").
#include <sys/epoll.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "floor_common.h"
#include "floor_h2.h"

namespace floor_client {
namespace {

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

class Http1Floor : public FloorThread {
 public:
  Http1Floor(const Options& options, int connections, std::size_t response_size)
      : options_(options), response_size_(response_size), buffer_(65536), received_(static_cast<std::size_t>(connections)) {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < connections; ++i) fds_.push_back(dial(options));
  }

  ThreadResult run(const std::atomic<bool>& stop) override {
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
      const ssize_t n = receive(fd, buffer_.data(), buffer_.size(), options_.stamps);
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

  const Options& options_;
  const std::size_t response_size_;
  int epoll_ = -1;
  std::vector<int> fds_;
  std::vector<char> buffer_;
  std::vector<std::size_t> received_;  // bytes of the response in progress, per connection
  ThreadResult result_;
};

}  // namespace
}  // namespace floor_client

int main(int argc, char** argv) {
  using namespace floor_client;
  const Options options = parse(argc, argv);
  const std::size_t response_size = options.http2 ? 0 : probe_response_size(options);
  std::vector<std::unique_ptr<FloorThread>> threads;
  for (int t = 0; t < options.threads; ++t) {
    // Connections spread as pacer spreads them (4/3/3 for -t3 -c10).
    const int share = options.connections / options.threads + (t < options.connections % options.threads ? 1 : 0);
    if (options.http2) {
      threads.push_back(std::make_unique<Http2Floor>(options, share));
    } else {
      threads.push_back(std::make_unique<Http1Floor>(options, share, response_size));
    }
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
