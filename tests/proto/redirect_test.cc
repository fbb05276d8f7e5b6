// Redirector (src/proto/redirect.h) and Http1Session's wire features: a
// follow-up keeps or drops method and body by RFC 9110's rules, only the run's
// origin is followed, loops and hop limits stop a chain with a reason; through
// the session, a redirect is followed on the same connection under the same
// token, and a body that does not decode fails its request but not the connection.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/zlib_compress.h"
#include "core/config.h"
#include "proto/http1_session.h"
#include "proto/redirect.h"

namespace pacer::proto {
namespace {

Target target(std::string host = "127.0.0.1", std::uint16_t port = 8080) {
  Target t;
  t.scheme = "http";
  t.host = std::move(host);
  t.port = port;
  return t;
}

const std::string kPost =
    "POST /form?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
    "X-Keep: yes\r\n\r\nhello";

TEST(Redirector, Status303TurnsPostIntoGetWithoutBodyOrContentHeaders) {
  Redirector r(target(), 5, kPost.size());
  r.start(kPost);
  ASSERT_EQ(r.redirect(303, "/done", false), Redirector::Step::kFollow) << r.reason();
  EXPECT_EQ(r.follow_up(), "GET /done HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Keep: yes\r\n\r\n");
  EXPECT_EQ(r.hops(), 1);
}

// Issue 44 (4): a scenario user's follow-up carries its jar's Cookie line, the redirect's own cookie in it.
TEST(Redirector, TheFollowUpsCookieLineIsReplacedAcrossHops) {
  const std::string login = "GET /login?u=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nCookie: old=1\r\nX-Keep: yes\r\n\r\n";
  Redirector r(target(), 5, login.size());
  r.start(login);
  ASSERT_EQ(r.redirect(302, "/home", false), Redirector::Step::kFollow) << r.reason();
  EXPECT_EQ(r.answered_target(), "/login?u=1");
  r.replace_cookie_line("Cookie: old=1; sess=abc\r\n");
  EXPECT_EQ(r.follow_up(), "GET /home HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Keep: yes\r\nCookie: old=1; sess=abc\r\n\r\n");
  EXPECT_EQ(r.method(), "GET");
  // A second hop builds from the replaced bytes; an empty line drops the header.
  ASSERT_EQ(r.redirect(307, "/deeper", false), Redirector::Step::kFollow) << r.reason();
  EXPECT_EQ(r.answered_target(), "/home");
  r.replace_cookie_line("");
  EXPECT_EQ(r.follow_up(), "GET /deeper HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Keep: yes\r\n\r\n");
  ASSERT_EQ(r.redirect(308, "/last", false), Redirector::Step::kFollow) << r.reason();
  EXPECT_EQ(r.follow_up(), "GET /last HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-Keep: yes\r\n\r\n");
}

TEST(Redirector, Status307And308KeepMethodAndBody) {
  for (const int status : {307, 308}) {
    Redirector r(target(), 5, kPost.size());
    r.start(kPost);
    ASSERT_EQ(r.redirect(status, "http://127.0.0.1:8080/next", false), Redirector::Step::kFollow) << r.reason();
    EXPECT_EQ(r.follow_up(),
              "POST /next HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n"
              "X-Keep: yes\r\n\r\nhello");
  }
}

TEST(Redirector, Status301And302TurnPostIntoGetAsBrowsersDoAndKeepOtherMethods) {
  Redirector r(target(), 5, kPost.size());
  r.start(kPost);
  ASSERT_EQ(r.redirect(301, "/a", false), Redirector::Step::kFollow);
  EXPECT_TRUE(r.follow_up().starts_with("GET /a HTTP/1.1\r\n"));
  const std::string put = "PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi";
  r.start(put);
  ASSERT_EQ(r.redirect(302, "/b", false), Redirector::Step::kFollow);
  EXPECT_EQ(r.follow_up(), "PUT /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi");
  const std::string head = "HEAD /x HTTP/1.1\r\nHost: h\r\n\r\n";
  r.start(head);
  ASSERT_EQ(r.redirect(303, "/c", false), Redirector::Step::kFollow);
  EXPECT_EQ(r.follow_up(), "HEAD /c HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_TRUE(r.follow_up_is_head());
}

TEST(Redirector, LocationsResolveAgainstTheOriginAndTheCurrentPath) {
  Redirector r(target("Example.com", 80), 5, 100);
  std::string out;
  ASSERT_TRUE(r.resolve("http://EXAMPLE.com/p?q#frag", "/a/b", out));
  EXPECT_EQ(out, "/p?q");
  ASSERT_TRUE(r.resolve("http://example.com:80", "/a/b", out));
  EXPECT_EQ(out, "/");
  ASSERT_TRUE(r.resolve("//example.com/x", "/a/b", out));
  EXPECT_EQ(out, "/x");
  ASSERT_TRUE(r.resolve("c?d=1", "/a/b?old", out));
  EXPECT_EQ(out, "/a/c?d=1");
  ASSERT_TRUE(r.resolve("?page=2", "/a/b?page=1", out));
  EXPECT_EQ(out, "/a/b?page=2");
  EXPECT_FALSE(r.resolve("http://example.com:8080/", "/", out));
  EXPECT_FALSE(r.resolve("https://example.com/", "/", out));
  EXPECT_FALSE(r.resolve("http://other.com/", "/", out));
  EXPECT_NE(std::string(r.reason()).find("another origin"), std::string::npos) << r.reason();
  EXPECT_FALSE(r.resolve("/has space", "/", out));
}

TEST(Redirector, LocationsResolveAsRfc3986Section5Says) {
  Redirector r(target("example.com", 80), 5, 100);
  std::string out;
  ASSERT_TRUE(r.resolve("/a/../done", "/x", out));
  EXPECT_EQ(out, "/done");
  ASSERT_TRUE(r.resolve("../../../etc/passwd", "/dir/page", out));
  EXPECT_EQ(out, "/etc/passwd");
  ASSERT_TRUE(r.resolve("./g;x?y", "/b/c/d;p?q", out));
  EXPECT_EQ(out, "/b/c/g;x?y");
  ASSERT_TRUE(r.resolve("http://example.com/a/./b/../c", "/", out));
  EXPECT_EQ(out, "/a/c");
  // A scheme of its own is an origin of its own: refused, never requested as a path.
  for (const char* other : {"javascript:alert(1)", "mailto:x@example.com", "http:g", "data:text/html,x"}) {
    EXPECT_FALSE(r.resolve(other, "/", out)) << other;
    EXPECT_NE(std::string(r.reason()).find("another origin"), std::string::npos) << r.reason();
  }
}

TEST(Redirector, ALoopTooManyHopsAndABadLocationStopTheChainWithTheirReason) {
  const std::string get = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
  Redirector r(target(), 3, get.size());
  r.start(get);
  ASSERT_EQ(r.redirect(301, "/b", false), Redirector::Step::kFollow);
  EXPECT_EQ(r.redirect(301, "/a", false), Redirector::Step::kFail);
  EXPECT_NE(std::string(r.reason()).find("loop"), std::string::npos) << r.reason();

  r.start(get);
  ASSERT_EQ(r.redirect(302, "/1", false), Redirector::Step::kFollow);
  ASSERT_EQ(r.redirect(302, "/2", false), Redirector::Step::kFollow);
  ASSERT_EQ(r.redirect(302, "/3", false), Redirector::Step::kFollow);
  EXPECT_EQ(r.redirect(302, "/4", false), Redirector::Step::kFail);
  EXPECT_NE(std::string(r.reason()).find("more than 3 hops"), std::string::npos) << r.reason();

  r.start(get);
  EXPECT_EQ(r.redirect(301, "", false), Redirector::Step::kFail);
  EXPECT_NE(std::string(r.reason()).find("without a Location"), std::string::npos);
  EXPECT_EQ(r.redirect(301, "/x", true), Redirector::Step::kFail);
  EXPECT_NE(std::string(r.reason()).find("8 KiB"), std::string::npos);
}

// ---- through Http1Session ---------------------------------------------------------

struct Events final : SessionEvents {
  std::vector<std::pair<std::uint32_t, int>> responses;
  std::vector<std::uint32_t> redirects;
  std::vector<std::uint32_t> first_bytes;
  std::vector<std::uint64_t> decoded;
  std::vector<RequestFailure> failures;
  void on_response(std::uint32_t token, int status) override { responses.push_back({token, status}); }
  void on_request_failed(std::uint32_t, RequestFailure why) override { failures.push_back(why); }
  void on_redirect(std::uint32_t token) override { redirects.push_back(token); }
  void on_first_byte(std::uint32_t token) override { first_bytes.push_back(token); }
  void on_decoded(std::uint32_t, std::uint64_t bytes) override { decoded.push_back(bytes); }
};

std::string written(Http1Session& s) {
  const std::span<const char> out = s.pending_output();
  std::string bytes(out.data(), out.size());
  s.consume(out.size());
  return bytes;
}

bool feed(Http1Session& s, const std::string& bytes, Events& e) { return s.receive(bytes.data(), bytes.size(), e); }

TEST(Http1SessionWire, ARedirectIsFollowedOnTheSameConnectionUnderTheSameToken) {
  const std::string get = "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
  Http1Session s(get, get, 1, false);
  s.enable_wire(target(), 2, false);
  s.reset();
  Events e;
  s.submit(7, 0);
  EXPECT_EQ(written(s), get);
  ASSERT_TRUE(feed(s, "HTTP/1.1 301 Moved\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", e));
  EXPECT_EQ(e.redirects, std::vector<std::uint32_t>{7});
  EXPECT_TRUE(e.responses.empty());
  EXPECT_EQ(written(s), "GET /b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  ASSERT_TRUE(feed(s, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", e));
  ASSERT_EQ(e.responses.size(), 1u);
  EXPECT_EQ(e.responses[0], (std::pair<std::uint32_t, int>{7, 200}));
  EXPECT_EQ(e.first_bytes, (std::vector<std::uint32_t>{7, 7}));  // one per response; the engine keeps the last hop's
  // The next request starts a new chain with its own hop count.
  s.submit(7, 0);
  written(s);
  ASSERT_TRUE(feed(s, "HTTP/1.1 302 Found\r\nLocation: /c\r\nContent-Length: 0\r\n\r\n", e));
  EXPECT_TRUE(written(s).starts_with("GET /c "));
  ASSERT_TRUE(feed(s, "HTTP/1.1 302 Found\r\nLocation: /d\r\nContent-Length: 0\r\n\r\n", e));
  EXPECT_TRUE(written(s).starts_with("GET /d "));
  ASSERT_TRUE(feed(s, "HTTP/1.1 302 Found\r\nLocation: /e\r\nContent-Length: 0\r\n\r\n", e));
  EXPECT_TRUE(written(s).empty());
  EXPECT_EQ(e.failures, std::vector<RequestFailure>{RequestFailure::kRedirect});
  EXPECT_NE(std::string(s.failure_detail()).find("more than 2 hops"), std::string::npos);
}

TEST(Http1SessionWire, WithoutFollowingARedirectIsAnOrdinaryResponse) {
  const std::string get = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
  Http1Session s(get, get, 1, false);
  s.enable_wire(target(), 0, true);
  s.reset();
  Events e;
  s.submit(0, 0);
  written(s);
  ASSERT_TRUE(feed(s, "HTTP/1.1 301 Moved\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n", e));
  EXPECT_EQ(e.responses.size(), 1u);
  EXPECT_TRUE(e.redirects.empty());
}

TEST(Http1SessionWire, TheKnownHeadStandsInForResponsesThatAreNotFollowedRedirects) {
  // --follow-redirects reads only a redirect's Location: a repeated 200 may become
  // the known head (and match), a redirect never does; --compressed reads every body.
  const std::string get = "GET /a HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  const std::string moved = "HTTP/1.1 301 Moved\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n";
  KnownHead known;
  Http1Session s(get, get, 1, false, &known);
  s.enable_wire(target(), 2, false);
  s.reset();
  Events e;
  s.submit(1, 0);
  written(s);
  ASSERT_TRUE(feed(s, moved, e));
  EXPECT_EQ(known.length, 0u);  // a followed redirect is read, never learnt
  written(s);
  ASSERT_TRUE(feed(s, ok, e));
  EXPECT_NE(known.length, 0u);
  for (std::uint32_t token = 2; token < 4; ++token) {  // matched by the known head, still followed when redirected
    s.submit(token, 0);
    written(s);
    ASSERT_TRUE(feed(s, ok, e));
  }
  s.submit(4, 0);
  written(s);
  ASSERT_TRUE(feed(s, moved, e));
  EXPECT_EQ(written(s), "GET /b HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
  ASSERT_TRUE(feed(s, ok, e));
  EXPECT_EQ(e.redirects, (std::vector<std::uint32_t>{1, 4}));
  EXPECT_EQ(e.responses, (std::vector<std::pair<std::uint32_t, int>>{{1, 200}, {2, 200}, {3, 200}, {4, 200}}));
  EXPECT_EQ(e.first_bytes.size(), 6u);

  KnownHead not_learnt;
  Http1Session decoding(get, get, 1, false, &not_learnt);
  decoding.enable_wire(target(), 0, true);
  decoding.reset();
  for (std::uint32_t token = 0; token < 2; ++token) {
    decoding.submit(token, 0);
    written(decoding);
    ASSERT_TRUE(feed(decoding, ok, e));
  }
  EXPECT_EQ(not_learnt.length, 0u);
}

TEST(Http1SessionWire, ACompressedBodyIsDecodedAndACorruptOneFailsOnlyItsRequest) {
  const std::string get = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
  Http1Session s(get, get, 1, false);
  s.enable_wire(target(), 0, true);
  s.reset();
  Events e;
  const std::string text(5000, 'a');
  const std::string body = testing::zlib_compress(text, 15 + 16);
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  s.submit(0, 0);
  written(s);
  // Split inside the header name and the body.
  const std::string whole = head + body;
  ASSERT_TRUE(feed(s, whole.substr(0, 30), e));
  ASSERT_TRUE(feed(s, whole.substr(30, head.size() + 5 - 30), e));
  ASSERT_TRUE(feed(s, whole.substr(head.size() + 5), e));
  EXPECT_EQ(e.decoded, std::vector<std::uint64_t>{5000});
  ASSERT_EQ(e.responses.size(), 1u);

  std::string corrupt = body;
  corrupt[corrupt.size() / 2] ^= 0x5a;
  corrupt[corrupt.size() / 2 + 1] ^= 0x5a;
  s.submit(0, 0);
  written(s);
  ASSERT_TRUE(feed(s, head + corrupt, e));
  EXPECT_EQ(e.failures, std::vector<RequestFailure>{RequestFailure::kDecode});
  EXPECT_NE(std::string(s.failure_detail()).find("decode:"), std::string::npos);
  // The connection carries on: the next response decodes.
  s.submit(0, 0);
  written(s);
  ASSERT_TRUE(feed(s, whole, e));
  EXPECT_EQ(e.responses.size(), 2u);
  EXPECT_EQ(e.decoded.back(), 5000u);
}

}  // namespace
}  // namespace pacer::proto
