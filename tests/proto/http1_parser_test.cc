// ResponseParser: every framing HTTP/1.1 allows, fed whole and split at every
// byte, and malformed input rejected without a crash.
#include "proto/http1_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
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

// ---- known head: a repeated response is matched without llhttp -----------------

const std::string kHello = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

// A run of responses as a load test sees them: repeats of one, others between them.
struct Mix {
  std::string bytes;
  std::vector<bool> head;  // per request: a HEAD
  std::vector<int> statuses;
};

Mix mixed_responses() {
  Mix m;
  auto add = [&m](const std::string& bytes, int status, bool head = false) {
    m.bytes += bytes;
    m.head.push_back(head);
    m.statuses.push_back(status);
  };
  add(kHello, 200);
  add(kHello, 200);
  add(kHello, 200);
  add("HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnot", 404);
  add(kHello, 200);
  add("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 200, true);  // HEAD: the same head, no body
  add(kHello, 200);
  add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 200);
  add("HTTP/1.1 100 Continue\r\n\r\n" + kHello, 200);
  add("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello!", 200);  // another length
  add(kHello, 200);
  add(kHello, 200);
  add("HTTP/1.1 204 No Content\r\n\r\n", 204);
  add("HTTP/1.1 204 No Content\r\n\r\n", 204);
  add(kHello, 200);
  return m;
}

TEST(ResponseParser, RepeatedResponsesCompleteInOrderAtAnySplit) {
  const Mix mix = mixed_responses();
  for (std::size_t cut = 0; cut < mix.bytes.size(); ++cut) {
    Seen seen;
    KnownHead known;
    ResponseParser parser(&record, &seen, &known);
    for (const bool head : mix.head) ASSERT_TRUE(parser.expect(head));
    ASSERT_TRUE(feed_split(parser, mix.bytes, cut)) << "cut at " << cut << ": " << parser.error_reason();
    EXPECT_EQ(seen.statuses, mix.statuses) << "cut at " << cut;
    EXPECT_EQ(parser.outstanding(), 0);
    EXPECT_FALSE(parser.mid_response());
    EXPECT_GT(parser.known_head_matches(), 0u) << "cut at " << cut;  // the half without the cut has repeats
  }
}

TEST(ResponseParser, RepeatedResponsesCompleteInOrderFedByteByByte) {
  const Mix mix = mixed_responses();
  Seen seen;
  KnownHead known;
  ResponseParser parser(&record, &seen, &known);
  for (const bool head : mix.head) ASSERT_TRUE(parser.expect(head));
  // Nothing is learnt (no response arrives in one read), but every pause resumes.
  for (std::size_t i = 0; i < mix.bytes.size(); ++i) ASSERT_TRUE(parser.feed(&mix.bytes[i], 1)) << i;
  EXPECT_EQ(seen.statuses, mix.statuses);
  EXPECT_EQ(parser.outstanding(), 0);
}

TEST(ResponseParser, KnownHeadBodyCanSpanReads) {
  Seen seen;
  KnownHead known;
  ResponseParser parser(&record, &seen, &known);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(parser.expect(false));
  ASSERT_TRUE(parser.feed(kHello.data(), kHello.size()));  // learnt
  const std::string head = kHello.substr(0, kHello.size() - 5);
  const std::string next = head + "he";
  ASSERT_TRUE(parser.feed(next.data(), next.size()));
  EXPECT_TRUE(parser.mid_response());
  EXPECT_EQ(seen.statuses.size(), 1u);
  ASSERT_TRUE(parser.feed("llo", 3));
  EXPECT_EQ(seen.statuses, (std::vector<int>{200, 200}));
  EXPECT_EQ(parser.known_head_matches(), 1u);
  // A known response cut short by the close is an error, as llhttp's would be.
  ASSERT_TRUE(parser.feed(next.data(), next.size()));
  EXPECT_FALSE(parser.finish());
  EXPECT_NE(std::string(parser.error_reason()), "");
  EXPECT_EQ(seen.statuses.size(), 2u);
}

