// Time to first byte at the protocol seam (SessionEvents::on_first_byte): each
// response's first byte is reported for its request, before the response
// completes, on llhttp's path and on the known-head fast path, pipelined or not,
// and only in the receive() whose bytes hold it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http1_session.h"

namespace pacer::proto {
namespace {

struct Trace final : SessionEvents {
  std::vector<std::string> events;
  void on_response(std::uint32_t token, int) override { events.push_back("done " + std::to_string(token)); }
  void on_request_failed(std::uint32_t, RequestFailure) override { events.push_back("failed"); }
  void on_first_byte(std::uint32_t token) override { events.push_back("first " + std::to_string(token)); }
};

const std::string kGet = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
const std::string kResponse = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

TEST(FirstByte, EachResponseReportsItsFirstByteBeforeItCompletesOnBothParserPaths) {
  KnownHead known;
  const std::string repeated = kGet + kGet + kGet;
  Http1Session s(kGet, repeated, 3, false, &known);
  s.reset();
  Trace t;
  for (std::uint32_t token = 0; token < 3; ++token) s.submit(token, 0);
  s.consume(s.pending_output().size());
  // The first response teaches the known head; the next two are matched by it.
  const std::string three = kResponse + kResponse + kResponse;
  ASSERT_TRUE(s.receive(three.data(), three.size(), t));
  EXPECT_EQ(t.events, (std::vector<std::string>{"first 0", "done 0", "first 1", "done 1", "first 2", "done 2"}));
}

TEST(FirstByte, AResponseSplitOverReadsReportsItsFirstByteInTheFirstRead) {
  Http1Session s(kGet, kGet, 1, false);
  s.reset();
  Trace t;
  s.submit(0, 0);
  s.consume(s.pending_output().size());
  ASSERT_TRUE(s.receive(kResponse.data(), 3, t));
  EXPECT_EQ(t.events, std::vector<std::string>{"first 0"});
  ASSERT_TRUE(s.receive(kResponse.data() + 3, kResponse.size() - 3, t));
  EXPECT_EQ(t.events, (std::vector<std::string>{"first 0", "done 0"}));
}

TEST(FirstByte, AnInterimResponseIsTheFirstByte) {
  Http1Session s(kGet, kGet, 1, false);
  s.reset();
  Trace t;
  s.submit(0, 0);
  s.consume(s.pending_output().size());
  const std::string bytes = "HTTP/1.1 100 Continue\r\n\r\n" + kResponse;
  ASSERT_TRUE(s.receive(bytes.data(), bytes.size(), t));
  ASSERT_FALSE(t.events.empty());
  EXPECT_EQ(t.events.front(), "first 0");
  EXPECT_EQ(t.events.back(), "done 0");
}

}  // namespace
}  // namespace pacer::proto
