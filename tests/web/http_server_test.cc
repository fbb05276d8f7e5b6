// The web view's server against real loopback sockets (src/web/http_server.h).
#include "web/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pacer::web {
namespace {

UniqueFd connect_to(std::uint16_t port) {
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval five{5, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &five, sizeof five);
  int rc = connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  if (rc != 0 && errno == EINTR) {  // the connect goes on: wait for it
    pollfd p{fd.get(), POLLOUT, 0};
    while (poll(&p, 1, 5000) < 0 && errno == EINTR) {
    }
    socklen_t length = sizeof rc;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &rc, &length);
  }
  EXPECT_EQ(rc, 0) << std::strerror(errno);
  return fd;
}

void send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << std::strerror(errno);
    sent += static_cast<std::size_t>(n);
  }
}

// Everything until the server closes (or 5 s pass).
std::string read_to_close(int fd) {
  std::string out;
  char buffer[4096];
  ssize_t n = 0;
  // A signal meant for another test's machinery may interrupt the wait: not an end.
  while ((n = recv(fd, buffer, sizeof buffer, 0)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
  }
  if (n < 0) out += "<recv: " + std::string(std::strerror(errno)) + ">";
  return out;
}

std::string exchange(std::uint16_t port, const std::string& request) {
  UniqueFd fd = connect_to(port);
  send_all(fd.get(), request);
  return read_to_close(fd.get());
}

struct Running {
  LiveFeed feed;
  std::atomic<int> stops{0};
  std::unique_ptr<HttpServer> server;
  explicit Running(AccessRules rules = {}) {
    auto started = HttpServer::start("127.0.0.1", 0, std::move(rules), feed, [this] { stops.fetch_add(1); });
    EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().message);
    if (started) server = std::move(*started);
  }
  std::uint16_t port() const { return server->port(); }
};