TEST(ResponseParser, OnlyKeepAliveResponsesFramedByLengthBecomeKnown) {
  // {response, responses llhttp reads from two copies: after a close, none}
  const std::vector<std::pair<std::string, std::size_t>> never_known = {
      {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", 2},
      {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Long: " + std::string(KnownHead::kMaxBytes, 'x') +
           "\r\n\r\nok",
       2},
      {"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", 1},
      {"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 1},
  };
  for (const auto& [bytes, responses] : never_known) {
    Seen seen;
    KnownHead known;
    ResponseParser parser(&record, &seen, &known);
    const std::string twice = bytes + bytes;
    ASSERT_TRUE(parser.expect(false) && parser.expect(false));
    ASSERT_TRUE(parser.feed(twice.data(), twice.size())) << bytes;
    EXPECT_EQ(seen.statuses, std::vector<int>(responses, 200)) << bytes;
    EXPECT_EQ(parser.known_head_matches(), 0u) << bytes;
  }
}

// Found by fuzz/http1_response_fuzz.cc: after a response that closes the
// connection (an interim HTTP/1.0 1xx too), llhttp reads nothing more, but a
// known head that followed it in the same read was still matched and counted, so
// the count depended on where reads split. A known head is not matched after a
// close, in one read or two.
TEST(ResponseParser, AKnownHeadIsNotMatchedAfterAResponseThatCloses) {
  const std::string closes[] = {"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                                "HTTP/1.0 103 Early Hints\r\n\r\n"};
  for (const std::string& close : closes) {
    const bool interim = close.find(" 103 ") != std::string::npos;
    const std::string bytes = kHello + close + kHello;
    for (std::size_t cut : {bytes.size(), kHello.size() + close.size() + 1}) {
      Seen seen;
      KnownHead known;
      ResponseParser parser(&record, &seen, &known);
      ASSERT_TRUE(parser.expect(false) && parser.expect(false) && parser.expect(false));
      ASSERT_TRUE(parser.feed(bytes.data(), cut));
      ASSERT_TRUE(parser.feed(bytes.data() + cut, bytes.size() - cut));
      EXPECT_EQ(seen.statuses, std::vector<int>(interim ? 1 : 2, 200)) << close << "cut at " << cut;
      EXPECT_EQ(parser.known_head_matches(), 0u) << close << "cut at " << cut;
    }
  }
}

TEST(ResponseParser, BytesAfterAKnownResponseAreStillChecked) {
  const std::vector<std::string> tails = {"garbage\r\n\r\n", "HTTX/1.1 200 OK\r\n\r\n", kHello};
  for (const std::string& tail : tails) {
    Seen seen;
    KnownHead known;
    ResponseParser parser(&record, &seen, &known);
    ASSERT_TRUE(parser.expect(false) && parser.expect(false));  // the tail answers nothing
    const std::string bytes = kHello + kHello + tail;
    EXPECT_FALSE(parser.feed(bytes.data(), bytes.size())) << tail;
    EXPECT_EQ(seen.statuses, (std::vector<int>{200, 200})) << tail;
    EXPECT_NE(std::string(parser.error_reason()), "") << tail;
  }
}

TEST(ResponseParser, WithoutAKnownHeadEveryResponseIsParsed) {
  Seen seen;
  ResponseParser parser(&record, &seen);
  const std::string twice = kHello + kHello;
  ASSERT_TRUE(parser.expect(false) && parser.expect(false));
  ASSERT_TRUE(parser.feed(twice.data(), twice.size()));
  EXPECT_EQ(seen.statuses, (std::vector<int>{200, 200}));
  EXPECT_EQ(parser.known_head_matches(), 0u);
}

TEST(ResponseParser, ConnectionsOfAWorkerShareTheKnownHead) {
  KnownHead known;
  Seen seen_a;
  Seen seen_b;
  ResponseParser a(&record, &seen_a, &known);
  ResponseParser b(&record, &seen_b, &known);
  ASSERT_TRUE(a.expect(false) && b.expect(false) && b.expect(false));
  ASSERT_TRUE(a.feed(kHello.data(), kHello.size()));  // a learns kHello
  // b matches it at once, and keeps its status while a learns another head.
  const std::string partial = kHello.substr(0, kHello.size() - 1);
  ASSERT_TRUE(b.feed(partial.data(), partial.size()));
  EXPECT_EQ(b.known_head_matches(), 0u);
  EXPECT_TRUE(b.mid_response());
  const std::string other = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
  ASSERT_TRUE(a.expect(false));
  ASSERT_TRUE(a.feed(other.data(), other.size()));
  ASSERT_TRUE(b.feed("o", 1));
  EXPECT_EQ(b.known_head_matches(), 1u);
  EXPECT_EQ(seen_b.statuses, std::vector<int>{200});
  // A reset (a reconnect) keeps the worker's head: b's next 404 is matched.
  b.reset();
  ASSERT_TRUE(b.expect(false));
  ASSERT_TRUE(b.feed(other.data(), other.size()));
  EXPECT_EQ(b.known_head_matches(), 1u);
  EXPECT_EQ(seen_b.statuses, (std::vector<int>{200, 404}));
  EXPECT_EQ(seen_a.statuses, (std::vector<int>{200, 404}));
}

}  // namespace
}  // namespace pacer::proto

namespace pacer::proto {
namespace {

// ---- issue 14: status lines, 101, endless heads -------------------------------

TEST(ResponseParser, StatusCodesOutside100To599OrNotThreeDigitsAreErrorsAtAnySplit) {
  const std::vector<std::string> bad = {
      "HTTP/1.1 000 Zero\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 20 Short\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 600 High\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 999\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 0200 OK\r\nContent-Length: 0\r\n\r\n",
      "HTTP/1.1 2\r\n\r\n",
  };
  for (const std::string& bytes : bad) {
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
      Seen seen;
      KnownHead known;
      ResponseParser parser(&record, &seen, &known);
      ASSERT_TRUE(parser.expect(false));
      EXPECT_FALSE(feed_split(parser, bytes, cut)) << "accepted: " << bytes << " cut at " << cut;
      EXPECT_TRUE(seen.statuses.empty()) << bytes;
      EXPECT_NE(std::string(parser.error_reason()).find("status code"), std::string::npos)
          << bytes << ": " << parser.error_reason();
    }
  }
}

TEST(ResponseParser, StatusLineWithoutReasonPhraseStaysValid) {
  const std::string bytes = "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 599 \r\nContent-Length: 0\r\n\r\n";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Seen seen;
    ResponseParser parser(&record, &seen);
    ASSERT_TRUE(parser.expect(false) && parser.expect(false));
    ASSERT_TRUE(feed_split(parser, bytes, cut)) << cut << ": " << parser.error_reason();
    EXPECT_EQ(seen.statuses, (std::vector<int>{200, 599}));
  }
}

TEST(ResponseParser, BadStatusAfterAKnownHeadIsStillAnError) {
  // The known head (200) is matched by memcmp; a head differing only in its code
  // goes to llhttp and the status check.
  for (const char* code : {"000", "099", "101", "600"}) {
    Seen seen;
    KnownHead known;
    ResponseParser parser(&record, &seen, &known);
    ASSERT_TRUE(parser.expect(false) && parser.expect(false) && parser.expect(false));
    std::string bad = kHello;
    bad.replace(9, 3, code);
    const std::string bytes = kHello + kHello + bad;
    EXPECT_FALSE(parser.feed(bytes.data(), bytes.size())) << code;
    EXPECT_EQ(parser.known_head_matches(), 1u) << code;
    EXPECT_EQ(seen.statuses, (std::vector<int>{200, 200})) << code;
  }
}

TEST(ResponseParser, UnrequestedSwitchingProtocolsIsOneErrorAndNoResponse) {
  const std::string bytes = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    Seen seen;
    ResponseParser parser(&record, &seen);
    ASSERT_TRUE(parser.expect(false));
    EXPECT_FALSE(feed_split(parser, bytes, cut)) << cut;
    EXPECT_TRUE(seen.statuses.empty()) << cut;
    EXPECT_NE(std::string(parser.error_reason()).find("101"), std::string::npos) << parser.error_reason();
  }
}

