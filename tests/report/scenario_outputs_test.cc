// Issue 31: a scenario's failed checks, its endpoints and its units read the same in
// every output (text, JSON, CSV), endpoints' timeouts are lower bounds as the run's,
// and names nobody requested are not endpoints (report/endpoints.h, json.cc, csv.cc,
// text.cc, gates.h).
#include <gtest/gtest.h>

#include <optional>

#include <nlohmann/json.hpp>
#include <string>

#include "report/csv.h"
#include "report/endpoints.h"
#include "report/gates.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/labelled.h"
#include "report/text.h"

namespace pacer::report {
namespace {

EndpointReport endpoint(const std::string& name, std::uint64_t requests, std::uint64_t status_errors) {
  EndpointReport e;
  e.name = name;
  e.counts.requests_sent = e.counts.responses = requests;
  e.counts.errors.status = e.counts.non_2xx_3xx = status_errors;
  if (status_errors > 0) e.counts.status_errors.add(500, status_errors);
  for (std::uint64_t i = 0; i < requests; ++i) e.latency.record(100'000);
  return e;
}

// 40 requests of two names: "GET /home" 20 responses 200 each failed by u:fail;
// "GET /missing" 20 responses 404, each also failed by u:fail (a check on an error);
// and "GET /", the base URL's name, which nothing requested.
RunReport scenario_with_failed_checks() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = r.connections = 2;
  r.duration_ns = r.measured_ns = kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.counters.requests_sent = r.counters.responses = 40;
  r.counters.status_counts[200] = 20;
  r.counters.status_counts[404] = 20;
  r.counters.errors.status = 20;
  r.endpoints.push_back(endpoint("GET /", 0, 0));
  r.endpoints.push_back(endpoint("GET /home", 20, 0));
  r.endpoints.push_back(endpoint("GET /missing", 20, 20));
  for (const EndpointReport& e : r.endpoints) r.latency.merge(e.latency);
  scenario::ScenarioStats& s = r.scenario;
  s.active = true;
  s.user_limit = s.users_started = 2;
  s.tasks.push_back(scenario::TaskRow{"home", 20, 20});
  s.tasks.push_back(scenario::TaskRow{"missing", 20, 20});
  for (int i = 0; i < 20; ++i) s.tasks[0].duration.record(100'000), s.tasks[1].duration.record(100'000);
  s.names.push_back(scenario::NameRow{"GET /home", 20, 0, 20, 0});
  s.names.push_back(scenario::NameRow{"GET /missing", 20, 20, 20, 20});
  s.check = 40;
  s.check_on_errors = 20;
  s.note("check", "GET /home", "always", 20);
  return r;
}

TEST(ScenarioOutputs, AFailedCheckIsAFailureOfItsEndpointCountedOnce) {
  RunReport r = scenario_with_failed_checks();
  settle_endpoints(r);
  ASSERT_EQ(r.endpoints.size(), 2u);  // "GET /" was never requested
  EXPECT_EQ(endpoint_checks(r, r.endpoints[0]), 20u);
  EXPECT_EQ(endpoint_failures(r, r.endpoints[0]), 20u);  // checks on 200s
  EXPECT_EQ(endpoint_failures(r, r.endpoints[1]), 20u);  // a 404 with a check: one failure
  EXPECT_EQ(failed_requests(r), 40u);
  EXPECT_DOUBLE_EQ(error_rate(r), 1.0);
}

TEST(ScenarioOutputs, JsonHasTheChecksInErrorsEndpointsAndCounts) {
  RunReport r = scenario_with_failed_checks();
  settle_endpoints(r);
  const auto j = nlohmann::json::parse(render_json(r));
  EXPECT_EQ(j["errors"]["check"], 40);
  EXPECT_EQ(j["errors"]["script"], 0);
  EXPECT_EQ(j["counts"]["failed"], 40);
  ASSERT_EQ(j["endpoints"].size(), 2u);
  for (const auto& e : j["endpoints"]) {
    EXPECT_NE(e["name"], "GET /");
    EXPECT_EQ(e["errors"]["check"], 20);
    EXPECT_EQ(e["failed"], 20);
  }
  // Read back (pacer merge): the per-name checks on errors come along.
  auto back = read_json_report(render_json(r), "test.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->scenario.names[1].check_on_errors, 20u);
  const auto again = nlohmann::json::parse(render_json(*back));
  EXPECT_EQ(again["errors"], j["errors"]);
  EXPECT_EQ(again["counts"]["failed"], 40);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again["endpoints"][i]["errors"], j["endpoints"][i]["errors"]);
    EXPECT_EQ(again["endpoints"][i]["failed"], j["endpoints"][i]["failed"]);
  }
}

TEST(ScenarioOutputs, CsvCountsEachFailedRequestOnceAndNamesTheCheck) {
  RunReport r = scenario_with_failed_checks();
  settle_endpoints(r);
  const std::optional<CsvFiles> csv = render_csv(r);
  EXPECT_NE(csv->stats.find("\nGET /home,20,20,"), std::string::npos) << csv->stats;
  EXPECT_NE(csv->stats.find("\nGET /missing,20,20,"), std::string::npos) << csv->stats;
  EXPECT_NE(csv->stats.find("\nAggregated,40,40,"), std::string::npos) << csv->stats;
  EXPECT_EQ(csv->stats.find("GET /,"), std::string::npos) << csv->stats;
  EXPECT_NE(csv->failures.find("check,Aggregated,GET /home: always,40\n"), std::string::npos) << csv->failures;
  // Each name's row gives its own first message (its check's), the checks without one kept none.
  EXPECT_NE(csv->failures.find("check,GET /home,GET /home: always,20\n"), std::string::npos) << csv->failures;
  EXPECT_NE(csv->failures.find("check,GET /missing,,20\n"), std::string::npos) << csv->failures;
  EXPECT_NE(csv->history.find(",errors_check"), std::string::npos) << csv->history;
}

TEST(ScenarioOutputs, TextEndpointsShowTheChecksAndNoUnrequestedName) {
  RunReport r = scenario_with_failed_checks();
  settle_endpoints(r);
  const std::string text = render_endpoints_text(r);
  EXPECT_EQ(text.find("  GET /\n"), std::string::npos) << text;
  EXPECT_NE(text.find("errors: check 20\n"), std::string::npos) << text;
  EXPECT_NE(text.find("errors: status 20, check 20\n"), std::string::npos) << text;
  EXPECT_EQ(render_text(r).find("Requests by name"), std::string::npos);  // the Endpoints table says it
}

TEST(ScenarioOutputs, OpenModelScenarioCountsTasksAndUsersNotConnections) {
  RunReport r = scenario_with_failed_checks();
  r.load_model = LoadModel::kConstant;
  r.rate_per_s = r.target_rate_per_s = 20;
  r.connections = 10000;
  r.scenario.open_model = true;
  r.scenario.user_limit = 10000;
  const std::string header = render_header(r);
  EXPECT_EQ(header.find("10000 connections"), std::string::npos) << header;
  EXPECT_NE(header.find("up to 10000 virtual users (--max-users)"), std::string::npos) << header;
  const std::string text = render_text(r);
  EXPECT_NE(text.find("constant 20 tasks/s"), std::string::npos) << text;
  // 40 tasks ended against 20 asked in 1 s: 200% of the target in tasks (the requests are 40 too here).
  EXPECT_NE(text.find("target 20.00 tasks/s, ended 40.00 tasks/s (200.0% of target)"), std::string::npos) << text;
}

TEST(ScenarioOutputs, AnEndpointsTimeoutsAreLowerBoundsLikeTheRuns) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = r.connections = 1;
  r.duration_ns = r.measured_ns = kNsPerS;
  r.timeout_ns = 300 * kNsPerMs;
  r.targets_file = true;
  EndpointReport fast = endpoint("GET /fast", 10, 0);
  EndpointReport never;
  never.name = "GET /never";
  never.counts.requests_sent = never.counts.errors.timeout = 3;
  for (int i = 0; i < 3; ++i) never.latency.record(345 * kNsPerMs), r.latency_censored.record(345 * kNsPerMs);
  r.counters.errors.timeout = 3;
  r.endpoints = {fast, never};
  settle_endpoints(r);
  EXPECT_EQ(r.endpoints[1].latency_censored.total_count(), 3);
  EXPECT_EQ(r.endpoints[0].latency_censored.total_count(), 0);
  const std::string text = render_endpoints_text(r);
  EXPECT_NE(text.find(">=345"), std::string::npos) << text;
  const auto j = nlohmann::json::parse(render_json(r));
  EXPECT_EQ(j["endpoints"][1]["latency"]["censored_count"], 3);
  EXPECT_EQ(j["endpoints"][1]["latency"]["lower_bound_percentiles"].size(), 7u);
  EXPECT_EQ(j["endpoints"][0]["latency"]["censored_count"], 0);
}

