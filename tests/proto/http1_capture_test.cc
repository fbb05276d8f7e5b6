// ResponseParser's capture for a script's response() (src/proto/http1_parser.h):
// its caps on header count, header bytes and body bytes hold whatever the server
// sends, and a response past one is a parse error with the cap's reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http1_parser.h"

namespace pacer::proto {
namespace {

struct Completed {
  std::vector<int> statuses;
  std::vector<std::string> bodies;
  ResponseParser* parser = nullptr;
};

void on_complete(void* context, int status, bool) {
  auto* seen = static_cast<Completed*>(context);
  seen->statuses.push_back(status);
  seen->bodies.push_back(seen->parser->capture()->body);
}

// A parser with a capture of the given caps, expecting one response.
struct CapturingParser {
  explicit CapturingParser(std::size_t max_headers, std::size_t max_header_bytes, std::size_t max_body_bytes) {
    capture.max_headers = {max_headers, "too many headers (cap)"};
    capture.max_header_bytes = {max_header_bytes, "header bytes (cap)"};
    capture.max_body_bytes = {max_body_bytes, "body bytes (cap)"};
    seen.parser = &parser;
    parser.set_capture(&capture);
    parser.reset();
    EXPECT_TRUE(parser.expect(false));
  }
  bool feed(const std::string& bytes) { return parser.feed(bytes.data(), bytes.size()); }

  Completed seen;
  ResponseCapture capture;
  ResponseParser parser{&on_complete, &seen};
};

std::string headers(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += "X-H" + std::to_string(i) + ": v\r\n";
  return out;
}

TEST(ResponseCapture, AResponseWithinEveryCapIsCapturedWhole) {
  CapturingParser p(3, 64, 5);
  ASSERT_TRUE(p.feed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nA: b\r\n\r\nhello"));
  EXPECT_EQ(p.seen.statuses, std::vector<int>{200});
  EXPECT_EQ(p.seen.bodies, std::vector<std::string>{"hello"});
  EXPECT_EQ(p.capture.header_count, 2u);
}

TEST(ResponseCapture, OneHeaderMoreThanTheCountCapIsAParseErrorWithItsReason) {
  CapturingParser p(4, 1 << 20, 1 << 20);
  EXPECT_FALSE(p.feed("HTTP/1.1 200 OK\r\n" + headers(5) + "Content-Length: 0\r\n\r\n"));
  EXPECT_STREQ(p.parser.error_reason(), "too many headers (cap)");
  EXPECT_TRUE(p.seen.statuses.empty());
  EXPECT_EQ(p.capture.header_count, 5u);
}

TEST(ResponseCapture, EndlessHeadersStopAtTheByteCapInEveryRead) {
  CapturingParser p(1'000'000, 1000, 1 << 20);
  ASSERT_TRUE(p.feed("HTTP/1.1 200 OK\r\n"));
  bool failed = false;
  int reads = 0;
  for (; reads < 1000 && !failed; ++reads) failed = !p.feed(headers(10));  // 70 bytes a read
  EXPECT_TRUE(failed);
  EXPECT_LE(reads, 20);
  EXPECT_STREQ(p.parser.error_reason(), "header bytes (cap)");
  EXPECT_LE(p.capture.fields.size(), 1000u);
}

TEST(ResponseCapture, EndlessChunkedBodyStopsAtTheBodyCap) {
  CapturingParser p(100, 1 << 16, 10'000);
  ASSERT_TRUE(p.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = "400\r\n" + std::string(0x400, 'x') + "\r\n";
  bool failed = false;
  int reads = 0;
  for (; reads < 1000 && !failed; ++reads) failed = !p.feed(chunk);
  EXPECT_TRUE(failed);
  EXPECT_EQ(reads, 10);  // the tenth KiB passes 10'000 bytes
  EXPECT_STREQ(p.parser.error_reason(), "body bytes (cap)");
  EXPECT_LE(p.capture.body.size(), 10'000u);
}

TEST(ResponseCapture, ABodyOfExactlyTheCapIsCapturedAndTheCountStartsAgainPerResponse) {
  CapturingParser p(2, 1 << 16, 4);
  ASSERT_TRUE(p.parser.expect(false));
  ASSERT_TRUE(p.feed("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nA: 1\r\n\r\nabcd"
                     "HTTP/1.1 201 Created\r\nContent-Length: 4\r\nB: 2\r\n\r\nefgh"));
  EXPECT_EQ(p.seen.statuses, (std::vector<int>{200, 201}));
  EXPECT_EQ(p.seen.bodies, (std::vector<std::string>{"abcd", "efgh"}));
}

}  // namespace
}  // namespace pacer::proto