TEST(ResponseParser, HeadLongerThanTheCapFailsAtTheCapWhateverTheReadSize) {
  std::string line = "X-Filler: " + std::string(90, 'x') + "\r\n";
  std::string head = "HTTP/1.1 200 OK\r\n";
  while (head.size() <= ResponseParser::kMaxHeadBytes) head += line;
  for (const std::size_t read_bytes : {std::size_t{1000}, std::size_t{65536}, head.size()}) {
    Seen seen;
    ResponseParser parser(&record, &seen);
    ASSERT_TRUE(parser.expect(false));
    bool ok = true;
    std::size_t fed = 0;
    while (ok && fed < head.size()) {
      const std::size_t n = std::min(read_bytes, head.size() - fed);
      ok = parser.feed(head.data() + fed, n);
      fed += n;
    }
    EXPECT_FALSE(ok) << read_bytes;
    EXPECT_GT(fed, ResponseParser::kMaxHeadBytes) << read_bytes;  // not before the cap
    EXPECT_NE(std::string(parser.error_reason()).find("256 KiB"), std::string::npos) << parser.error_reason();
  }
}

TEST(ResponseParser, HeadJustUnderTheCapIsAccepted) {
  std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n";
  const std::string tail = "\r\n";
  head += "X-Filler: " + std::string(ResponseParser::kMaxHeadBytes - head.size() - tail.size() - 12, 'x') + "\r\n";
  head += tail;
  ASSERT_EQ(head.size(), ResponseParser::kMaxHeadBytes);
  const std::string bytes = head + "ok";
  for (const std::size_t read_bytes : {std::size_t{4096}, bytes.size()}) {
    Seen seen;
    ResponseParser parser(&record, &seen);
    ASSERT_TRUE(parser.expect(false));
    bool ok = true;
    for (std::size_t fed = 0; ok && fed < bytes.size(); fed += read_bytes) {
      ok = parser.feed(bytes.data() + fed, std::min(read_bytes, bytes.size() - fed));
    }
    EXPECT_TRUE(ok) << parser.error_reason();
    EXPECT_EQ(seen.statuses, std::vector<int>{200});
  }
}

}  // namespace
}  // namespace pacer::proto