TEST(HttpServer, ServesTheReportSoFarAndCloses) {
  Running web;
  web.feed.publish_report("{\"requests\":5}");
  const std::string reply = exchange(web.port(), "GET /report.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(reply.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << reply;
  EXPECT_EQ(reply.substr(reply.size() - 14), "{\"requests\":5}");
}

TEST(HttpServer, EventStreamSendsHistoryThenNewIntervalsThenTheEnd) {
  Running web;
  web.feed.publish_interval("{\"interval\":0}");
  web.feed.publish_interval("{\"interval\":1}");
  UniqueFd fd = connect_to(web.port());
  send_all(fd.get(), "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n");
  web.feed.publish_interval("{\"interval\":2}");
  web.feed.publish_final("{\"final\":true}");
  const std::string stream = read_to_close(fd.get());
  const std::size_t body = stream.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << "[" << stream << "]";
  EXPECT_EQ(stream.substr(body + 4),
            "retry: 1000\n\nid: 0\ndata: {\"interval\":0}\n\nid: 1\ndata: {\"interval\":1}\n\n"
            "id: 2\ndata: {\"interval\":2}\n\nevent: end\ndata: {\"final\":true}\n\n");
}

TEST(HttpServer, SearchEventsComeInOrderWithTheIntervals) {
  Running web;
  web.feed.publish_search("{\"running\":1}");
  web.feed.publish_interval("{\"interval\":0}");
  web.feed.publish_search("{\"running\":2}");
  web.feed.publish_interval("{\"interval\":0}");
  web.feed.publish_final("{\"schema\":\"pacer-capacity\"}");
  const std::string stream = exchange(web.port(), "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n");
  const std::size_t body = stream.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << "[" << stream << "]";
  EXPECT_EQ(stream.substr(body + 4),
            "retry: 1000\n\nevent: search\nid: 0\ndata: {\"running\":1}\n\nid: 1\ndata: {\"interval\":0}\n\n"
            "event: search\nid: 2\ndata: {\"running\":2}\n\nid: 3\ndata: {\"interval\":0}\n\n"
            "event: end\ndata: {\"schema\":\"pacer-capacity\"}\n\n");
}

TEST(HttpServer, LastEventIdSkipsWhatThePageHad) {
  Running web;
  for (int i = 0; i < 3; ++i) web.feed.publish_interval("{\"interval\":" + std::to_string(i) + "}");
  web.feed.publish_final("{}");
  const std::string stream = exchange(web.port(), "GET /events HTTP/1.1\r\nHost: localhost\r\nLast-Event-ID: 1\r\n\r\n");
  EXPECT_EQ(stream.find("id: 1\n"), std::string::npos) << stream;
  EXPECT_NE(stream.find("id: 2\ndata: {\"interval\":2}\n\nevent: end\n"), std::string::npos) << "[" << stream << "]";
}

TEST(HttpServer, PostStopCallsBackGetStopDoesNot) {
  Running web;
  const std::string get = exchange(web.port(), "GET /stop HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(get.rfind("HTTP/1.1 405", 0), 0u) << "[" << get << "]";
  EXPECT_EQ(web.stops.load(), 0);
  const std::string post = exchange(web.port(), "POST /stop HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 202", 0), 0u) << "[" << post << "]";
  EXPECT_EQ(web.stops.load(), 1);
}

TEST(HttpServer, TokenRequiredOnEveryPath) {
  AccessRules rules;
  rules.token = "abcdefgh123";
  rules.loopback = false;
  Running web(rules);
  EXPECT_EQ(exchange(web.port(), "POST /stop HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 401", 0), 0u);
  EXPECT_EQ(exchange(web.port(), "GET /events HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 401", 0), 0u);
  EXPECT_EQ(web.stops.load(), 0);
  EXPECT_EQ(exchange(web.port(), "POST /stop?token=abcdefgh123 HTTP/1.1\r\nHost: x\r\n\r\n").rfind("HTTP/1.1 202", 0), 0u);
  EXPECT_EQ(web.stops.load(), 1);
}

TEST(HttpServer, BadAndOversizedHeadsAreRefused) {
  Running web;
  EXPECT_EQ(exchange(web.port(), "HELLO\r\n\r\n").rfind("HTTP/1.1 400", 0), 0u);
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(kMaxHeadBytes, 'a') + "\r\n\r\n";
  EXPECT_EQ(exchange(web.port(), big).rfind("HTTP/1.1 431", 0), 0u);
}

TEST(HttpServer, ConnectionsPastTheCapGet503) {
  Running web;
  std::vector<UniqueFd> idle;
  for (std::size_t i = 0; i < kMaxClients; ++i) idle.push_back(connect_to(web.port()));
  // The server has accepted them all once a request on one of them is answered.
  send_all(idle[0].get(), "GET /report.json HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(read_to_close(idle[0].get()).rfind("HTTP/1.1 200", 0), 0u);
  idle.push_back(connect_to(web.port()));  // idle[0] may still be counted while it closes
  const std::string refused = exchange(web.port(), "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
}

TEST(HttpServer, PortInUseIsABadArgumentNamingTheAddress) {
  Running first;
  LiveFeed feed;
  auto second = HttpServer::start("127.0.0.1", first.port(), AccessRules{}, feed, nullptr);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ErrorKind::kBadArgument);
  EXPECT_EQ(second.error().message,
            "--web: cannot listen on 127.0.0.1:" + std::to_string(first.port()) + ": Address already in use");
  auto foreign = HttpServer::start("192.0.2.1", 0, AccessRules{}, feed, nullptr);  // TEST-NET-1: not this machine's
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message.find("Cannot assign requested address"), std::string::npos);
}

TEST(HttpServer, StopReturnsWhileAPageNeverReads) {
  Running web;
  UniqueFd fd = connect_to(web.port());
  int small = 4096;
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  send_all(fd.get(), "GET /events HTTP/1.1\r\nHost: localhost\r\n\r\n");
  for (int i = 0; i < 2000; ++i) web.feed.publish_interval(std::string(1000, 'x'));
  web.feed.publish_final("{}");
  const TimeNs start = monotonic_now_ns();
  web.server->stop(200 * kNsPerMs);
  EXPECT_LT(monotonic_now_ns() - start, 3 * kNsPerS);
}

TEST(HttpServer, LoopbackAddresses) {
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("127.1.2.3"));
  EXPECT_TRUE(is_loopback_address("::1"));
  EXPECT_TRUE(is_loopback_address("::ffff:127.0.0.1"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("::"));
  EXPECT_FALSE(is_loopback_address("10.0.0.1"));
  EXPECT_FALSE(is_loopback_address("::ffff:10.0.0.1"));
}

TEST(LiveFeed, KeepsTheNewestIntervalsUnderItsByteCap) {
  LiveFeed feed;
  const std::string event(1024 * 1024, 'e');
  for (int i = 0; i < 12; ++i) feed.publish_interval(event);
  EXPECT_EQ(feed.end_seq(), 12u);
  EXPECT_EQ(feed.begin_seq(), 12u - kHistoryMaxBytes / event.size());
  EXPECT_EQ(feed.event(feed.begin_seq() - 1), nullptr);
  EXPECT_NE(feed.event(11), nullptr);
  EXPECT_EQ(feed.event(12), nullptr);
}

}  // namespace
}  // namespace pacer::web
