// Component tests of `pacer serve`: an in-process Server on 127.0.0.1:0 and a
// blocking client: every route, HEAD, /stats. Connection behaviour is in
// server_connection_test.cc.
#include "server/server.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http_test_client.h"
#include "server/body_stream.h"

namespace pacer::server {
namespace {

using testkit::get;
using testkit::start_server;
using testkit::TestClient;
using testkit::wait_until;

std::string pattern_bytes(std::size_t n) {
  const std::string_view pattern = body_pattern();
  std::string expected;
  expected.reserve(n);
  while (expected.size() < n) expected.append(pattern.substr(0, std::min(pattern.size(), n - expected.size())));
  return expected;
}

TEST(Server, RootAnswers200WithSmallTextBody) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/"));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello, pacer\n");
  EXPECT_EQ(response->header("Content-Type"), "text/plain");
  EXPECT_FALSE(response->header("Connection"));
}

TEST(Server, BytesRouteSendsExactlyNPatternBytes) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (std::size_t n : {0, 1, 63, 2048, 2049, 65536, 100000}) {
    client.send(get("/bytes/" + std::to_string(n)));
    const auto response = client.read_response();
    ASSERT_TRUE(response) << n;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("Content-Length"), std::to_string(n));
    EXPECT_EQ(response->body, pattern_bytes(n)) << n;
  }
}

TEST(Server, BytesRouteStreamsTenMegabytesAndKeepsTheConnection) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  constexpr std::size_t kBodyBytes = 10'000'000;
  client.send(get("/bytes/" + std::to_string(kBodyBytes)));
  const auto big = client.read_response();
  ASSERT_TRUE(big);
  ASSERT_EQ(big->body.size(), kBodyBytes);
  EXPECT_TRUE(big->body == pattern_bytes(kBodyBytes));
  client.send(get("/"));
  const auto next = client.read_response();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 2; }));
  EXPECT_EQ(server->connections_accepted(), 1u);
}

TEST(Server, BytesRouteRejectsMoreThanOneGibibyte) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/bytes/1073741825"));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 400);
}

TEST(Server, StatusRouteAnswersTheRequestedCode) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (int code : {200, 201, 404, 418, 503, 599}) {
    client.send(get("/status/" + std::to_string(code)));
    const auto response = client.read_response();
    ASSERT_TRUE(response) << code;
    EXPECT_EQ(response->status, code);
    EXPECT_FALSE(response->body.empty());
  }
  client.send(get("/status/503"));
  EXPECT_EQ(client.read_response()->head.substr(0, 34), "HTTP/1.1 503 Service Unavailable\r\n");
}

TEST(Server, StatusRouteSends204And304WithoutBodyOrLength) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  // Pipelined: if a body were sent, the next response would not parse.
  client.send(get("/status/204") + get("/status/304") + get("/"));
  for (int code : {204, 304}) {
    const auto response = client.read_response();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, code);
    EXPECT_FALSE(response->header("Content-Length"));
  }
  const auto root = client.read_response();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->body, "hello, pacer\n");
}

TEST(Server, StatusRouteAnswers400ForInformationalOrOutOfRangeCodes) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (int code : {100, 101, 199, 600, 0}) {
    client.send(get("/status/" + std::to_string(code)));
    const auto response = client.read_response();
    ASSERT_TRUE(response) << code;
    EXPECT_EQ(response->status, 400) << code;
  }
}

TEST(Server, HeadRequestGetsHeadersWithoutBody) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send("HEAD /bytes/100000 HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto bytes = client.read_response(/*head_only=*/true);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->header("Content-Length"), "100000");
  client.send("HEAD /chunked/10000 HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto chunked = client.read_response(/*head_only=*/true);
  ASSERT_TRUE(chunked);
  EXPECT_EQ(chunked->header("Transfer-Encoding"), "chunked");
  client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get("/"));
  const auto root_head = client.read_response(/*head_only=*/true);
  ASSERT_TRUE(root_head);
  EXPECT_EQ(root_head->header("Content-Length"), "13");
  // The next response starts right after the heads: no body bytes were sent.
  const auto root = client.read_response();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->body, "hello, pacer\n");
}