TEST(ScenarioOutputs, TimeoutsThatCannotBeToldApartAreNotMarkedZero) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.duration_ns = r.measured_ns = kNsPerS;
  r.counters.errors.timeout = 2;
  r.latency_censored.record(kNsPerS);
  r.latency_censored.record(kNsPerS);
  EndpointReport a = endpoint("GET /a", 5, 0);
  EndpointReport b = endpoint("GET /b", 5, 0);
  a.counts.errors.timeout = b.counts.errors.timeout = 1;
  a.latency.record(kNsPerS);
  b.latency.record(kNsPerS);
  r.endpoints = {a, b};
  settle_endpoints(r);  // two names with timeouts and answers: which samples are censored is not known
  const auto j = nlohmann::json::parse(render_json(r));
  EXPECT_FALSE(j["endpoints"][0]["latency"].contains("censored_count"));
}

TEST(HeaderWording, AWarmUpIsInTheRunningLineAndAUnixSocketIsNamed) {
  RunReport r;
  r.url = "http://localhost/x";
  r.threads = r.connections = 1;
  r.duration_ns = 2 * kNsPerS;
  r.warmup_ns = kNsPerS;
  r.unix_socket = "/run/app.sock";
  const std::string header = render_header(r);
  EXPECT_NE(header.find("Running 1s warm-up + 2s test @ http://localhost/x\n"), std::string::npos) << header;
  EXPECT_NE(header.find("  over the Unix socket /run/app.sock\n  (latency ends at the worker's wake-up"),
            std::string::npos) << header;
}

