// Component tests of `pacer serve` connection behaviour: malformed and oversized
// requests, pipelining, keep-alive and close, exact counts across threads, start
// and stop. An in-process Server on 127.0.0.1:0 and a blocking client.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "http_test_client.h"
#include "server/server.h"

namespace pacer::server {
namespace {

using testkit::get;
using testkit::start_server;
using testkit::TestClient;
using testkit::wait_until;

TEST(Server, MalformedRequestAnswers400AndCloses) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send("THIS IS NOT HTTP\r\n\r\n");
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 400);
  EXPECT_EQ(response->header("Connection"), "close");
  EXPECT_EQ(client.read_until_closed(), "");
}

TEST(Server, OversizedRequestHeadersAnswer431AndClose) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send("GET / HTTP/1.1\r\nX-Big: " + std::string(20'000, 'a') + "\r\n\r\n");
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 431);
  EXPECT_TRUE(client.read_until_closed());
}

TEST(Server, PipelinedRequestsAreAnsweredInOrder) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/status/201") + get("/bytes/100000") + get("/chunked/5000") + get("/status/202"));
  const auto first = client.read_response();
  const auto second = client.read_response();
  const auto third = client.read_response();
  const auto fourth = client.read_response();
  ASSERT_TRUE(first && second && third && fourth);
  EXPECT_EQ(first->status, 201);
  EXPECT_EQ(second->body.size(), 100000u);
  EXPECT_EQ(third->body.size(), 5000u);
  EXPECT_EQ(fourth->status, 202);
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 4; }));
}

TEST(Server, ManyPipelinedRequestsInOneWriteAreAllAnswered) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  std::string batch;
  for (int i = 0; i < 500; ++i) batch += get("/status/" + std::to_string(200 + i % 100));
  client.send(batch);
  for (int i = 0; i < 500; ++i) {
    const auto response = client.read_response();
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->status, 200 + i % 100);
  }
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 500; }));
}

TEST(Server, RequestSentOneByteAtATimeIsParsed) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  const std::string request = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
  for (char c : request) client.send(std::string(1, c));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, request);
}

TEST(Server, ConnectionCloseHeaderClosesAfterTheResponse) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/", "Connection: close\r\n"));
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->header("Connection"), "close");
  EXPECT_EQ(client.read_until_closed(), "");
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 1; }));
}

TEST(Server, Http10IsClosedUnlessItAsksForKeepAlive) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient keep(server->port());
  for (int i = 0; i < 2; ++i) {
    keep.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    const auto response = keep.read_response();
    ASSERT_TRUE(response);
    EXPECT_EQ(response->header("Connection"), "keep-alive");
  }
  TestClient plain(server->port());
  plain.send("GET / HTTP/1.0\r\n\r\n");
  const auto response = plain.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->header("Connection"), "close");
  EXPECT_EQ(plain.read_until_closed(), "");
}

TEST(Server, ChunkedRouteFallsBackToContentLengthForHttp10) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send("GET /chunked/5000 HTTP/1.0\r\n\r\n");
  const auto response = client.read_response();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->header("Content-Length"), "5000");
  EXPECT_EQ(response->body.size(), 5000u);
}

TEST(Server, CountsRequestsAndConnectionsExactlyAcrossThreads) {
  ServeConfig config;
  config.threads = 4;
  auto server = start_server(config);
  ASSERT_NE(server, nullptr);
  constexpr int kClients = 8;
  constexpr int kRequestsPerClient = 50;
  std::vector<std::thread> clients;
  std::atomic<int> ok_responses{0};
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      TestClient client(server->port());
      for (int i = 0; i < kRequestsPerClient; ++i) {
        client.send(get(i % 2 == 0 ? "/" : "/bytes/3000"));
        if (const auto response = client.read_response(); response && response->status == 200) ++ok_responses;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok_responses.load(), kClients * kRequestsPerClient);
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() >= kClients * kRequestsPerClient; }));
  EXPECT_EQ(server->requests_answered(), std::uint64_t{kClients * kRequestsPerClient});
  EXPECT_EQ(server->requests_received(), std::uint64_t{kClients * kRequestsPerClient});
  EXPECT_EQ(server->connections_accepted(), std::uint64_t{kClients});
}

TEST(Server, StartFailsWhenThePortIsTaken) {
  auto first = start_server();
  ASSERT_NE(first, nullptr);
  ServeConfig config;
  config.listen_host = "127.0.0.1";
  config.listen_port = first->port();
  const auto second = Server::start(config);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find(fmt::format("127.0.0.1:{}", first->port())), std::string::npos)
      << second.error().message;
}

TEST(Server, StopIsIdempotentAndKeepsTheCounts) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/"));
  ASSERT_TRUE(client.read_response());
  ASSERT_TRUE(wait_until([&] { return server->requests_answered() == 1; }));
  server->stop();
  server->stop();
  EXPECT_EQ(server->requests_answered(), 1u);
  EXPECT_EQ(server->connections_accepted(), 1u);
}

}  // namespace
}  // namespace pacer::server