TEST(Server, FailRouteAnswers500EveryNthRequest) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  std::vector<int> statuses;
  for (int i = 0; i < 9; ++i) {
    client.send(get("/fail/3"));
    const auto response = client.read_response();
    ASSERT_TRUE(response);
    statuses.push_back(response->status);
  }
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 500, 200, 200, 500, 200, 200, 500}));
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 9; }));
}

TEST(Server, CloseRouteSendsHeadThenClosesWithoutBodyAndIsNotCounted) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/close"));
  const auto rest = client.read_until_closed();
  ASSERT_TRUE(rest);
  EXPECT_TRUE(rest->starts_with("HTTP/1.1 200 OK\r\n"));
  EXPECT_NE(rest->find("Content-Length: 100\r\n"), std::string::npos);
  EXPECT_TRUE(rest->ends_with("\r\n\r\n")) << "no body bytes after the head";
  EXPECT_TRUE(wait_until([&] { return server->connections_open() == 0; }));
  EXPECT_EQ(server->requests_answered(), 0u);
  EXPECT_EQ(server->requests_received(), 1u);
}

TEST(Server, ChunkedRouteBodyDecodesToNBytesInChunksOfAtMost4096) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (std::size_t n : {0, 1, 4095, 4096, 4097, 10000, 1000000}) {
    client.send(get("/chunked/" + std::to_string(n)));
    const auto response = client.read_response();
    ASSERT_TRUE(response) << n;
    EXPECT_EQ(response->status, 200);
    EXPECT_FALSE(response->header("Content-Length"));
    EXPECT_EQ(response->body.size(), n);
    EXPECT_EQ(response->chunk_count, (n + 4095) / 4096) << n;
    EXPECT_LE(response->largest_chunk_bytes, 4096u);
  }
}

TEST(Server, RedirectRouteAnswers302ToRoot) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/redirect"));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 302);
  EXPECT_EQ(response->header("Location"), "/");
}

TEST(Server, EchoRouteReturnsTheRequestBytesExactly) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  const std::string large_body(100'000, 'x');
  const std::vector<std::string> requests = {
      get("/echo?q=1", "X-Test: one\r\n"),
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello world",
      "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
      "PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" + large_body,
  };
  for (const std::string& request : requests) {
    client.send(request);
    const auto response = client.read_response();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->header("Content-Type"), "application/octet-stream");
    EXPECT_TRUE(response->body == request) << request.substr(0, 80);
  }
}

TEST(Server, StatsRouteReportsCountsWithoutCountingItself) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  {
    TestClient client(server->port());
    client.send(get("/") + get("/bytes/10"));
    ASSERT_TRUE(client.read_response());
    ASSERT_TRUE(client.read_response());
  }
  ASSERT_TRUE(wait_until([&] { return server->requests_answered() == 2; }));
  TestClient stats(server->port());
  for (int i = 0; i < 2; ++i) {
    stats.send(get("/stats"));
    const auto response = stats.read_response();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("Content-Type"), "application/json");
    // requests_by_name lists names in table order: either way round.
    EXPECT_TRUE(response->body ==
                    R"({"requests_answered":2,"connections_accepted":1,"requests_by_name":{"GET /":1,"GET /bytes/10":1}})" ||
                response->body ==
                    R"({"requests_answered":2,"connections_accepted":1,"requests_by_name":{"GET /bytes/10":1,"GET /":1}})")
        << response->body;
  }
  EXPECT_EQ(server->requests_answered(), 2u);
  EXPECT_EQ(server->connections_accepted(), 1u);
  EXPECT_EQ(server->requests_received(), 2u);
  // The same connection asking for something else is counted from then on.
  stats.send(get("/"));
  ASSERT_TRUE(stats.read_response());
  EXPECT_EQ(server->connections_accepted(), 2u);
}

TEST(Server, UnknownPathAnswers404AndQueryStringsAreIgnored) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  for (const char* path : {"/nope", "/bytes/abc", "/bytes/", "/stats/x", "/echoes"}) {
    client.send(get(path));
    const auto response = client.read_response();
    ASSERT_TRUE(response) << path;
    EXPECT_EQ(response->status, 404) << path;
  }
  client.send(get("/bytes/5?size=99#frag"));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body.size(), 5u);
  client.send("GET http://127.0.0.1/bytes/7 HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto absolute = client.read_response();
  ASSERT_TRUE(absolute);
  EXPECT_EQ(absolute->body.size(), 7u);
}

}  // namespace
}  // namespace pacer::server
