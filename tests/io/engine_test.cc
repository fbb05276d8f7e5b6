// Both I/O engines against the contract of io/engine.h, on loopback sockets: a
// connect reported once, bytes read in order with a kernel receive stamp no later
// than the read, the peer's close, a refused connect, writes that complete (at
// once or after a kWritable event), and a closed channel that reports nothing
// more even when its fd number is reused at once. The same tests run on epoll and
// io_uring (skipped where io_uring cannot run).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/unique_fd.h"
#include "io/select.h"
#include "net/receive_stamp.h"
#include "net/socket.h"

namespace pacer::io {
namespace {

struct Event {
  Channel* channel;
  std::uint32_t flags;
  int err;
};

struct Collector final : Events {
  std::vector<Event> events;
  int wakes = 0;
  TimeNs wake_ns = 0;  // the last on_wake's clock
  void on_wake(TimeNs now_ns) override {
    ++wakes;
    wake_ns = now_ns;
  }
  void on_io(Channel& channel, std::uint32_t flags, int err) override { events.push_back({&channel, flags, err}); }
};

struct Listener {
  UniqueFd fd;
  sockaddr_in address{};
};

Listener listen_loopback() {
  Listener l;
  l.fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  l.address.sin_family = AF_INET;
  l.address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof l.address;
  EXPECT_EQ(::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&l.address), sizeof l.address), 0);
  EXPECT_EQ(::listen(l.fd.get(), 16), 0);
  EXPECT_EQ(::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&l.address), &length), 0);
  return l;
}

class EngineTest : public ::testing::TestWithParam<EngineKind> {
 protected:
  void SetUp() override {
    if (GetParam() == EngineKind::kUring && !uring_unavailable_reason().empty()) {
      GTEST_SKIP() << uring_unavailable_reason();
    }
    auto made = make_engine(GetParam(), EngineSizing{1});  // io_uring: the fewest buffers (64)
    ASSERT_TRUE(made) << made.error().message;
    engine = std::move(*made);
  }

  // Waits (bounded) until an event for `channel` has one of `flags`; returns its flags.
  std::uint32_t wait_for(Channel& channel, std::uint32_t flags, int* err = nullptr) {
    for (int i = 0; i < 200; ++i) {
      collector.events.clear();
      engine->wait(10 * kNsPerMs, collector);
      for (const Event& e : collector.events) {
        if (e.channel == &channel && (e.flags & flags) != 0) {
          if (err != nullptr) *err = e.err;
          return e.flags;
        }
      }
    }
    ADD_FAILURE() << "no event with flags " << flags;
    return 0;
  }

