// The web view's routes and access rules (src/web/routes.h).
#include "web/routes.h"

#include <string>

#include <gtest/gtest.h>

namespace pacer::web {
namespace {

HttpRequest request(std::string_view method, std::string_view path, std::string_view host = "127.0.0.1:8089") {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.host = host;
  return r;
}

TEST(Routes, LoopbackWithoutTokenServesThePageReportAndEvents) {
  LiveFeed feed;
  feed.publish_report("{\"so\":\"far\"}");
  const AccessRules rules;
  EXPECT_EQ(route(request("GET", "/"), rules, feed).status, 200);
  const Reply report = route(request("GET", "/report.json"), rules, feed);
  EXPECT_EQ(report.status, 200);
  EXPECT_EQ(report.body, "{\"so\":\"far\"}");
  EXPECT_NE(report.head.find("Content-Type: application/json\r\n"), std::string::npos);
  const Reply events = route(request("GET", "/events"), rules, feed);
  EXPECT_TRUE(events.stream_events);
  EXPECT_EQ(events.first_event, 0u);
  EXPECT_NE(events.head.find("Content-Type: text/event-stream\r\n"), std::string::npos);
  EXPECT_EQ(route(request("GET", "/nope"), rules, feed).status, 404);
  EXPECT_EQ(route(request("POST", "/report.json"), rules, feed).status, 405);
}

TEST(Routes, SearchProgressIsServedOnlyDuringACapacitySearch) {
  LiveFeed feed;
  const AccessRules rules;
  const Reply none = route(request("GET", "/search.json"), rules, feed);
  EXPECT_EQ(none.status, 404);
  EXPECT_NE(none.body.find("not a capacity search"), std::string::npos) << none.body;
  feed.publish_search("{\"steps\":[1]}");
  const Reply running = route(request("GET", "/search.json"), rules, feed);
  EXPECT_EQ(running.status, 200);
  EXPECT_EQ(running.body, "{\"steps\":[1]}");
  EXPECT_NE(running.head.find("X-Pacer-Run: running\r\n"), std::string::npos);
  feed.replace_search("{\"steps\":[1,2]}");
  feed.publish_final("{}");
  const Reply finished = route(request("GET", "/search.json"), rules, feed);
  EXPECT_EQ(finished.body, "{\"steps\":[1,2]}");
  EXPECT_NE(finished.head.find("X-Pacer-Run: finished\r\n"), std::string::npos);
  EXPECT_EQ(route(request("POST", "/search.json"), rules, feed).status, 405);
  // Only the streamed one is an event: the last state's result rides the end event.
  EXPECT_EQ(feed.end_seq(), 1u);
  ASSERT_NE(feed.event(0), nullptr);
  EXPECT_EQ(feed.event(0)->name, "search");
}

TEST(Routes, StopOnlyOnPost) {
  LiveFeed feed;
  const AccessRules rules;
  const Reply get = route(request("GET", "/stop"), rules, feed);
  EXPECT_EQ(get.status, 405);
  EXPECT_FALSE(get.stop_run);
  EXPECT_NE(get.head.find("Allow: POST\r\n"), std::string::npos);
  const Reply post = route(request("POST", "/stop"), rules, feed);
  EXPECT_EQ(post.status, 202);
  EXPECT_TRUE(post.stop_run);
}

TEST(Routes, TokenGuardsEveryPathByQueryOrBearer) {
  LiveFeed feed;
  AccessRules rules;
  rules.token = "s3cret-token";
  rules.loopback = false;
  HttpRequest stop = request("POST", "/stop", "203.0.113.9:8089");
  const Reply refused = route(stop, rules, feed);
  EXPECT_EQ(refused.status, 401);
  EXPECT_FALSE(refused.stop_run);
  EXPECT_NE(refused.head.find("WWW-Authenticate: Bearer"), std::string::npos);
  stop.authorization = "Bearer s3cret-tokem";
  EXPECT_EQ(route(stop, rules, feed).status, 401);
  stop.authorization = "Bearer s3cret-token";
  EXPECT_TRUE(route(stop, rules, feed).stop_run);
  HttpRequest page = request("GET", "/", "203.0.113.9:8089");
  EXPECT_EQ(route(page, rules, feed).status, 401);
  page.query = "token=s3cret-token";
  const Reply opened = route(page, rules, feed);
  EXPECT_EQ(opened.status, 200);  // any Host: the token is the guard
  EXPECT_NE(opened.head.find("Set-Cookie: pacer_token=s3cret-token; Path=/; HttpOnly; SameSite=Strict\r\n"),
            std::string::npos);
  HttpRequest script = request("GET", "/live.js", "203.0.113.9:8089");
  script.cookie = "other=1; pacer_token=s3cret-token";
  const Reply with_cookie = route(script, rules, feed);
  EXPECT_EQ(with_cookie.status, 200);
  EXPECT_EQ(with_cookie.head.find("Set-Cookie"), std::string::npos);
  script.cookie = "pacer_token=wrong";
  EXPECT_EQ(route(script, rules, feed).status, 401);
}

// Issue 44 (17): a Host is NAME or NAME:PORT, nothing after; a loopback NAME is an address.
TEST(Routes, AHostWithMoreThanAPortAfterTheLoopbackNameIsRefused) {
  LiveFeed feed;
  const AccessRules rules;
  for (const char* host : {"localhost:8089@evil", "localhost:8089/x", "localhost:", "localhost:80a", "[::1]x",
                           "[::1]:8089@evil", "127.0.0.1.evil", "127.0.0.1:123456", "localhost@evil"}) {
    EXPECT_EQ(route(request("GET", "/", host), rules, feed).status, 403) << host;
  }
  EXPECT_EQ(route(request("GET", "/", "localhost"), rules, feed).status, 200);
  EXPECT_EQ(route(request("GET", "/", "[::1]"), rules, feed).status, 200);
  EXPECT_EQ(route(request("GET", "/", "127.1.2.3:1"), rules, feed).status, 200);
}

TEST(Routes, LoopbackWithoutTokenRefusesForeignHostsAndCrossOriginPosts) {
  LiveFeed feed;
  const AccessRules rules;
  EXPECT_EQ(route(request("GET", "/", "evil.example:8089"), rules, feed).status, 403);  // DNS rebinding
  EXPECT_EQ(route(request("GET", "/", ""), rules, feed).status, 403);
  EXPECT_EQ(route(request("GET", "/", "localhost:9000"), rules, feed).status, 200);
  EXPECT_EQ(route(request("GET", "/", "[::1]:8089"), rules, feed).status, 200);
  EXPECT_EQ(route(request("GET", "/", "127.0.0.2"), rules, feed).status, 200);
  HttpRequest stop = request("POST", "/stop");
  stop.origin = "http://evil.example";
  EXPECT_EQ(route(stop, rules, feed).status, 403);
  stop.origin = "http://127.0.0.1:8089";
  EXPECT_EQ(route(stop, rules, feed).status, 202);
}

TEST(Routes, LastEventIdResumesAfterIt) {
  LiveFeed feed;
  HttpRequest r = request("GET", "/events");
  r.last_event_id = "41";
  EXPECT_EQ(route(r, AccessRules{}, feed).first_event, 42u);
  r.last_event_id = "x";
  EXPECT_EQ(route(r, AccessRules{}, feed).first_event, 0u);
}

TEST(Routes, ThePageAndEveryFileItLoadsAreEmbedded) {
  LiveFeed feed;
  const Reply page = route(request("GET", "/"), AccessRules{}, feed);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.head.find("Content-Type: text/html"), std::string::npos);
  // Every script and stylesheet the page names is served, non-empty, by the same process.
  for (const char* file : {"/live.js", "/search.js", "/capacity.js", "/live.css", "/charts.js", "/report.js",
                           "/report.css", "/uPlot.iife.min.js", "/uPlot.min.css"}) {
    EXPECT_NE(page.body.find(std::string_view(file).substr(1)), std::string::npos) << file;
    const Reply asset = route(request("GET", file), AccessRules{}, feed);
    EXPECT_EQ(asset.status, 200) << file;
    EXPECT_GT(asset.body.size(), 100u) << file;
  }
}

TEST(Routes, EventsAreFramedForServerSentEvents) {
  EXPECT_EQ(format_event(7, "{\"a\":1}"), "id: 7\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(format_event(8, "{\"b\":2}", "search"), "event: search\nid: 8\ndata: {\"b\":2}\n\n");
  EXPECT_EQ(format_end_event("{\n  \"a\": 1\n}\n"), "event: end\ndata: {\ndata:   \"a\": 1\ndata: }\n\n");
}

}  // namespace
}  // namespace pacer::web

