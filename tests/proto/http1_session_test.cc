// Http1Session (src/proto/http1_session.cc): request bytes out, responses matched
// in order to the tokens that asked for them.
#include "proto/http1_session.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace pacer::proto {
namespace {

constexpr std::string_view kRequest = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
constexpr std::string_view kOk = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";

struct Recorder final : SessionEvents {
  std::vector<std::pair<std::uint32_t, int>> responses;
  void on_response(std::uint32_t token, int status) override { responses.emplace_back(token, status); }
  void on_request_failed(std::uint32_t, RequestFailure) override { ADD_FAILURE() << "HTTP/1.1 has no stream failures"; }
};

std::string repeated(std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += kRequest;
  return out;
}

std::string drain(Session& s) {
  std::string out;
  for (auto bytes = s.pending_output(); !bytes.empty(); bytes = s.pending_output()) {
    out.append(bytes.data(), bytes.size());
    s.consume(bytes.size());
  }
  return out;
}

TEST(Http1Session, PipelinedRequestsGoOutInOneWriteAndResponsesMatchInOrder) {
  const std::string batch = repeated(4);
  Http1Session s(kRequest, batch, 4, false);
  s.reset();
  EXPECT_EQ(s.capacity(), 4u);
  s.submit(2, 0);
  s.submit(0, 0);
  s.submit(3, 0);
  const auto out = s.pending_output();
  EXPECT_EQ(std::string(out.data(), out.size()), repeated(3));  // one contiguous view
  s.consume(out.size());
  EXPECT_TRUE(s.pending_output().empty());
  Recorder events;
  const std::string three = std::string(kOk) + "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n" + std::string(kOk);
  ASSERT_TRUE(s.receive(three.data(), three.size(), events));
  const std::vector<std::pair<std::uint32_t, int>> expected{{2, 200}, {0, 404}, {3, 200}};
  EXPECT_EQ(events.responses, expected);
}

TEST(Http1Session, APartialWriteResumesWhereItStopped) {
  const std::string batch = repeated(2);
  Http1Session s(kRequest, batch, 2, false);
  s.reset();
  s.submit(0, 0);
  s.submit(1, 0);
  s.consume(kRequest.size() + 5);  // the first request and 5 bytes of the second
  const auto rest = s.pending_output();
  EXPECT_EQ(std::string(rest.data(), rest.size()), std::string(kRequest.substr(5)));
}

TEST(Http1Session, AResponseSplitAcrossReadsCompletesOnItsLastByte) {
  const std::string batch = repeated(1);
  Http1Session s(kRequest, batch, 1, false);
  s.reset();
  s.submit(0, 0);
  drain(s);
  Recorder events;
  ASSERT_TRUE(s.receive(kOk.data(), 10, events));
  EXPECT_TRUE(events.responses.empty());
  ASSERT_TRUE(s.receive(kOk.data() + 10, kOk.size() - 10, events));
  ASSERT_EQ(events.responses.size(), 1u);
}

TEST(Http1Session, ConnectionCloseStopsNewRequests) {
  const std::string batch = repeated(2);
  Http1Session s(kRequest, batch, 2, false);
  s.reset();
  s.submit(0, 0);
  drain(s);
  Recorder events;
  const std::string closing = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
  ASSERT_TRUE(s.receive(closing.data(), closing.size(), events));
  EXPECT_EQ(s.capacity(), 0u);
  s.reset();  // a new connection
  EXPECT_EQ(s.capacity(), 2u);
}

TEST(Http1Session, AResponseNobodyAskedForIsAProtocolError) {
  const std::string batch = repeated(1);
  Http1Session s(kRequest, batch, 1, false);
  s.reset();
  Recorder events;
  EXPECT_FALSE(s.receive(kOk.data(), kOk.size(), events));
  EXPECT_STRNE(s.error_reason(), "");
}

TEST(Http1Session, ARequestCannotBeCancelledWithoutClosingTheConnection) {
  const std::string batch = repeated(1);
  Http1Session s(kRequest, batch, 1, false);
  s.reset();
  s.submit(0, 0);
  EXPECT_FALSE(s.cancel(0));
}

// The token ring is depth entries long (3 here, not a power of two): responses
// keep matching their tokens in order as it wraps round many times.
TEST(Http1Session, ResponsesMatchTheirTokensAsTheRingWraps) {
  const std::string batch = repeated(3);
  Http1Session s(kRequest, batch, 3, false);
  s.reset();
  Recorder events;
  std::vector<std::pair<std::uint32_t, int>> expected;
  std::uint32_t next = 0;
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + round % 3;
    std::string answers;
    for (int i = 0; i < n; ++i) {
      s.submit(next, 0);
      expected.emplace_back(next++, 200);
      answers += kOk;
    }
    drain(s);
    ASSERT_TRUE(s.receive(answers.data(), answers.size(), events)) << s.error_reason();
  }
  EXPECT_EQ(events.responses, expected);
}

// A reason naming a value (here the status code) is formatted when asked for,
// so each session keeps its own even after another one failed.
TEST(Http1Session, EachSessionKeepsItsOwnReasonNamingAValue) {
  const std::string batch = repeated(1);
  Http1Session a(kRequest, batch, 1, false);
  Http1Session b(kRequest, batch, 1, false);
  a.reset();
  b.reset();
  a.submit(0, 0);
  b.submit(0, 0);
  Recorder events;
  const std::string_view high = "HTTP/1.1 600 High\r\nContent-Length: 0\r\n\r\n";
  const std::string_view low = "HTTP/1.1 042 Low\r\nContent-Length: 0\r\n\r\n";
  EXPECT_FALSE(a.receive(high.data(), high.size(), events));
  EXPECT_FALSE(b.receive(low.data(), low.size(), events));
  EXPECT_STREQ(a.error_reason(), "status code 600 is outside 100-599");
  EXPECT_STREQ(b.error_reason(), "status code 042 is outside 100-599");
}

// Per-connection memory: an unpipelined session carries no room for a pipeline
// (the token ring is on the heap only for depth > 1) and no per-connection buffer
// for error texts; 10,000 connections hold 10,000 of these.
TEST(Http1Session, AnUnpipelinedSessionStaysSmall) {
  EXPECT_LE(sizeof(Http1Session), 512u);
}

}  // namespace
}  // namespace pacer::proto