  // Connects `channel` to `l` and accepts the server's side.
  UniqueFd connect_pair(Channel& channel, const Listener& l) {
    const int fd = net::open_tcp_socket(AF_INET);
    net::enable_receive_stamps(fd);
    EXPECT_TRUE(engine->attach(channel, fd, Mode::kStream, false));
    const int r = engine->connect(channel, reinterpret_cast<const sockaddr*>(&l.address), sizeof l.address);
    if (r == EINPROGRESS) {
      int err = -1;
      EXPECT_NE(wait_for(channel, kConnected, &err), 0U);
      EXPECT_EQ(err, 0);
    } else {
      EXPECT_EQ(r, 0);
    }
    return UniqueFd(::accept4(l.fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
  }

  // Writes all of `text` through the engine, waiting for kWritable when it must.
  void write_all(Channel& channel, std::string_view text) {
    net::TlsStream plain;
    std::size_t done = 0;
    for (int i = 0; i < 100 && done < text.size(); ++i) {
      const net::IoResult r = engine->write(channel, plain, {text.data() + done, text.size() - done});
      if (r.status == net::IoStatus::kOk) {
        done += r.bytes;
      } else {
        ASSERT_EQ(r.status, net::IoStatus::kWantWrite);
        wait_for(channel, kWritable);
      }
    }
    EXPECT_EQ(done, text.size());
  }

  // Reads until `want` bytes came (or a bound passes); the stamps seen go to `stamps`.
  std::string read_bytes(Channel& channel, std::size_t want, std::vector<TimeNs>* stamps = nullptr) {
    net::TlsStream plain;
    std::string got;
    for (int i = 0; i < 100 && got.size() < want; ++i) {
      const Received r = engine->read(channel, plain);
      if (r.io.status == net::IoStatus::kOk) {
        got.append(r.data, r.io.bytes);
        if (stamps != nullptr) stamps->push_back(r.stamp);
        continue;
      }
      EXPECT_EQ(r.io.status, net::IoStatus::kWantRead);
      wait_for(channel, kReadable);
    }
    return got;
  }

  std::unique_ptr<Engine> engine;
  Collector collector;
};

TEST_P(EngineTest, ConnectsWritesAndReadsWithKernelStamps) {
  Listener l = listen_loopback();
  Channel channel;
  UniqueFd server = connect_pair(channel, l);
  ASSERT_TRUE(server.valid());
  write_all(channel, "GET / HTTP/1.1\r\n\r\n");
  char request[64];
  ASSERT_EQ(::recv(server.get(), request, sizeof request, 0), 18);
  // Three sends from the server arrive in order; a stamp is never later than the read.
  const TimeNs before = monotonic_now_ns();
  for (const char* part : {"first ", "second ", "third"}) ASSERT_GT(::send(server.get(), part, std::strlen(part), 0), 0);
  std::vector<TimeNs> stamps;
  EXPECT_EQ(read_bytes(channel, 18, &stamps), "first second third");
  const TimeNs after = monotonic_now_ns();
  int stamped = 0;
  for (const TimeNs stamp : stamps) {
    if (stamp == 0) continue;  // the kernel may stamp a moment after the first socket asks
    ++stamped;
    EXPECT_GE(stamp, before - kNsPerMs);  // realtime/monotonic offsets are read separately
    EXPECT_LE(stamp, after);
  }
  // The kernel turns stamping on for the whole system a moment after the first
  // socket asks (a deferred static key), so the first reads of a fresh process may
  // come unstamped: more round trips, until one is stamped (bounded by time).
  const TimeNs deadline = monotonic_now_ns() + 2 * kNsPerS;
  while (stamped == 0 && monotonic_now_ns() < deadline) {
    ASSERT_EQ(::send(server.get(), "x", 1, 0), 1);
    stamps.clear();
    ASSERT_EQ(read_bytes(channel, 1, &stamps), "x");
    for (const TimeNs stamp : stamps) stamped += stamp != 0 ? 1 : 0;
  }
  EXPECT_GT(stamped, 0);
  engine->close(channel);
  EXPECT_EQ(channel.fd, -1);
}

TEST_P(EngineTest, ThePeersCloseReadsAsClosedAfterItsBytes) {
  Listener l = listen_loopback();
  Channel channel;
  UniqueFd server = connect_pair(channel, l);
  ASSERT_GT(::send(server.get(), "bye", 3, 0), 0);
  server.reset();
  EXPECT_EQ(read_bytes(channel, 3), "bye");
  net::TlsStream plain;
  net::IoStatus last = net::IoStatus::kWantRead;
  for (int i = 0; i < 100 && last == net::IoStatus::kWantRead; ++i) {
    last = engine->read(channel, plain).io.status;
    if (last == net::IoStatus::kWantRead) wait_for(channel, kReadable);
  }
  EXPECT_EQ(last, net::IoStatus::kClosed);
  engine->close(channel);
}

TEST_P(EngineTest, AfterFinishAClosedChannelsSocketIsClosedForItsPeer) {
  Listener l = listen_loopback();
  Channel channel;
  UniqueFd server = connect_pair(channel, l);
  collector.events.clear();
  engine->wait(0, collector);  // io_uring: the receive is armed, and holds the socket
  engine->close(channel);
  engine->finish();
  // The peer reads the end while the engine still exists (io_uring without
  // finish: the ring's exit work in the kernel closes it, after the process).
  pollfd peer{server.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&peer, 1, 2000), 1) << "no end within 2 s";
  char byte = 0;
  EXPECT_EQ(::recv(server.get(), &byte, 1, MSG_DONTWAIT), 0) << std::strerror(errno);
}

TEST_P(EngineTest, ARefusedConnectReportsItsErrno) {
  std::uint16_t port = 0;
  {
    Listener l = listen_loopback();  // a port nobody listens on once closed
    port = ntohs(l.address.sin_port);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  Channel channel;
  ASSERT_TRUE(engine->attach(channel, net::open_tcp_socket(AF_INET), Mode::kStream, false));
  const int r = engine->connect(channel, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  int err = r;
  if (r == EINPROGRESS) wait_for(channel, kConnected, &err);
  EXPECT_EQ(err, ECONNREFUSED);
  engine->close(channel);
}

TEST_P(EngineTest, AClosedChannelReportsNothingMoreEvenWhenItsFdIsReused) {
  Listener l = listen_loopback();
  Channel old_channel;
  UniqueFd old_server = connect_pair(old_channel, l);
  // Bytes in flight for the old socket, then it closes and the same Channel
  // (a connection reopening) gets a new socket, likely with the same fd number.
  ASSERT_GT(::send(old_server.get(), "stale", 5, 0), 0);
  engine->close(old_channel);
  UniqueFd server = connect_pair(old_channel, l);
  ASSERT_GT(::send(server.get(), "fresh", 5, 0), 0);
  EXPECT_EQ(read_bytes(old_channel, 5), "fresh");
  engine->close(old_channel);
  // Nothing at all for a closed channel.
  for (int i = 0; i < 5; ++i) {
    collector.events.clear();
    engine->wait(2 * kNsPerMs, collector);
    EXPECT_TRUE(collector.events.empty());
  }
}

TEST_P(EngineTest, MoreConnectionsWithBytesThanBuffersAllGetTheirBytes) {
  // io_uring: 64 provided buffers for 200 connections whose bytes all arrive at
  // once; receives that found no buffer must get their bytes once buffers return.
  constexpr int kChannels = 200;
  Listener l = listen_loopback();
  ASSERT_EQ(::listen(l.fd.get(), kChannels), 0);
  std::vector<Channel> channels(kChannels);
  std::vector<UniqueFd> servers;
  for (Channel& channel : channels) servers.push_back(connect_pair(channel, l));
  for (int round = 0; round < 3; ++round) {
    for (UniqueFd& server : servers) ASSERT_EQ(::send(server.get(), "0123456789", 10, 0), 10);
    std::vector<std::size_t> got(kChannels, 0);
    std::size_t total = 0;
    net::TlsStream plain;
    for (int i = 0; i < 300 && total < 10U * kChannels; ++i) {
      collector.events.clear();
      engine->wait(10 * kNsPerMs, collector);
      for (const Event& e : collector.events) {
        for (Received r = engine->read(*e.channel, plain); r.io.status == net::IoStatus::kOk;
             r = engine->read(*e.channel, plain)) {
          got[static_cast<std::size_t>(e.channel - channels.data())] += r.io.bytes;
          total += r.io.bytes;
        }
      }
    }
    EXPECT_EQ(total, 10U * kChannels) << "round " << round;
  }
  for (Channel& channel : channels) engine->close(channel);
}

TEST_P(EngineTest, AWaitWithNothingToDoReturnsAfterItsTimeout) {
  const TimeNs start = monotonic_now_ns();
  const TimeNs deadline = start + 20 * kNsPerMs;
  int n = 0;
  for (TimeNs now = start; now < deadline && n == 0; now = monotonic_now_ns()) {
    n = engine->wait(deadline - now, collector);
    if (n < 0 && errno == EINTR) n = 0;  // a signal: wait for the rest
  }
  EXPECT_EQ(n, 0);
  const TimeNs end = monotonic_now_ns();
  // The wake-up's clock is the monotonic clock read after the wait.
  EXPECT_GE(collector.wake_ns, start);
  EXPECT_LE(collector.wake_ns, end);
  const TimeNs waited = end - start;
  EXPECT_GE(waited, 20 * kNsPerMs);
  EXPECT_LT(waited, 2 * kNsPerS);  // generous: a loaded machine
  EXPECT_GE(collector.wakes, 1);
}

// A write, then one wait: the wait comes back once the reply came, with the
// write's completion (io_uring: it completes inside the enter that submits it)
// and the reply together, in one wake-up, not a wake-up for the write alone.
TEST_P(EngineTest, AWaitAfterASmallWriteWakesOnceForItsReply) {
  Listener l = listen_loopback();
  Channel channel;
  UniqueFd peer = connect_pair(channel, l);
  std::thread echo([&] {  // the server: reads the request, answers it
    char request[5];
    std::size_t got = 0;
    while (got < sizeof request) {
      const ssize_t n = ::read(peer.get(), request + got, sizeof request - got);
      if (n <= 0) return;
      got += static_cast<std::size_t>(n);
    }
    EXPECT_EQ(::write(peer.get(), "reply", 5), 5);
  });
  net::TlsStream plain;
  const net::IoResult w = engine->write(channel, plain, {"hello", 5});
  collector.events.clear();
  collector.wakes = 0;
  bool replied = false;
  for (int i = 0; i < 10 && !replied; ++i) {  // bounded: one wait, ended by the reply, is the expected case
    engine->wait(10 * kNsPerS, collector);
    for (const Event& e : collector.events) replied = replied || (e.channel == &channel && (e.flags & kReadable) != 0);
  }
  echo.join();
  EXPECT_TRUE(replied);
  EXPECT_EQ(collector.wakes, 1);
  if (w.status == net::IoStatus::kWantWrite) {  // io_uring: the write's completion came in the same wake-up
    const bool written = std::any_of(collector.events.begin(), collector.events.end(),
                                     [&](const Event& e) { return e.channel == &channel && (e.flags & kWritable) != 0; });
    EXPECT_TRUE(written);
    EXPECT_EQ(engine->write(channel, plain, {"hello", 5}).bytes, 5U);
  } else {
    EXPECT_EQ(w.bytes, 5U);
  }
  engine->close(channel);
}

// What must wake a wait at once even though no reply comes: bytes that wait
// behind a send in flight (that send's completion lets them go), and a large
// send (it may end only when the server reads, and the rest is then due). The
// server here never answers; each wait must come back with kWritable long
// before its 20 s timeout.
TEST_P(EngineTest, AWriteWaitingBehindASendOrALargeSendWakesTheWaitWithoutAReply) {
  Listener l = listen_loopback();
  for (const bool large : {false, true}) {
    Channel channel;
    UniqueFd peer = connect_pair(channel, l);
    net::TlsStream plain;
    const std::string bytes(large ? 64 * 1024 : 5, 'x');
    if (engine->write(channel, plain, bytes).status != net::IoStatus::kWantWrite) {
      engine->close(channel);
      GTEST_SKIP() << "this engine writes at once";
    }
    if (!large) {
      EXPECT_EQ(engine->write(channel, plain, bytes).status, net::IoStatus::kWantWrite);  // behind the first
    }
    const TimeNs start = monotonic_now_ns();
    collector.events.clear();
    engine->wait(20 * kNsPerS, collector);
    const bool written = std::any_of(collector.events.begin(), collector.events.end(),
                                     [&](const Event& e) { return e.channel == &channel && (e.flags & kWritable) != 0; });
    EXPECT_TRUE(written) << (large ? "large" : "behind");
    EXPECT_LT(monotonic_now_ns() - start, 10 * kNsPerS) << (large ? "large" : "behind");  // generous; not the timeout
    engine->close(channel);
  }
}

INSTANTIATE_TEST_SUITE_P(BothEngines, EngineTest, ::testing::Values(EngineKind::kEpoll, EngineKind::kUring),
                         [](const auto& engine_param) { return std::string(engine_name(engine_param.param)); });

}  // namespace
}  // namespace pacer::io