// Issue 43 (12): the socket's line fitted 80 columns only for short paths (108 with
// a path of 28 characters), and one request was "1 requests".
TEST(HeaderWording, AUnixSocketsLineFitsEightyColumnsAndOneRequestIsSingular) {
  RunReport r;
  r.url = "http://localhost/x";
  r.threads = r.connections = 1;
  r.request_count = 1;
  r.unix_socket = "/var/run/app/frontend.socket";
  r.counters.responses = 1;
  r.measured_ns = 2 * kNsPerS;
  const std::string text = render_header(r) + render_text(r);
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    EXPECT_LE(end - start, kReportColumns) << text.substr(start, end - start);
  }
  EXPECT_NE(text.find("Running 1 request @ "), std::string::npos) << text;
  EXPECT_NE(text.find("  1 request in 2.00s, "), std::string::npos) << text;
  EXPECT_EQ(text.find("1 requests"), std::string::npos) << text;
}

TEST(HeaderWording, ARequestCountRunSaysHowItsRequestsEnded) {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = r.connections = 1;
  r.request_count = 6;
  r.measured_ns = kNsPerS;
  r.counters.requests_sent = 6;
  r.counters.responses = 3;
  r.counters.errors.timeout = 3;
  const std::string text = render_text(r);
  EXPECT_NE(text.find("6 requests ended: 3 with a response, 3 without one"), std::string::npos) << text;
}

TEST(HeaderWording, ARedirectLoopSaysWhatBecameOfTheRequests) {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = r.connections = 1;
  r.duration_ns = r.measured_ns = kNsPerS;
  r.follow_redirects = 3;
  r.counters.requests_sent = 100;
  r.counters.redirects = 200;
  r.counters.errors.redirect = 100;
  r.first_error = "redirect: a loop (Location: /a)";
  const std::string text = render_text(r);
  EXPECT_NE(text.find("100 requests ended: 0 with a response, 100 without one"), std::string::npos) << text;
  EXPECT_NE(text.find("none final (200 redirects followed"), std::string::npos) << text;
  EXPECT_NE(text.find("redirect error class (at most 3 hops"), std::string::npos) << text;  // wrapped after "the"
  EXPECT_NE(text.find("closed loop, 1 connection, each"), std::string::npos) << text;
}

// Issue 31, item 5's report side: once the engine says how many requests left during
// the drain, the sent rate is the run's and the drain's are their own figure.
TEST(DrainReport, RequestsSentWhileDrainingAreNotInTheSentRate) {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = r.connections = 2;
  r.load_model = LoadModel::kConstant;
  r.rate_per_s = r.target_rate_per_s = 1000;
  r.duration_ns = 2 * kNsPerS;
  r.measured_ns = 4 * kNsPerS;
  r.counters.requests_sent = r.counters.scheduled = 1456;
  r.counters.responses = 1456;
  EXPECT_DOUBLE_EQ(sent_rate_per_s(r), 728);
  const auto unknown = nlohmann::json::parse(render_json(r));
  EXPECT_TRUE(unknown["counts"]["sent_while_draining"].is_null());
  r.sent_while_draining = 714;
  EXPECT_DOUBLE_EQ(sent_rate_per_s(r), 371);
  const auto j = nlohmann::json::parse(render_json(r));
  EXPECT_EQ(j["counts"]["sent_while_draining"], 714);
  EXPECT_DOUBLE_EQ(j["rates"]["sent_per_s"].get<double>(), 371);
  EXPECT_NE(render_text(r).find("; 714 more sent while draining"), std::string::npos) << render_text(r);
  auto back = read_json_report(render_json(r), "drain.json");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->sent_while_draining, 714u);
}

}  // namespace
}  // namespace pacer::report
