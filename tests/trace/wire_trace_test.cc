// The trace's format (curl -v's marks), its body cap and its sanitiser.
#include "trace/wire_trace.h"

#include <gtest/gtest.h>

#include <string>

#include "../support/cli_args.h"

namespace pacer::trace {
namespace {

TEST(WireTrace, FormatsTheRequestAndResponseAsCurlVerboseDoes) {
  const std::string text = format_exchange(1, "worker 0, connection 2 (opened for it)",
                                           "GET / HTTP/1.1\r\nHost: h\r\n\r\n",
                                           "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", "status 200 in 1.000 ms");
  EXPECT_EQ(text,
            "* exchange 1: worker 0, connection 2 (opened for it)\n"
            "> GET / HTTP/1.1\n"
            "> Host: h\n"
            "> \n"
            "< HTTP/1.1 200 OK\n"
            "< Content-Length: 2\n"
            "< \n"
            "hi\n"
            "* exchange 1: status 200 in 1.000 ms\n");
}

TEST(WireTrace, CutsABodyAtItsCapAndSaysSo) {
  const std::string body(3000, 'x');
  const std::string text =
      format_exchange(2, "w", "POST /p HTTP/1.1\r\n\r\n" + body, "HTTP/1.1 204 No Content\r\n\r\n", "ok", 1024);
  EXPECT_NE(text.find(std::string(1024, 'x') + "\n* (body cut: the first 1024 bytes shown)"), std::string::npos);
  EXPECT_EQ(text.find(std::string(1025, 'x')), std::string::npos);
}

// Issue 44 (16): a 200 KB head is cut by the capture's cap; the peer sent all of it.
TEST(WireTrace, AHeadLongerThanTheCaptureSaysTheTraceCutIt) {
  const std::string head = "HTTP/1.1 200 OK\r\nX-Big: " + std::string(WireTrace::kMaxCaptureBytes, 'a');
  const std::string text = format_exchange(4, "w", "GET / HTTP/1.1\r\n\r\n", head.substr(0, WireTrace::kMaxCaptureBytes), "ok");
  EXPECT_NE(text.find("* (head cut by the trace: it keeps the first 64 KiB of each side)"), std::string::npos) << text.substr(text.size() - 200);
  EXPECT_EQ(text.find("the head was not complete"), std::string::npos);
  const std::string short_text = format_exchange(5, "w", "GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nX-A", "failed");
  EXPECT_NE(short_text.find("* (the head was not complete)"), std::string::npos);
}

// Issue 44 (19): a right-to-left override from a server is replaced like an escape.
TEST(WireTrace, AServersBidirectionalControlsNeverReachTheTerminal) {
  const std::string text = format_exchange(6, "w", "GET / HTTP/1.1\r\n\r\n",
                                           "HTTP/1.1 200 OK\r\nX-Rtl: a\u202Eb\u2066c\r\n\r\nd\u202Ee", "ok");
  EXPECT_EQ(text.find("\u202E"), std::string::npos);
  EXPECT_EQ(text.find("\u2066"), std::string::npos);
  EXPECT_NE(text.find("< X-Rtl: a?b?c"), std::string::npos);
  EXPECT_NE(text.find("d?e"), std::string::npos);
}

TEST(WireTrace, AServersEscapeSequencesNeverReachTheTerminal) {
  const std::string text = format_exchange(3, "w", "GET / HTTP/1.1\r\n\r\n",
                                           "HTTP/1.1 200 OK\r\nX-Evil: \x1b]0;owned\x07\x1b[2J\r\n\r\n\x1b[31mred\xc2\x9b",
                                           "ok");
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos);  // C1 CSI
  EXPECT_NE(text.find("< X-Evil: ?]0;owned??[2J"), std::string::npos);
}

TEST(WireTrace, TheBudgetNumbersExactlyNExchangesAcrossClaims) {
  TraceBudget budget(3);
  EXPECT_EQ(budget.claim(), 1);
  EXPECT_EQ(budget.claim(), 2);
  EXPECT_EQ(budget.claim(), 3);
  EXPECT_EQ(budget.claim(), 0);
  EXPECT_EQ(budget.claim(), 0);
}

TEST(WireTrace, OnlyTheTracedRequestEndsItsTraceOnAMultiplexedConnection) {
  TraceBudget budget(2);
  WireTrace trace(budget, 0, {});
  EXPECT_TRUE(trace.sent(0, 2, 0, true));
  EXPECT_FALSE(trace.sent(0, 3, 0, false));  // one traced exchange per connection at a time
  EXPECT_FALSE(trace.ended(0, 3, 200, "", 1000));  // another stream's (or pipelined request's) end
  EXPECT_TRUE(trace.tracing(0));
  trace.header(0, 3, ":status", "200");  // another stream's header: not this exchange's
  EXPECT_TRUE(trace.ended(0, 2, 200, "", 1000));
  EXPECT_FALSE(trace.tracing(0));
}

TEST(WireTrace, AnHttp2RequestIsShownAsItsHeaderListPseudoHeadersFirst) {
  auto parsed = pacer::testing::parse_args({"--http2", "-H", "X-A: b", "-b", "xyz", "http://127.0.0.1:8080/p?q=1"});
  ASSERT_TRUE(parsed.ok());
  const proto::Http2Request request(parsed->run);
  const std::string text = format_framed_request(request);
  EXPECT_EQ(text.substr(0, text.find("> x-a")),
            "> :method: POST\n> :scheme: http\n> :authority: 127.0.0.1:8080\n> :path: /p?q=1\n")
      << text;
  EXPECT_NE(text.find("> x-a: b\n"), std::string::npos) << text;
  EXPECT_NE(text.find(">\n* (request body: 3 bytes, not shown)\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace pacer::trace
