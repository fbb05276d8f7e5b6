// ResponseParser: every framing HTTP/1.1 allows, fed whole and split at every
// byte, and malformed input rejected without a crash.
#include "proto/http1_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pacer::proto {
namespace {

struct Seen {
  std::vector<int> statuses;
  std::vector<bool> keep_alive;
};

void record(void* context, int status, bool keep_alive) {
  auto* seen = static_cast<Seen*>(context);
  seen->statuses.push_back(status);
  seen->keep_alive.push_back(keep_alive);
}

// Feeds `bytes` in pieces cut at `cut` (0: whole); returns false on a parse error.
bool feed_split(ResponseParser& parser, const std::string& bytes, std::size_t cut) {
  if (cut == 0 || cut >= bytes.size()) return parser.feed(bytes.data(), bytes.size());
  return parser.feed(bytes.data(), cut) && parser.feed(bytes.data() + cut, bytes.size() - cut);
}

struct Case {
  const char* name;
  std::string bytes;
  int requests;
  bool head;
  std::vector<int> statuses;
};

std::vector<Case> well_formed_cases() {
  return {
      {"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 1, false, {200}},
      {"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n\r\n", 1,
       false, {200}},
      {"chunked with trailer",
       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\nX-Trailer: 1\r\n\r\n", 1, false, {200}},
      {"204 without body", "HTTP/1.1 204 No Content\r\n\r\n", 1, false, {204}},
      {"304 without body", "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 1, false, {304}},
      {"HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", 1, true, {200}},
      {"1xx interim then final", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
                                 "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 1, false, {201}},
      {"pipelined pair", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
       2, false, {200, 404}},
      {"status 500", "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 3\r\n\r\nerr", 1, false, {500}},
  };
}

TEST(ResponseParser, WellFormedResponsesCompleteWhenSplitAtEveryByte) {
  for (const Case& tc : well_formed_cases()) {
    for (std::size_t cut = 0; cut < tc.bytes.size(); ++cut) {
      Seen seen;
      ResponseParser parser(&record, &seen);
      for (int i = 0; i < tc.requests; ++i) ASSERT_TRUE(parser.expect(tc.head));
      ASSERT_TRUE(feed_split(parser, tc.bytes, cut)) << tc.name << " cut at " << cut << ": " << parser.error_reason();
      EXPECT_EQ(seen.statuses, tc.statuses) << tc.name << " cut at " << cut;
      EXPECT_EQ(parser.outstanding(), 0) << tc.name;
      EXPECT_FALSE(parser.mid_response()) << tc.name;
    }
  }
}

TEST(ResponseParser, ResponseIsNotCompleteUntilItsLastByte) {
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
  Seen seen;
  ResponseParser parser(&record, &seen);
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(bytes.data(), bytes.size() - 1));
  EXPECT_TRUE(seen.statuses.empty());
  EXPECT_TRUE(parser.mid_response());
  ASSERT_TRUE(parser.feed(bytes.data() + bytes.size() - 1, 1));
  EXPECT_EQ(seen.statuses, std::vector<int>{200});
}

TEST(ResponseParser, BodyDelimitedByCloseCompletesOnFinish) {
  const std::string bytes = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nsome body bytes";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Seen seen;
    ResponseParser parser(&record, &seen);
    ASSERT_TRUE(parser.expect(false));
    ASSERT_TRUE(feed_split(parser, bytes, cut));
    EXPECT_TRUE(seen.statuses.empty());
    EXPECT_TRUE(parser.finish());
    ASSERT_EQ(seen.statuses, std::vector<int>{200});
    EXPECT_FALSE(seen.keep_alive[0]);
  }
}

TEST(ResponseParser, TruncatedContentLengthBodyFailsOnFinish) {
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort";
  Seen seen;
  ResponseParser parser(&record, &seen);
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(bytes.data(), bytes.size()));
  EXPECT_FALSE(parser.finish());
  EXPECT_TRUE(seen.statuses.empty());
}

TEST(ResponseParser, KeepAliveFollowsTheServersConnectionHeader) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  const std::string keep = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  const std::string close = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(keep.data(), keep.size()));
  ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(close.data(), close.size()));
  EXPECT_EQ(seen.keep_alive, (std::vector<bool>{true, false}));
}

