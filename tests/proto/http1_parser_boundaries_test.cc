// ResponseParser at the boundaries between responses: the line ends llhttp skips
// before a response, and the bytes after one that closes the connection. Each
// gives the same result fed whole, split at every byte, and with or without the
// known head (cases found by fuzz/http1_response_fuzz.cc).
#include "proto/http1_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pacer::proto {
namespace {

const std::string kHello = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

struct Outcome {
  bool accepted = true;
  std::vector<int> statuses;
  std::uint64_t known_matches = 0;
};

void record(void* context, int status, bool) { static_cast<std::vector<int>*>(context)->push_back(status); }

// Feeds `bytes` cut at `cut` (0: whole) to a parser expecting `requests`
// responses (the first `heads` of them to HEAD).
Outcome parse(const std::string& bytes, std::size_t cut, int requests, bool use_known, int heads = 0) {
  Outcome out;
  KnownHead known;
  ResponseParser parser(&record, &out.statuses, use_known ? &known : nullptr);
  for (int i = 0; i < requests; ++i) EXPECT_TRUE(parser.expect(i < heads));
  if (cut == 0 || cut >= bytes.size()) {
    out.accepted = parser.feed(bytes.data(), bytes.size());
  } else {
    out.accepted = parser.feed(bytes.data(), cut) && parser.feed(bytes.data() + cut, bytes.size() - cut);
  }
  out.known_matches = parser.known_head_matches();
  return out;
}

// Found by fuzzing: after a response that closes the connection the status-line
// check still ran on the bytes llhttp ignores, from wherever a read started, so
// the same bytes were accepted in one read and refused in two. They are ignored
// (the connection is done), in one read or several.
TEST(ResponseParserBoundaries, BytesAfterAResponseThatClosesAreIgnoredAtAnySplit) {
  const std::vector<std::string> closing = {
      "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
      "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
  };
  const std::vector<std::string> after = {"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 2000 OK\r\n\r\n",
                                          "garbage 1 OK\r\n", kHello};
  for (const std::string& close : closing) {
    for (const std::string& tail : after) {
      const std::string bytes = close + tail;
      for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        const Outcome o = parse(bytes, cut, 2, true);
        EXPECT_TRUE(o.accepted) << close << tail << " cut at " << cut;
        EXPECT_EQ(o.statuses, std::vector<int>{200}) << close << tail << " cut at " << cut;
      }
    }
  }
  // The fuzzer's input: an HTTP/1.0 response to HEAD, then what looks like its body and another response.
  const std::string bytes = "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const Outcome o = parse(bytes, cut, 2, true, 1);
    EXPECT_TRUE(o.accepted) << "cut at " << cut;
    EXPECT_EQ(o.statuses, std::vector<int>{200}) << "cut at " << cut;
  }
}

// Found by fuzzing: the head learnt began where llhttp was fed, so the line ends
// before a response were learnt as its head ("\r\n\r\n", the rest as body) and
// then matched the line ends before the next response: 215 counted twice where
// llhttp counts 215 then 200. A response starts at its status line.
TEST(ResponseParserBoundaries, LineEndsBeforeAResponseAreNotPartOfItsKnownHead) {
  const std::string bytes =
      "\r\n\r\nHTTP/1.1 215 O close\r\nContent-Length: 0\r\n\r\n\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    for (const bool use_known : {true, false}) {
      const Outcome o = parse(bytes, cut, 2, use_known);
      EXPECT_TRUE(o.accepted) << "cut at " << cut;
      EXPECT_EQ(o.statuses, (std::vector<int>{215, 200})) << "cut at " << cut << (use_known ? " known head" : "");
    }
  }
  // Line ends between repeats do not stop the known head from matching.
  const std::string repeats = kHello + "\r\n" + kHello + "\n\r\n" + kHello;
  for (std::size_t cut = 0; cut < repeats.size(); ++cut) {
    const Outcome o = parse(repeats, cut, 3, true);
    EXPECT_TRUE(o.accepted) << "cut at " << cut;
    EXPECT_EQ(o.statuses, (std::vector<int>{200, 200, 200})) << "cut at " << cut;
  }
  EXPECT_EQ(parse(repeats, 0, 3, true).known_matches, 2u);
}


// Found by fuzzing: llhttp also ends a head at a CR and any byte ("...\r\n\r0"),
// where the known head was cut at the next CRLF CRLF (in the body), so a repeat
// of that response had another body length (1 byte where llhttp counts 5). The
// head is learnt where llhttp ended it, and only a head ending in CRLF CRLF.
struct Bodies {
  const ResponseParser* parser = nullptr;
  std::vector<std::uint64_t> lengths;
};

void record_body(void* context, int, bool) {
  auto* bodies = static_cast<Bodies*>(context);
  bodies->lengths.push_back(bodies->parser->body_bytes());
}

std::vector<std::uint64_t> body_lengths(const std::string& bytes, int requests, bool use_known) {
  KnownHead known;
  Bodies bodies;
  ResponseParser parser(&record_body, &bodies, use_known ? &known : nullptr);
  bodies.parser = &parser;
  for (int i = 0; i < requests; ++i) EXPECT_TRUE(parser.expect(false));
  EXPECT_TRUE(parser.feed(bytes.data(), bytes.size()));
  return bodies.lengths;
}

TEST(ResponseParserBoundaries, AHeadEndedByCarriageReturnAndAnyByteIsFramedAsLlhttpFramesIt) {
  const std::string odd = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r0\r\n\r\nX";  // body "\r\n\r\nX"
  const std::string bytes = odd + odd + kHello + kHello;
  const std::vector<std::uint64_t> plain = body_lengths(bytes, 4, false);
  EXPECT_EQ(plain, (std::vector<std::uint64_t>{5, 5, 5, 5}));
  EXPECT_EQ(body_lengths(bytes, 4, true), plain);
  // A well-formed head after it is still learnt and matched.
  EXPECT_EQ(parse(bytes, 0, 4, true).known_matches, 1u);
}

}  // namespace
}  // namespace pacer::proto
