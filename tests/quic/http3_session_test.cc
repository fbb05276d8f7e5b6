// Http3Session and quic::Connection against a real HTTP/3 server: gtlsserver
// (package ngtcp2-server), started by the test on 127.0.0.1 with a self-signed
// certificate that the client trusts through --cacert. The test moves the
// datagrams itself (poll, recvmmsg, sendmmsg), as the worker does. Skipped when
// gtlsserver is not installed.
#include "quic/http3_session.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "../support/cli_args.h"
#include "../support/gtlsserver.h"
#include "../support/tls_files.h"
#include "engine/http3_module.h"
#include "net/udp_io.h"

namespace pacer::quic {
namespace {

struct Events final : proto::SessionEvents {
  std::vector<std::pair<std::uint32_t, int>> responses;
  std::vector<std::pair<std::uint32_t, proto::RequestFailure>> failures;
  std::vector<std::string> order;  // "first T" and "done T", as they came
  void on_response(std::uint32_t token, int status) override {
    responses.emplace_back(token, status);
    order.push_back("done " + std::to_string(token));
  }
  void on_request_failed(std::uint32_t token, proto::RequestFailure why) override { failures.emplace_back(token, why); }
  void on_first_byte(std::uint32_t token) override { order.push_back("first " + std::to_string(token)); }
};

// One client connection driven by hand: the worker's steps in miniature.
class Client {
 public:
  Client(const testing::TlsFiles& files, int port, std::uint32_t streams, const std::string& path = "/index.html") {
    auto parsed = testing::parse_args({"--http3", "--cacert", files.cert, "--streams", std::to_string(streams),
                                       "https://127.0.0.1:" + std::to_string(port) + path});
    EXPECT_TRUE(parsed.ok());
    config_ = parsed->run;
    net::TlsClientOptions o;
    o.server_name = "127.0.0.1";
    o.ca_file = files.cert;
    // Through the module's interface, as the engine reaches it (linked into this binary).
    auto module = engine::http3_module();
    EXPECT_TRUE(module.ok());
    const Module& http3 = **module;
    auto tls = http3.tls(o);
    EXPECT_TRUE(tls.ok());
    tls_ = std::move(*tls);
    h2_request_ = std::make_unique<proto::Http2Request>(config_);
    requests_ = http3.requests(std::span<const proto::Http2Request>(h2_request_.get(), 1));
    session_ = http3.session(*requests_, streams, memory_);
    sockaddr_in* a = reinterpret_cast<sockaddr_in*>(&remote_.storage);
    a->sin_family = AF_INET;
    a->sin_port = htons(static_cast<std::uint16_t>(port));
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    remote_.length = sizeof(sockaddr_in);
  }
  ~Client() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool connect() {
    SessionSetup setup;
    setup.tls = tls_.get();
    setup.remote = remote_;
    fd_ = net::open_udp_socket(remote_, setup.local);
    if (fd_ < 0 || !session_->start(setup, monotonic_now_ns())) return false;
    if (!pump([this] { return session_->handshake_completed(); })) return false;
    session_->reset();
    return true;
  }

  // Moves datagrams and runs timers until done() or 5 s pass. False on timeout or failure.
  bool pump(const std::function<bool()>& done) {
    const TimeNs deadline = monotonic_now_ns() + 5 * kNsPerS;
    while (!done()) {
      TimeNs now = monotonic_now_ns();
      if (now > deadline) return false;
      if (!session_->fill_datagrams(now) && session_->datagrams().empty()) return false;
      if (net::send_packets(fd_, session_->datagrams(), gso_) == net::SendStatus::kError) return false;
      const TimeNs wake = std::min(deadline, session_->next_timer_ns());
      pollfd p{fd_, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::clamp<TimeNs>((wake - now) / kNsPerMs, 0, 10)));
      now = monotonic_now_ns();
      const int n = reader_.receive(fd_);
      if (n < 0) return false;
      for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (!session_->receive_datagram(reader_.data(k), reader_.length(k), now, events)) return false;
      }
      if (session_->next_timer_ns() <= now && !session_->on_timer(now)) return false;
    }
    return true;
  }

  DatagramSession& session() { return *session_; }
  proto::H2Memory& memory() { return memory_; }
  Events events;

 private:
  Config config_;
  std::unique_ptr<TlsConfig> tls_;
  proto::H2Memory memory_;
  std::unique_ptr<proto::Http2Request> h2_request_;
  std::unique_ptr<Requests> requests_;
  std::unique_ptr<DatagramSession> session_;
  net::Address remote_;
  int fd_ = -1;
  net::DatagramReader reader_;
  bool gso_ = true;
};

class Http3SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::gtlsserver_installed()) GTEST_SKIP() << "gtlsserver not installed (ngtcp2-server)";
    ASSERT_TRUE(files_.ok);
    server_ = std::make_unique<testing::Gtlsserver>(files_);
    ASSERT_TRUE(server_->running()) << "gtlsserver did not start";
  }
  testing::TlsFiles files_;
  std::unique_ptr<testing::Gtlsserver> server_;
};

