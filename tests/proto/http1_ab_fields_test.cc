// ResponseParser's ab fields (issue 33): each response's body length on the wire
// (Content-Length, chunked, a HEAD's, a close-delimited one) and its Server header
// when asked, whole and split at every byte, through llhttp and through the known
// head (whose Server is read from the head it learnt).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/http1_parser.h"

namespace pacer::proto {
namespace {

struct Seen {
  ResponseParser* parser = nullptr;
  std::vector<std::uint64_t> bodies;
  std::vector<std::string> servers;
};

void record(void* context, int, bool) {
  auto* seen = static_cast<Seen*>(context);
  seen->bodies.push_back(seen->parser->body_bytes());
  seen->servers.emplace_back(seen->parser->server());
}

Seen parse(const std::string& bytes, std::size_t cut, bool keep_server, int requests = 1, bool head = false,
           KnownHead* known = nullptr) {
  Seen seen;
  ResponseParser parser(&record, &seen, known);
  seen.parser = &parser;
  parser.keep_server(keep_server);
  parser.reset();
  for (int i = 0; i < requests; ++i) EXPECT_TRUE(parser.expect(head));
  const bool ok = cut == 0 || cut >= bytes.size()
                      ? parser.feed(bytes.data(), bytes.size())
                      : parser.feed(bytes.data(), cut) && parser.feed(bytes.data() + cut, bytes.size() - cut);
  EXPECT_TRUE(ok) << parser.error_reason();
  EXPECT_TRUE(parser.finish());
  return seen;
}

TEST(ResponseParserAbFields, BodyLengthsAndTheServerHeaderWhateverTheFramingAndTheCut) {
  const std::string bytes =
      "HTTP/1.1 200 OK\r\nSERVER:  nginx/1.22 \r\nContent-Length: 5\r\n\r\nhello"
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Server: no\r\nServer: chunky\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"
      "HTTP/1.1 100 Continue\r\nServer: interim\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"
      "HTTP/1.1 200 OK\r\nServerx: y\r\n\r\nto the close";
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const Seen seen = parse(bytes, cut, true, 4);
    EXPECT_EQ(seen.bodies, (std::vector<std::uint64_t>{5, 7, 0, 12})) << "cut at " << cut;
    EXPECT_EQ(seen.servers, (std::vector<std::string>{"nginx/1.22", "chunky", "", ""})) << "cut at " << cut;
  }
  // Not asked: no Server, the body lengths all the same.
  const Seen plain = parse(bytes, 0, false, 4);
  EXPECT_EQ(plain.bodies, (std::vector<std::uint64_t>{5, 7, 0, 12}));
  EXPECT_EQ(plain.servers, (std::vector<std::string>{"", "", "", ""}));
}

TEST(ResponseParserAbFields, AHeadResponseHasNoBodyWhateverItsContentLength) {
  const Seen seen = parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nServer: s\r\n\r\n", 0, true, 1, true);
  EXPECT_EQ(seen.bodies, std::vector<std::uint64_t>{0});
  EXPECT_EQ(seen.servers, std::vector<std::string>{"s"});
}

TEST(ResponseParserAbFields, ResponsesMatchedByTheKnownHeadCarryItsServerAndLength) {
  const std::string one = "HTTP/1.1 200 OK\r\nServer: pacer-test\r\nContent-Length: 3\r\n\r\nabc";
  KnownHead known;
  const Seen seen = parse(one + one + one, 0, true, 3, false, &known);
  EXPECT_EQ(seen.bodies, (std::vector<std::uint64_t>{3, 3, 3}));
  EXPECT_EQ(seen.servers, (std::vector<std::string>{"pacer-test", "pacer-test", "pacer-test"}));
  EXPECT_EQ(known.server, "pacer-test");
}

TEST(ResponseParserAbFields, FindHeaderReadsANameCaseBlindAndTrimsItsValue) {
  const std::string head = "HTTP/1.1 200 OK\r\nX-Server: no\r\nserver:\t a b \r\nServer: second\r\n\r\n";
  EXPECT_EQ(find_header(head, "server"), "a b");
  EXPECT_EQ(find_header(head, "x-server"), "no");
  EXPECT_EQ(find_header(head, "date"), "");
  EXPECT_EQ(find_header("Server: on the status line\r\n\r\n", "server"), "");
}

}  // namespace
}  // namespace pacer::proto