namespace pacer::web {
namespace {

TEST(Routes, MetricsServeTheTextFormatOrOpenMetricsAsAcceptAsks) {
  LiveFeed feed;
  const AccessRules rules;
  HttpRequest r;
  r.method = "GET";
  r.path = "/metrics";
  r.host = "127.0.0.1:8089";
  EXPECT_EQ(route(r, rules, feed).status, 503);  // nothing published yet
  feed.publish_metrics("text 0.0.4\n", "openmetrics\n# EOF\n");
  const Reply text = route(r, rules, feed);
  EXPECT_EQ(text.status, 200);
  EXPECT_EQ(text.body, "text 0.0.4\n");
  EXPECT_NE(text.head.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos);
  r.accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";
  const Reply om = route(r, rules, feed);
  EXPECT_EQ(om.body, "openmetrics\n# EOF\n");
  EXPECT_NE(om.head.find("Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"),
            std::string::npos);
  r.method = "POST";
  EXPECT_EQ(route(r, rules, feed).status, 405);
  // Behind the token like every other route.
  AccessRules with_token;
  with_token.token = "0123456789abcdef";
  with_token.loopback = false;
  r.method = "GET";
  EXPECT_EQ(route(r, with_token, feed).status, 401);
  r.authorization = "Bearer 0123456789abcdef";
  EXPECT_EQ(route(r, with_token, feed).status, 200);
}

}  // namespace
}  // namespace pacer::web