TEST_F(Http3SessionTest, RequestsOnEveryStreamCompleteWithTheirStatus) {
  Client c(files_, server_->port(), 4);
  ASSERT_TRUE(c.connect());
  ASSERT_EQ(c.session().capacity(), 4u);
  for (std::uint32_t t = 0; t < 4; ++t) c.session().submit(t, 0);
  ASSERT_TRUE(c.pump([&] { return c.events.responses.size() == 4; }));
  std::vector<std::uint32_t> tokens;
  for (auto [token, status] : c.events.responses) {
    EXPECT_EQ(status, 200);
    tokens.push_back(token);
  }
  std::sort(tokens.begin(), tokens.end());
  EXPECT_EQ(tokens, (std::vector<std::uint32_t>{0, 1, 2, 3}));
  EXPECT_TRUE(c.events.failures.empty());
}

// Time to first byte: each response's head is reported for its request before it completes.
TEST_F(Http3SessionTest, EachResponseReportsItsFirstByteBeforeItCompletes) {
  Client c(files_, server_->port(), 2);
  ASSERT_TRUE(c.connect());
  for (std::uint32_t t = 0; t < 2; ++t) c.session().submit(t, 0);
  ASSERT_TRUE(c.pump([&] { return c.events.responses.size() == 2; }));
  const std::vector<std::string>& order = c.events.order;
  for (const std::string token : {"0", "1"}) {
    const auto first = std::find(order.begin(), order.end(), "first " + token);
    const auto done = std::find(order.begin(), order.end(), "done " + token);
    ASSERT_NE(first, order.end()) << "no first byte for " << token;
    EXPECT_LT(first, done) << token;
  }
}

TEST_F(Http3SessionTest, ACancelledStreamLeavesTheConnectionUsable) {
  Client c(files_, server_->port(), 2);
  ASSERT_TRUE(c.connect());
  c.session().submit(0, 0);
  EXPECT_TRUE(c.session().cancel(0));  // reset before any answer: the connection carries on
  c.session().submit(0, 0);
  c.session().submit(1, 0);
  ASSERT_TRUE(c.pump([&] { return c.events.responses.size() == 2; }));
  EXPECT_TRUE(c.events.failures.empty());  // the cancelled stream's events are ignored
  EXPECT_EQ(c.session().ending(), Ending::kNone);
}

// bytes_read counts only what reached the connection: ngtcp2 drops a datagram of
// garbage or one for another connection ID without an error.
TEST_F(Http3SessionTest, OnlyDatagramsThatReachTheConnectionAreAccepted) {
  Client c(files_, server_->port(), 1);
  ASSERT_TRUE(c.connect());
  c.session().submit(0, 0);
  ASSERT_TRUE(c.pump([&] { return c.events.responses.size() == 1; }));
  EXPECT_TRUE(c.session().last_datagram_accepted()) << "the response's datagram decrypted";
  std::array<std::uint8_t, 1200> junk{};
  junk.fill(0x5a);
  junk[0] = 0x40;  // a short-header packet, for a connection ID that is not ours
  ASSERT_TRUE(c.session().receive_datagram(junk.data(), junk.size(), monotonic_now_ns(), c.events));
  EXPECT_FALSE(c.session().last_datagram_accepted());
  EXPECT_EQ(c.session().ending(), Ending::kNone);  // dropped, not fatal
}

TEST_F(Http3SessionTest, NgtcpAndNghttp3StopAllocatingAfterAWarmUp) {
  Client c(files_, server_->port(), 4);
  ASSERT_TRUE(c.connect());
  std::size_t done = 0;
  const auto run_batches = [&](int batches) {
    for (int b = 0; b < batches; ++b) {
      for (std::uint32_t t = 0; t < 4; ++t) c.session().submit(t, 0);
      done += 4;
      ASSERT_TRUE(c.pump([&] { return c.events.responses.size() == done; }));
    }
  };
  run_batches(50);
  const std::uint64_t warmed = c.memory().fresh_blocks();
  EXPECT_GT(warmed, 0u) << "ngtcp2/nghttp3 do not allocate from the worker's pool";
  run_batches(250);
  EXPECT_EQ(c.events.responses.size(), 300u * 4);
  EXPECT_LE(c.memory().fresh_blocks(), warmed + 8) << "ngtcp2/nghttp3 kept allocating after the warm-up";
}

TEST(Http3Request, HeadersFollowHttp2sRules) {
  auto parsed = testing::parse_args({"--http3", "-H", "X-Test: 1", "-H", "Host: example.com", "https://127.0.0.1:1/p?q"});
  ASSERT_TRUE(parsed.ok());
  const proto::Http2Request h2(parsed->run);
  const Http3Request r(h2);
  std::vector<std::pair<std::string, std::string>> h;
  for (std::size_t i = 0; i < r.header_count(); ++i) {
    const nghttp3_nv& nv = r.headers()[i];
    h.emplace_back(std::string(reinterpret_cast<const char*>(nv.name), nv.namelen),
                   std::string(reinterpret_cast<const char*>(nv.value), nv.valuelen));
  }
  const std::vector<std::pair<std::string, std::string>> expected{
      {":method", "GET"}, {":scheme", "https"}, {":authority", "example.com"}, {":path", "/p?q"}, {"x-test", "1"}};
  EXPECT_EQ(h, expected);
}

}  // namespace
}  // namespace pacer::quic
