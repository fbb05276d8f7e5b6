// The wire figures (issue 15) in the reports: TTFB, redirects followed, decoded
// bytes and the redirect/decode error classes go through the text report, the
// JSON report and back (read_json_report), and merge exactly; without the
// options their fields stay out of the JSON.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/text.h"

namespace pacer::report {
namespace {

RunReport wire_report() {
  RunReport r;
  r.url = "http://localhost/";
  r.threads = 1;
  r.connections = 2;
  r.duration_ns = kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.measured_ns = kNsPerS;
  r.unix_socket = "/run/app.sock";
  r.follow_redirects = 3;
  r.compressed = true;
  stats::Counters& c = r.counters;
  c.responses = 100;
  c.requests_sent = 104;
  c.bytes_read = 10'000;
  c.redirects = 150;
  c.bytes_decoded = 2'000'000;
  c.errors.redirect = 3;
  c.errors.decode = 1;
  c.status_counts[200] = 100;
  r.latency.record_n(2'000'000, 100);
  r.ttfb.record_n(500'000, 100);
  return r;
}

TEST(WireReport, TextShowsTtfbRedirectsDecodedAndTheirErrorClasses) {
  const std::string text = render_text(wire_report());
  EXPECT_NE(text.find("TTFB:         avg 500.00us, p99 500.00us"), std::string::npos) << text;
  EXPECT_NE(text.find("Redirects:    150 followed (at most 3 per request)"), std::string::npos) << text;
  EXPECT_NE(text.find("Decoded:      1.91MB of bodies from 9.77KB read"), std::string::npos) << text;
  EXPECT_NE(text.find("redirect 3, decode 1"), std::string::npos) << text;

}

TEST(WireReport, JsonCarriesEveryWireFigureAndReadsBack) {
  const std::string out = render_json(wire_report());
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc["config"]["unix_socket"], "/run/app.sock");
  EXPECT_EQ(doc["config"]["follow_redirects"], 3);
  EXPECT_EQ(doc["config"]["compressed"], true);
  EXPECT_EQ(doc["counts"]["redirects"], 150);
  EXPECT_EQ(doc["counts"]["bytes_decoded"], 2'000'000);
  EXPECT_EQ(doc["errors"]["redirect"], 3);
  EXPECT_EQ(doc["errors"]["decode"], 1);
  EXPECT_EQ(doc["ttfb"]["count"], 100);
  auto back = read_json_report(out, "wire.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->unix_socket, "/run/app.sock");
  EXPECT_EQ(back->follow_redirects, 3);
  EXPECT_TRUE(back->compressed);
  EXPECT_EQ(back->counters.redirects, 150u);
  EXPECT_EQ(back->counters.bytes_decoded, 2'000'000u);
  EXPECT_EQ(back->counters.errors.redirect, 3u);
  EXPECT_EQ(back->counters.errors.decode, 1u);
  EXPECT_EQ(back->ttfb.total_count(), 100);
}

TEST(WireReport, WithoutTheOptionsTheirFieldsStayOutOfTheJson) {
  RunReport r = wire_report();
  r.unix_socket.clear();
  r.follow_redirects = 0;
  r.compressed = false;
  const auto doc = nlohmann::json::parse(render_json(r));
  EXPECT_FALSE(doc["config"].contains("unix_socket"));
  EXPECT_FALSE(doc["counts"].contains("redirects"));
  EXPECT_FALSE(doc["errors"].contains("decode"));
  EXPECT_TRUE(doc.contains("ttfb"));  // always measured
}

TEST(WireReport, MergeAddsTtfbAndTheWireCountsExactly) {
  const RunReport a = wire_report();
  RunReport b = wire_report();
  b.ttfb.reset();
  b.ttfb.record_n(900'000, 100);
  MergeRules rules;
  rules.force = true;  // two reports of one shard
  auto merged = merge_reports({a, b}, {"a.json", "b.json"}, rules);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->ttfb.total_count(), 200);
  EXPECT_EQ(merged->ttfb.max(), b.ttfb.max());
  EXPECT_EQ(merged->counters.redirects, 300u);
  EXPECT_EQ(merged->counters.bytes_decoded, 4'000'000u);
  EXPECT_EQ(merged->counters.errors.decode, 2u);
}

TEST(WireReport, EndpointsCarryTtfbAndReadBackWithoutTheWireClassesFromOlderReports) {
  RunReport r = wire_report();
  EndpointReport& e = r.endpoints.emplace_back();
  e.name = "GET /";
  e.counts.requests_sent = e.counts.responses = 100;
  e.latency.record_n(2'000'000, 100);
  e.ttfb.record_n(500'000, 100);
  auto doc = nlohmann::json::parse(render_json(r));
  ASSERT_EQ(doc["endpoints"][0]["ttfb"]["count"], 100);
  auto back = read_json_report(doc.dump(), "new.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->endpoints.at(0).ttfb.total_count(), 100);
  // A report from before the wire classes and per-name TTFB.
  doc["endpoints"][0]["errors"].erase("redirect");
  doc["endpoints"][0]["errors"].erase("decode");
  doc["endpoints"][0].erase("ttfb");
  auto old = read_json_report(doc.dump(), "old.json");
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_EQ(old->endpoints.at(0).ttfb.total_count(), 0);
  EXPECT_EQ(old->endpoints.at(0).counts.responses, 100u);
}

}  // namespace
}  // namespace pacer::report
