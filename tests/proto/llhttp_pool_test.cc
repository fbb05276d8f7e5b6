// ResponseParser with the worker's LlhttpPool: a parser holds llhttp's state
// only while a response llhttp reads is in progress, gives it back at its end
// or a reset, and connections that take turns with the same parsers keep
// their responses apart, whatever the reads' splits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http1_parser.h"
#include "proto/llhttp_pool.h"

namespace pacer::proto {
namespace {

void note_status(void* context, int status, bool) { static_cast<std::vector<int>*>(context)->push_back(status); }

const std::string kFive = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

TEST(LlhttpPool, AParserHoldsOneOnlyWhileAResponseLlhttpReadsIsInProgress) {
  LlhttpPool pool;
  std::vector<int> statuses;
  ResponseParser parser(&note_status, &statuses, nullptr, &pool);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(kFive.data(), 20));  // inside the head
  EXPECT_EQ(pool.idle(), 0u);
  ASSERT_TRUE(parser.feed(kFive.data() + 20, kFive.size() - 20));
  EXPECT_EQ(pool.idle(), 1u);  // given back at the response's end
  ASSERT_TRUE(parser.feed(kFive.data(), kFive.size() - 2));  // inside the body: held again, the same one
  EXPECT_EQ(pool.idle(), 0u);
  ASSERT_TRUE(parser.feed(kFive.data() + kFive.size() - 2, 2));
  EXPECT_EQ(pool.idle(), 1u);
  // A body that ends with the connection: held until finish() completes it.
  const std::string closing = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end";
  ASSERT_TRUE(parser.feed(closing.data(), closing.size()));
  EXPECT_EQ(pool.idle(), 0u);
  ASSERT_TRUE(parser.finish());
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 200}));
  EXPECT_EQ(parser.body_bytes(), 10u);
}

TEST(LlhttpPool, AResetInTheMiddleOfAResponseGivesItsParserBack) {
  LlhttpPool pool;
  std::vector<int> statuses;
  ResponseParser parser(&note_status, &statuses, nullptr, &pool);
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(kFive.data(), 30));
  EXPECT_EQ(pool.idle(), 0u);
  parser.reset();  // the connection closed: the next one starts afresh
  EXPECT_EQ(pool.idle(), 1u);
  const std::string other = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(other.data(), other.size())) << parser.error_reason();
  EXPECT_EQ(statuses, (std::vector<int>{404}));
  EXPECT_EQ(pool.idle(), 1u);
}

TEST(LlhttpPool, AResponseMatchingTheKnownHeadBorrowsNone) {
  LlhttpPool pool;
  KnownHead known;
  std::vector<int> statuses;
  ResponseParser parser(&note_status, &statuses, &known, &pool);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(kFive.data(), kFive.size()));  // llhttp reads it, and it becomes known
  ASSERT_EQ(pool.idle(), 1u);
  const std::string two = kFive + kFive;
  ASSERT_TRUE(parser.feed(two.data(), two.size() - 3));  // the second is in its body
  EXPECT_EQ(pool.idle(), 1u);
  EXPECT_TRUE(parser.mid_response());
  ASSERT_TRUE(parser.feed(two.data() + two.size() - 3, 3));
  EXPECT_EQ(parser.known_head_matches(), 2u);
  EXPECT_EQ(statuses.size(), 3u);
}

// Two connections of one worker, their reads interleaved, every response split at
// every byte: each keeps its own response's state (a chunked body, interim
// responses, a pipelined pair) though both borrow from the same idle parsers.
TEST(LlhttpPool, ConnectionsTakingTurnsKeepTheirResponsesApartAtEverySplit) {
  struct Stream {
    std::string bytes;
    int requests;
    std::vector<int> statuses;
  };
  const std::vector<Stream> streams = {
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n", 1, {200}},
      {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 1, {201}},
      {"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 2,
       {200, 404}},
  };
  for (const Stream& a : streams) {
    for (const Stream& b : streams) {
      for (std::size_t cut = 1; cut < std::min(a.bytes.size(), b.bytes.size()); ++cut) {
        LlhttpPool pool;
        std::vector<int> seen_a;
        std::vector<int> seen_b;
        ResponseParser pa(&note_status, &seen_a, nullptr, &pool);
        ResponseParser pb(&note_status, &seen_b, nullptr, &pool);
        for (int i = 0; i < a.requests; ++i) ASSERT_TRUE(pa.expect(false));
        for (int i = 0; i < b.requests; ++i) ASSERT_TRUE(pb.expect(false));
        ASSERT_TRUE(pa.feed(a.bytes.data(), cut)) << pa.error_reason();
        ASSERT_TRUE(pb.feed(b.bytes.data(), cut)) << pb.error_reason();
        ASSERT_TRUE(pa.feed(a.bytes.data() + cut, a.bytes.size() - cut)) << cut << ": " << pa.error_reason();
        ASSERT_TRUE(pb.feed(b.bytes.data() + cut, b.bytes.size() - cut)) << cut << ": " << pb.error_reason();
        EXPECT_EQ(seen_a, a.statuses) << cut;
        EXPECT_EQ(seen_b, b.statuses) << cut;
        EXPECT_FALSE(pa.mid_response());
        EXPECT_FALSE(pb.mid_response());
        EXPECT_LE(pool.idle(), 2u);  // never more than the two that were in progress at once
        EXPECT_GE(pool.idle(), 1u);  // and every one given back
      }
    }
  }
}

}  // namespace
}  // namespace pacer::proto
