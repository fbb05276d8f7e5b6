// Per-name figures in the reports (src/report/endpoints.h, json.cc, json_reader.cc,
// merge.cc): the text Endpoints table (golden, 80 columns), JSON endpoints[]
// read back exactly, pacer merge by name, and old reports without them.
#include "report/endpoints.h"

#include <gtest/gtest.h>

#include <string>

#include "../support/golden.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/text.h"

namespace pacer::report {
namespace {

EndpointReport endpoint(const std::string& name, std::uint64_t requests, std::int64_t latency_ns) {
  EndpointReport e;
  e.name = name;
  e.counts.requests_sent = requests;
  e.counts.responses = requests;
  for (std::uint64_t i = 0; i < requests; ++i) e.latency.record(latency_ns + static_cast<std::int64_t>(i % 100) * 1000);
  return e;
}

RunReport with_endpoints() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 2;
  r.connections = 10;
  r.duration_ns = 10 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.measured_ns = 10 * kNsPerS;
  r.counters.responses = r.counters.requests_sent = 6000;
  r.counters.status_counts[200] = 5000;
  r.counters.status_counts[503] = 1000;
  r.counters.errors.status = 1000;
  r.counters.errors.timeout = 3;
  for (int i = 0; i < 6000; ++i) r.latency.record(200'000);
  r.endpoints.push_back(endpoint("GET /items", 1000, 250'000));
  r.endpoints.push_back(endpoint("POST /orders", 4000, 180'000));
  EndpointReport slow = endpoint(
      "GET /a/very/long/path/that/goes/on/and/on/past/the/width/of/the/report/so/that/it/must/be/cut", 1003,
      50'000'000);
  slow.counts.responses = 1000;
  slow.counts.non_2xx_3xx = 1000;
  slow.counts.errors.status = 1000;
  slow.counts.status_errors.add(503, 1000);
  slow.counts.errors.timeout = 3;
  r.endpoints.push_back(std::move(slow));
  r.max_names = 1000;
  r.targets_file = true;
  return r;
}

TEST(EndpointsReport, TheTableListsNamesByRequestsWithinEightyColumns) {
  RunReport r = with_endpoints();
  r.print_latency = true;
  const std::string text = render_endpoints_text(r);
  pacer::testing::expect_matches_golden(text, "text_endpoints.txt");
  EXPECT_LT(text.find("POST /orders"), text.find("GET /items"));  // most requests first
  EXPECT_NE(text.find("errors: timeout 3, status 1000"), std::string::npos) << text;
}

TEST(EndpointsReport, TheHeaderSaysHowManyTargetsInWhichOrderAndJsonKeepsIt) {
  RunReport r = with_endpoints();
  r.targets_count = 3;
  r.targets_order = "weighted";
  EXPECT_NE(render_header(r).find("\n  3 targets from --targets, weighted\n"), std::string::npos) << render_header(r);
  auto back = read_json_report(render_json(r), "r.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->targets_count, 3u);
  EXPECT_EQ(back->targets_order, "weighted");
  r.targets_count = 0;
  EXPECT_EQ(render_header(r).find("targets"), std::string::npos);
}

TEST(EndpointsReport, OneUnnamedRequestWithoutTargetsShowsNoTable) {
  RunReport r = with_endpoints();
  r.targets_file = false;
  r.endpoints.resize(1);
  EXPECT_EQ(render_endpoints_text(r), "");
  EXPECT_EQ(render_text(r).find("Endpoints"), std::string::npos);
}

TEST(EndpointsReport, ACappedRunSaysSo) {
  RunReport r = with_endpoints();
  r.names_capped = true;
  EXPECT_NE(render_endpoints_text(r).find("Past --max-names 1000 further names were counted under \"(other)\""),
            std::string::npos);
}

TEST(EndpointsReport, JsonEndpointsReadBackExactly) {
  const RunReport r = with_endpoints();
  auto back = read_json_report(render_json(r), "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->endpoints.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->endpoints[i].name, r.endpoints[i].name);
    EXPECT_EQ(back->endpoints[i].counts.requests_sent, r.endpoints[i].counts.requests_sent);
    EXPECT_EQ(back->endpoints[i].counts.errors.timeout, r.endpoints[i].counts.errors.timeout);
    EXPECT_EQ(back->endpoints[i].latency.total_count(), r.endpoints[i].latency.total_count());
    EXPECT_EQ(back->endpoints[i].latency.value_at_percentile(50), r.endpoints[i].latency.value_at_percentile(50));
  }
  EXPECT_TRUE(back->targets_file);
  EXPECT_EQ(back->max_names, 1000u);
}

TEST(EndpointsReport, AReportWithoutEndpointsStillReads) {
  RunReport r = with_endpoints();
  std::string text = render_json(r);
  // An older report: no endpoints, no endpoint_names.
  const std::size_t from = text.find(",\n  \"endpoints\"");
  const std::size_t to = text.find("\n  }", text.find("\"endpoint_names\"")) + 4;
  ASSERT_NE(from, std::string::npos);
  text.erase(from, to - from);
  auto back = read_json_report(text, "old.json");
  ASSERT_TRUE(back) << back.error().message << "\n" << text.substr(text.size() - 300);
  EXPECT_TRUE(back->endpoints.empty());
}

TEST(EndpointsReport, MergeAddsEndpointsByNameExactly) {
  RunReport a = with_endpoints();
  RunReport b = with_endpoints();
  b.endpoints.erase(b.endpoints.begin());  // b lacks GET /items...
  b.endpoints.push_back(endpoint("GET /only-b", 7, 1'000'000));  // ...and has a name a lacks
  a.shard_count = b.shard_count = 2;
  b.shard_index = 1;
  auto merged = merge_reports({a, b}, {"a.json", "b.json"}, MergeRules{});
  ASSERT_TRUE(merged) << merged.error().message;
  const auto find = [&](const std::string& name) -> const EndpointReport& {
    for (const EndpointReport& e : merged->endpoints) {
      if (e.name == name) return e;
    }
    ADD_FAILURE() << name;
    return merged->endpoints.front();
  };
  EXPECT_EQ(merged->endpoints.size(), 4u);
  EXPECT_EQ(find("GET /items").counts.requests_sent, 1000u);
  EXPECT_EQ(find("POST /orders").counts.requests_sent, 8000u);
  EXPECT_EQ(find("POST /orders").latency.total_count(), 8000);
  EXPECT_EQ(find("GET /only-b").counts.responses, 7u);
}

}  // namespace
}  // namespace pacer::report