namespace pacer::proto {
namespace {

TEST(ResponseParser, AScriptsRaisedHeaderCaptureCapRaisesTheHeadCap) {
  // 300 KiB of one header: past the 256 KiB head cap, under a 1 MiB capture cap.
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Big: " + std::string(300 * 1024, 'b') + "\r\n\r\n";
  ResponseCapture capture;
  capture.max_header_bytes.max = 1024 * 1024;
  Seen seen;
  ResponseParser parser(&record, &seen);
  parser.set_capture(&capture);
  parser.reset();
  EXPECT_EQ(parser.max_head_bytes(), 1024 * 1024 + ResponseParser::kHeadFramingBytes);
  ASSERT_TRUE(parser.expect(false));
  for (std::size_t fed = 0; fed < head.size(); fed += 65536) {
    ASSERT_TRUE(parser.feed(head.data() + fed, std::min<std::size_t>(65536, head.size() - fed))) << parser.error_reason();
  }
  EXPECT_EQ(seen.statuses, std::vector<int>{200});
  // An endless head still ends, at the raised cap, with a message naming it.
  ASSERT_TRUE(parser.expect(false));
  // Leading whitespace of a value: llhttp skips it, so no capture cap sees it.
  const std::string start = "HTTP/1.1 200 OK\r\nX-Empty:";
  ASSERT_TRUE(parser.feed(start.data(), start.size()));
  const std::string filler(65536, ' ');
  bool ok = true;
  std::size_t fed = start.size();
  while (ok && fed < 4 * 1024 * 1024) {
    ok = parser.feed(filler.data(), filler.size());
    fed += filler.size();
  }
  EXPECT_FALSE(ok);
  EXPECT_NE(std::string(parser.error_reason()).find("1088 KiB"), std::string::npos) << parser.error_reason();
}

}  // namespace
}  // namespace pacer::proto
