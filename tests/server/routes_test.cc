// Unit tests of `pacer serve` routing, head formatting and body streams: pure
// functions, no sockets.
#include "server/routes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "server/body_stream.h"

namespace pacer::server {
namespace {

TEST(Routes, MatchRouteReadsTheNumericParameter) {
  EXPECT_EQ(match_route("/bytes/1024").kind, RouteKind::kBytes);
  EXPECT_EQ(match_route("/bytes/1024").value, 1024u);
  EXPECT_EQ(match_route("/delay/50").kind, RouteKind::kDelay);
  EXPECT_EQ(match_route("/status/503").value, 503u);
  EXPECT_EQ(match_route("/fail/3").kind, RouteKind::kFail);
  EXPECT_EQ(match_route("/chunked/0").kind, RouteKind::kChunked);
  EXPECT_EQ(match_route("/").kind, RouteKind::kRoot);
  EXPECT_EQ(match_route("/stats").kind, RouteKind::kStats);
}

TEST(Routes, MatchRouteIgnoresQueryFragmentAndAbsoluteFormAuthority) {
  EXPECT_EQ(match_route("/bytes/7?x=1").value, 7u);
  EXPECT_EQ(match_route("/echo#top").kind, RouteKind::kEcho);
  EXPECT_EQ(match_route("/?a=b").kind, RouteKind::kRoot);
  EXPECT_EQ(match_route("http://example.test:8080/redirect").kind, RouteKind::kRedirect);
  EXPECT_EQ(match_route("http://example.test").kind, RouteKind::kRoot);
}

TEST(Routes, MatchRouteTreatsNonNumbersAsNotFoundAndHugeNumbersAsBadParameter) {
  EXPECT_EQ(match_route("/bytes/12a").kind, RouteKind::kNotFound);
  EXPECT_EQ(match_route("/bytes/-1").kind, RouteKind::kNotFound);
  EXPECT_EQ(match_route("/delay/").kind, RouteKind::kNotFound);
  EXPECT_EQ(match_route("/bytes/99999999999999999999999").kind, RouteKind::kBadParameter);
  EXPECT_EQ(match_route("").kind, RouteKind::kNotFound);
  EXPECT_EQ(match_route("/never/").kind, RouteKind::kNotFound);
}

TEST(Routes, PoolRouteReadsTheWorkersAndTheServiceTime) {
  const Route route = match_route("/pool/4/25?x=1");
  EXPECT_EQ(route.kind, RouteKind::kPool);
  EXPECT_EQ(route.value, 4u);
  EXPECT_EQ(route.service_ms, 25u);
  EXPECT_EQ(match_route("http://example.test/pool/1024/60000").service_ms, 60000u);
}

TEST(Routes, PoolRouteTreatsMissingExtraOrNonNumericPartsAsNotFound) {
  for (const char* target : {"/pool", "/pool/", "/pool/4", "/pool/4/", "/pool//25", "/pool/4/25/", "/pool/4/25/1",
                             "/pool/x/25", "/pool/4/2.5", "/pool/4/-1", "/pool/+4/25", "/pool/4/25us", "/pools/4/25"}) {
    EXPECT_EQ(match_route(target).kind, RouteKind::kNotFound) << target;
  }
  EXPECT_EQ(match_route("/pool/99999999999999999999999/1").kind, RouteKind::kBadParameter);
  EXPECT_EQ(match_route("/pool/1/99999999999999999999999").kind, RouteKind::kBadParameter);
}

TEST(Routes, PoolReplyQueuesForTheServiceTimeAndRefusesParametersOutOfRange) {
  std::atomic<std::uint64_t> fail_requests{0};
  std::array<char, 128> scratch{};
  const Reply reply = plan_reply(match_route("/pool/4/25"), fail_requests, {}, scratch);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.action, ReplyAction::kQueue);
  EXPECT_EQ(reply.delay_ns, 25 * kNsPerMs);
  EXPECT_EQ(reply.text, "pool\n");
  EXPECT_TRUE(reply.counted);
  EXPECT_EQ(plan_reply(match_route("/pool/1024/60000"), fail_requests, {}, scratch).action, ReplyAction::kQueue);
  EXPECT_EQ(plan_reply(match_route("/pool/1/1"), fail_requests, {}, scratch).action, ReplyAction::kQueue);
  for (const char* target : {"/pool/0/25", "/pool/1025/25", "/pool/4/0", "/pool/4/60001", "/pool/99999999999999999999999/1"}) {
    const Reply refused = plan_reply(match_route(target), fail_requests, {}, scratch);
    EXPECT_EQ(refused.status, 400) << target;
    EXPECT_EQ(refused.action, ReplyAction::kAnswer) << target;
  }
}

TEST(Routes, TooManyPoolsIsA503SayingWhy) {
  const Reply reply = too_many_pools_reply();
  EXPECT_EQ(reply.status, 503);
  EXPECT_EQ(reply.action, ReplyAction::kAnswer);
  EXPECT_EQ(reply.text, "too many pools: pacer serve keeps at most 64 distinct /pool/W/MS pairs\n");
  EXPECT_EQ(reply.body_bytes, reply.text.size());
}

TEST(Routes, PlanReplyMakesEveryNthFailRequestA500) {
  std::atomic<std::uint64_t> fail_requests{0};
  std::array<char, 128> scratch{};
  int failures = 0;
  for (int i = 0; i < 12; ++i) {
    failures += plan_reply(Route{RouteKind::kFail, 4}, fail_requests, {}, scratch).status == 500 ? 1 : 0;
  }
  EXPECT_EQ(failures, 3);
  EXPECT_EQ(plan_reply(Route{RouteKind::kFail, 0}, fail_requests, {}, scratch).status, 400);
}

TEST(Routes, PlanReplyFormatsStatsAsJsonAndDoesNotCountIt) {
  std::atomic<std::uint64_t> fail_requests{0};
  std::array<char, 128> scratch{};
  const Reply reply = plan_reply(Route{RouteKind::kStats, 0}, fail_requests, StatsSnapshot{12, 3}, scratch);
  EXPECT_EQ(reply.text, R"({"requests_answered":12,"connections_accepted":3})");
  EXPECT_EQ(reply.body_bytes, reply.text.size());
  EXPECT_FALSE(reply.counted);
}

TEST(Routes, WriteHeadDescribesTheBodyAndTheConnection) {
  char buffer[kMaxHeadBytes];
  Reply bytes;
  bytes.body = BodyKind::kPattern;
  bytes.body_bytes = 42;
  bytes.content_type = "application/octet-stream";
  std::string head(buffer, write_head(buffer, bytes, ConnectionHeader::kClose));
  EXPECT_EQ(head,
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 42\r\n"
            "Connection: close\r\n\r\n");

  Reply chunked = bytes;
  chunked.body = BodyKind::kChunked;
  head.assign(buffer, write_head(buffer, chunked, ConnectionHeader::kKeepAlive));
  EXPECT_EQ(head,
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n"
            "Connection: keep-alive\r\n\r\n");

  head.assign(buffer, write_head(buffer, status_reply(204), ConnectionHeader::kNone));
  EXPECT_EQ(head, "HTTP/1.1 204 No Content\r\n\r\n");
}

TEST(Routes, WriteHeadReturnsZeroWhenTheBufferIsTooSmall) {
  char buffer[20];
  EXPECT_EQ(write_head(buffer, status_reply(404), ConnectionHeader::kNone), 0u);
}

TEST(Routes, ReasonPhraseFallsBackToTheStatusClass) {
  EXPECT_EQ(reason_phrase(404), "Not Found");
  EXPECT_EQ(reason_phrase(299), "Success");
  EXPECT_EQ(reason_phrase(599), "Server Error");
}

std::string drain(BodyStream& stream) {
  std::string bytes(static_cast<std::size_t>(stream.remaining_bytes()), '\0');
  stream.drain_into(bytes.data());
  return bytes;
}

TEST(BodyStream, ChunkedBodyHasTheAnnouncedWireSizeAndEncoding) {
  for (std::uint64_t n : {0, 1, 4095, 4096, 4097, 8192, 70000, 200000}) {
    BodyStream stream;
    std::array<char, 16> scratch{};
    add_chunked_body(stream, n, scratch);
    EXPECT_EQ(stream.remaining_bytes(), chunked_wire_bytes(n)) << n;
    const std::string wire = drain(stream);
    EXPECT_TRUE(wire.ends_with("0\r\n\r\n")) << n;
    if (n >= 4096) {
      EXPECT_TRUE(wire.starts_with("1000\r\n" + std::string(body_pattern().substr(0, 4096)) + "\r\n"));
    }
    if (n % 4096 != 0) {
      EXPECT_NE(wire.find(fmt::format("{:x}\r\n", n % 4096)), std::string::npos) << n;
    }
    EXPECT_TRUE(stream.empty());
  }
}

TEST(BodyStream, FillIovStopsAtTheByteLimitAndAdvanceCrossesSegments) {
  BodyStream stream;
  stream.add(plain_segment("abc"));
  stream.add(pattern_segment(200'000));
  stream.add(plain_segment("xyz"));
  iovec iov[8];
  const int used = stream.fill_iov(iov, 8, 10);
  ASSERT_EQ(used, 2);
  EXPECT_EQ(iov[0].iov_len + iov[1].iov_len, 10u);
  stream.advance(5);
  EXPECT_EQ(stream.remaining_bytes(), 200'001u);
  const std::string rest = drain(stream);
  EXPECT_EQ(rest.size(), 200'001u);
  EXPECT_TRUE(rest.ends_with("xyz"));
  // Stream position 5 is pattern position 2; the pattern repeats across its 64 KiB buffer.
  const std::string_view pattern = body_pattern();
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i + 3 < rest.size(); ++i) mismatches += rest[i] != pattern[(i + 2) % pattern.size()];
  EXPECT_EQ(mismatches, 0u);
}

TEST(Routes, LoginHandsOutTheTokenThatAuthAccepts) {
  std::atomic<std::uint64_t> fail_requests{0};
  std::array<char, 128> scratch{};
  EXPECT_EQ(match_route("/login").kind, RouteKind::kLogin);
  EXPECT_EQ(match_route("/auth?x=1").kind, RouteKind::kAuth);
  const Reply login = plan_reply(Route{RouteKind::kLogin, 0}, fail_requests, {}, scratch);
  EXPECT_EQ(login.status, 200);
  EXPECT_NE(login.text.find(kLoginToken), std::string_view::npos);
  EXPECT_EQ(login.content_type, "application/json");
  EXPECT_EQ(plan_reply(Route{RouteKind::kAuth, 1}, fail_requests, {}, scratch).status, 200);
  EXPECT_EQ(plan_reply(Route{RouteKind::kAuth, 0}, fail_requests, {}, scratch).status, 401);
}

TEST(Routes, LoginTokenIsFoundInAnyHeaderCaseAndOnlyWithBearer) {
  const std::string token(kLoginToken);
  EXPECT_TRUE(has_login_token("GET /auth HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\n\r\n"));
  EXPECT_TRUE(has_login_token("GET /auth HTTP/1.1\r\nauthorization:Bearer " + token + " \r\n\r\n"));
  EXPECT_FALSE(has_login_token("GET /auth HTTP/1.1\r\nAuthorization: Bearer wrong\r\n\r\n"));
  EXPECT_FALSE(has_login_token("GET /auth HTTP/1.1\r\nAuthorization: " + token + "\r\n\r\n"));
  // RFC 9110 11.1: the scheme is case-insensitive.
  EXPECT_TRUE(has_login_token("GET /auth HTTP/1.1\r\nAuthorization: bearer " + token + "\r\n\r\n"));
  EXPECT_TRUE(has_login_token("GET /auth HTTP/1.1\r\nAuthorization: BEARER  " + token + "\r\n\r\n"));
  EXPECT_FALSE(has_login_token("GET /auth HTTP/1.1\r\nAuthorization: Bearerx " + token + "\r\n\r\n"));
  EXPECT_FALSE(has_login_token("GET /auth HTTP/1.1\r\nHost: x\r\n\r\nAuthorization: Bearer " + token + "\r\n"));
  EXPECT_FALSE(has_login_token("GET /auth HTTP/1.1\r\n\r\n"));
}

TEST(Routes, JsonAnswers415WithoutAJsonContentType) {
  std::atomic<std::uint64_t> fail_requests{0};
  std::array<char, 128> scratch{};
  EXPECT_EQ(match_route("/json?x=1").kind, RouteKind::kJson);
  const Reply ok = plan_reply(Route{RouteKind::kJson, 1}, fail_requests, {}, scratch);
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.content_type, "application/json");
  EXPECT_EQ(plan_reply(Route{RouteKind::kJson, 0}, fail_requests, {}, scratch).status, 415);
}

TEST(Routes, JsonContentTypeIsTheMediaTypeInAnyCaseWithParametersOrAJsonSuffix) {
  const std::string head = "POST /json HTTP/1.1\r\nHost: x\r\n";
  EXPECT_TRUE(has_json_content_type(head + "Content-Type: application/json\r\n\r\n"));
  EXPECT_TRUE(has_json_content_type(head + "content-type:Application/JSON ; charset=utf-8\r\n\r\n"));
  EXPECT_TRUE(has_json_content_type(head + "Content-Type: application/vnd.api+json\r\n\r\n"));
  EXPECT_FALSE(has_json_content_type(head + "Content-Type: text/plain\r\n\r\n"));
  EXPECT_FALSE(has_json_content_type(head + "Content-Type: application/x-www-form-urlencoded\r\n\r\n"));
  EXPECT_FALSE(has_json_content_type(head + "Accept: application/json\r\n\r\n"));
  EXPECT_FALSE(has_json_content_type(head + "\r\n"));
  EXPECT_FALSE(has_json_content_type(head + "\r\nContent-Type: application/json\r\n"));  // in the body
}

}  // namespace
}  // namespace pacer::server
