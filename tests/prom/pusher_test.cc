// Remote-write pushes (src/prom/pusher.h) against a fake receiver on loopback
// that answers each request with the next status of a script.
#include "prom/pusher.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/unique_fd.h"

namespace pacer::prom {
namespace {

class FakeReceiver {
 public:
  // statuses: one per request, in order; the last one repeats.
  explicit FakeReceiver(std::vector<int> statuses) : statuses_(std::move(statuses)) {
    listener_.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(listener_.get(), 16), 0);
    socklen_t len = sizeof addr;
    ::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeReceiver() {
    stop_ = true;
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/api/v1/write"; }
  std::vector<std::string> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const UniqueFd conn(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn.valid()) continue;
      handle(conn.get());
    }
  }
  // One request per connection (the reply closes it).
  void handle(int fd) {
    std::string in;
    char buffer[8192];
    std::size_t want = std::string::npos;
    while (in.size() < want) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return;
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) return;
      in.append(buffer, static_cast<std::size_t>(n));
      const std::size_t end = in.find("\r\n\r\n");
      if (end != std::string::npos && want == std::string::npos) {
        const std::size_t cl = in.find("Content-Length: ");
        want = end + 4 + (cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16)));
      }
    }
    int status = 0;
    {
      std::lock_guard lock(mutex_);
      status = statuses_[std::min(requests_.size(), statuses_.size() - 1)];
      requests_.push_back(in);
    }
    const std::string reply = "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    [[maybe_unused]] const ssize_t w = ::write(fd, reply.data(), reply.size());
  }

  std::vector<int> statuses_;
  UniqueFd listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

PushTarget target_for(const FakeReceiver& receiver) {
  PushTarget t;
  t.url = receiver.url();
  t.timeout_ns = 2 * kNsPerS;
  return t;
}

TEST(RemoteWriter, SendsTheRemoteWriteHeadersAndBody) {
  FakeReceiver receiver({204});
  PushTarget target = target_for(receiver);
  target.bearer_token = "s3cret";
  RemoteWriter writer(target);
  writer.push("body-1");
  writer.push("body-2");
  const PushStats stats = writer.finish(5 * kNsPerS);
  EXPECT_EQ(stats.pushes, 2u);
  EXPECT_EQ(stats.sent, 2u);
  EXPECT_EQ(stats.dropped + stats.failed + stats.retries, 0u);
  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string& first = requests[0];
  EXPECT_EQ(first.rfind("POST /api/v1/write HTTP/1.1\r\n", 0), 0u) << first;
  for (const char* field : {"Content-Encoding: snappy\r\n", "Content-Type: application/x-protobuf\r\n",
                            "X-Prometheus-Remote-Write-Version: 0.1.0\r\n", "Authorization: Bearer s3cret\r\n",
                            "User-Agent: pacer/"}) {
    EXPECT_NE(first.find(field), std::string::npos) << field << " in " << first;
  }
  EXPECT_EQ(first.substr(first.size() - 6), "body-1");
  EXPECT_EQ(requests[1].substr(requests[1].size() - 6), "body-2");  // in order
}

TEST(RemoteWriter, BasicAuthGoesInTheAuthorizationField) {
  FakeReceiver receiver({200});
  PushTarget target = target_for(receiver);
  target.basic_auth = "user:pa:ss";
  RemoteWriter writer(target);
  writer.push("x");
  EXPECT_EQ(writer.finish(5 * kNsPerS).sent, 1u);
  ASSERT_EQ(receiver.requests().size(), 1u);
  EXPECT_NE(receiver.requests()[0].find("Authorization: Basic dXNlcjpwYTpzcw==\r\n"), std::string::npos);
}

TEST(RemoteWriter, RetriesA5xxAnd429ButNotOther4xx) {
  FakeReceiver receiver({503, 429, 204, 400, 204});
  RemoteWriter writer(target_for(receiver));
  writer.push("retried");
  writer.push("refused");
  writer.push("fine");
  const PushStats stats = writer.finish(10 * kNsPerS);
  EXPECT_EQ(stats.retries, 2u);
  EXPECT_EQ(stats.sent, 2u);
  EXPECT_EQ(stats.failed, 1u);
  EXPECT_EQ(stats.last_error, "HTTP 400");
  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 5u);  // the 400 was not retried
  EXPECT_EQ(requests[2].substr(requests[2].size() - 7), "retried");
  EXPECT_EQ(requests[3].substr(requests[3].size() - 7), "refused");
  EXPECT_EQ(requests[4].substr(requests[4].size() - 4), "fine");
}

TEST(RemoteWriter, ADeadReceiverFillsTheQueueDropsAreCountedAndFinishIsBounded) {
  // A port with nothing listening: every attempt fails at once and is retried.
  std::uint16_t port = 0;
  {
    FakeReceiver gone({204});
    port = static_cast<std::uint16_t>(std::stoi(gone.url().substr(17)));
  }
  PushTarget target;
  target.url = "http://127.0.0.1:" + std::to_string(port) + "/api/v1/write";
  RemoteWriter writer(target, 3);
  for (int i = 0; i < 10; ++i) writer.push("b" + std::to_string(i));
  const TimeNs before = monotonic_now_ns();
  const PushStats stats = writer.finish(300 * kNsPerMs);
  const TimeNs took = monotonic_now_ns() - before;
  EXPECT_LT(took, 3 * kNsPerS);
  EXPECT_EQ(stats.pushes, 10u);
  EXPECT_EQ(stats.sent, 0u);
  EXPECT_GE(stats.dropped, 6u);  // at most the queue (3) and the one being retried were kept
  EXPECT_EQ(stats.dropped + stats.failed, 10u);  // none lost silently
  EXPECT_FALSE(stats.last_error.empty());
}

TEST(RemoteWriter, AStopDuringTheFlushEndsItAndTheTransferInProgress) {
  // A receiver that takes connections (the kernel's backlog) and never answers.
  const UniqueFd silent(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(silent.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(silent.get(), 16), 0);
  socklen_t len = sizeof addr;
  ::getsockname(silent.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  PushTarget target;
  target.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/api/v1/write";
  target.timeout_ns = 30 * kNsPerS;
  RemoteWriter writer(target);
  writer.push("waits");
  std::atomic<bool> interrupt{false};
  std::thread ctrl_c([&interrupt] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    interrupt = true;
  });
  const TimeNs before = monotonic_now_ns();
  const PushStats stats = writer.finish(30 * kNsPerS, &interrupt);
  const TimeNs took = monotonic_now_ns() - before;
  ctrl_c.join();
  EXPECT_LT(took, 5 * kNsPerS);
  EXPECT_EQ(stats.sent, 0u);
  EXPECT_EQ(stats.failed, 1u);
}

TEST(RemoteWriter, AStopBeforeTheFlushDoesNotCutIt) {
  FakeReceiver receiver({204});
  RemoteWriter writer(target_for(receiver));
  writer.push("final");
  const std::atomic<bool> interrupted_run{true};  // the run itself was stopped with Ctrl-C
  EXPECT_EQ(writer.finish(5 * kNsPerS, &interrupted_run).sent, 1u);
}

}  // namespace
}  // namespace pacer::prom