TEST(ResponseParser, MalformedResponsesAreRejectedAtAnySplit) {
  const std::vector<std::string> malformed = {
      "HTTX/1.1 200 OK\r\n\r\n",
      "HTTP/1.1 2x0 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n",
      "garbage\r\n\r\n",
      std::string("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n", 28),
  };
  for (const std::string& bytes : malformed) {
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      Seen seen;
      ResponseParser parser(&record, &seen);
      ASSERT_TRUE(parser.expect(false));
      EXPECT_FALSE(feed_split(parser, bytes, cut)) << "accepted: " << bytes;
      EXPECT_TRUE(seen.statuses.empty());
      EXPECT_NE(std::string(parser.error_reason()), "");
    }
  }
}

TEST(ResponseParser, ResponseNobodyAskedForIsAnError) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  EXPECT_FALSE(parser.feed(bytes.data(), bytes.size()));
  EXPECT_TRUE(seen.statuses.empty());
}

TEST(ResponseParser, ResetForgetsAPartialResponse) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  ASSERT_TRUE(parser.expect(false));
  const std::string partial = "HTTP/1.1 200 OK\r\nContent-Len";
  ASSERT_TRUE(parser.feed(partial.data(), partial.size()));
  parser.reset();
  EXPECT_EQ(parser.outstanding(), 0);
  ASSERT_TRUE(parser.expect(false));
  const std::string full = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";
  ASSERT_TRUE(parser.feed(full.data(), full.size()));
  EXPECT_EQ(seen.statuses, std::vector<int>{202});
}

TEST(ResponseParser, OutstandingRequestsAreBounded) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  for (int i = 0; i < ResponseParser::kMaxOutstanding; ++i) ASSERT_TRUE(parser.expect(false));
  EXPECT_FALSE(parser.expect(false));
}

// What the capture held when each response completed.
struct Captured {
  ResponseParser* parser = nullptr;
  std::vector<std::string> fields;
  std::vector<std::string> bodies;
};

void record_capture(void* context, int, bool) {
  auto* seen = static_cast<Captured*>(context);
  seen->fields.push_back(seen->parser->capture()->fields);
  seen->bodies.push_back(seen->parser->capture()->body);
}

TEST(ResponseParser, CaptureCopiesHeadersAndBodyOfEachPipelinedResponseAtAnySplit) {
  using namespace std::string_literals;
  const std::string bytes =
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Token: abc\r\n\r\nhello"
      "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\nX-Empty:\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Captured seen;
    ResponseCapture capture;
    ResponseParser parser(&record_capture, &seen);
    seen.parser = &parser;
    parser.set_capture(&capture);
    parser.reset();
    ASSERT_TRUE(parser.expect(false) && parser.expect(false));
    ASSERT_TRUE(feed_split(parser, bytes, cut)) << cut;
    ASSERT_EQ(seen.fields.size(), 2u) << cut;
    EXPECT_EQ(seen.fields[0], "Content-Length\0" "5\0X-Token\0abc\0"s) << cut;
    EXPECT_EQ(seen.bodies[0], "hello") << cut;
    EXPECT_EQ(seen.fields[1], "Transfer-Encoding\0chunked\0X-Empty\0\0"s) << cut;
    EXPECT_EQ(seen.bodies[1], "abcde") << cut;
  }
}

TEST(ResponseParser, WithoutACaptureNothingIsCopied) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  EXPECT_EQ(parser.capture(), nullptr);
  ASSERT_TRUE(parser.expect(false));
  const std::string bytes = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  ASSERT_TRUE(parser.feed(bytes.data(), bytes.size()));
  EXPECT_EQ(seen.statuses, std::vector<int>{200});
}

}  // namespace
}  // namespace pacer::proto
