// Golden tests for the text report: a fixed RunReport rendered and compared with
// tests/golden/*.txt. PACER_UPDATE_GOLDEN=1 rewrites the files (review the diff).
#include "report/text.h"

#include <gtest/gtest.h>

#include "../support/golden.h"


namespace pacer::report {
namespace {

using pacer::testing::expect_matches_golden;

RunReport healthy_run() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 2;
  r.connections = 10;
  r.duration_ns = 10 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.measured_ns = 10'030'000'000;
  r.counters.responses = 287'936;
  r.counters.requests_sent = 287'936;
  r.counters.bytes_read = 305'500'000;
  r.counters.connects = 10;
  r.counters.status_counts[200] = 287'936;
  // Latencies: mostly 200-300us with a tail.
  for (int i = 0; i < 1000; ++i) r.latency.record_n(200'000 + i * 100, 280);
  r.latency.record_n(30'000'000, 1936);
  for (int i = 0; i < 10; ++i) r.connect.record(100'000 + i * 10'000);
  for (int i = 0; i < 200; ++i) r.rate_samples.record(14'000 + (i % 10) * 100);
  return r;
}

TEST(TextReport, HeaderMatchesWrk) {
  EXPECT_EQ(render_header(healthy_run()), "Running 10s test @ http://127.0.0.1:8080/\n  2 threads and 10 connections\n");
}

TEST(TextReport, HeaderForARequestCountRun) {
  RunReport r = healthy_run();
  r.duration_ns = 0;
  r.request_count = 1000;
  EXPECT_EQ(render_header(r), "Running 1000 requests @ http://127.0.0.1:8080/\n  2 threads and 10 connections\n");
}

TEST(TextReport, HealthyRunWithLatencyDistribution) {
  RunReport r = healthy_run();
  r.print_latency = true;
  expect_matches_golden(render_text(r), "text_healthy_latency.txt");
}

TEST(TextReport, TimeoutsAreCensoredLowerBoundsNotZero) {
  RunReport r = healthy_run();
  r.print_latency = true;
  r.counters = {};
  r.counters.connects = 10;
  r.latency.reset();
  r.counters.errors.timeout = 12;
  r.counters.requests_sent = 12;
  // Every request timed out at 2 s: the report must show >= 2 s, never 0.
  r.latency.record_n(2'001'000'000, 12);
  r.latency_censored.record_n(2'001'000'000, 12);
  r.rate_samples.reset();
  const std::string text = render_text(r);
  // Avg and Max are lower bounds; no percentile reads 0 (the stdev of equal samples is 0).
  EXPECT_NE(text.find("    Latency   >=2.00s "), std::string::npos) << text;
  const std::size_t from = text.find("Latency Distribution");
  const std::string distribution = text.substr(from, text.find("requests in") - from);
  EXPECT_EQ(distribution.find("0.00us"), std::string::npos) << text;
  EXPECT_NE(distribution.find("     99%  >=2.00s"), std::string::npos) << text;
  expect_matches_golden(text, "text_all_timeouts.txt");
}

TEST(TextReport, StatusErrorsAreCountedPerCode) {
  RunReport r = healthy_run();
  r.counters.status_counts[200] = 13041;
  r.counters.status_counts[500] = 1517;
  r.counters.responses = 14558;
  r.counters.errors.status = 1517;
  r.counters.errors.read = 3;
  const std::string text = render_text(r);
  EXPECT_NE(text.find("  Non-2xx or 3xx responses: 1517\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  Socket errors: connect 0, read 3, write 0, timeout 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Status codes: 200 13041, 500 1517\n"), std::string::npos) << text;
  expect_matches_golden(text, "text_status_errors.txt");
}

TEST(TextReport, HttpsRunShowsHandshakesAndTheFirstTlsError) {
  RunReport r = healthy_run();
  r.url = "https://127.0.0.1:8443/";
  r.counters.tls_handshakes = 10;
  r.counters.tls_resumed = 6;
  r.counters.errors.tls = 2;
  r.tls_first_error = "certificate verify failed: hostname mismatch";
  for (int i = 0; i < 10; ++i) r.tls_handshake.record(900'000 + i * 20'000);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("TLS handshake: avg 990.05us, p99 1.08ms, max 1.08ms (10 handshakes, 6 resumed)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Errors:       connect 0, tls 2, read 0"), std::string::npos) << text;
  EXPECT_NE(text.find("TLS errors:   2 (first: certificate verify failed: hostname mismatch)\n"), std::string::npos)
      << text;
  expect_matches_golden(text, "text_https.txt");
}

TEST(TextReport, PlainHttpRunHasNoTlsLines) {
  const std::string text = render_text(healthy_run());
  EXPECT_EQ(text.find("TLS"), std::string::npos) << text;
  EXPECT_EQ(text.find("tls"), std::string::npos) << text;
}

TEST(TextReport, RunWithNoResponseSaysSoInsteadOfPrintingZeros) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/never";
  r.threads = 1;
  r.connections = 4;
  r.duration_ns = 5 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.record_timeouts = false;
  r.measured_ns = 5 * kNsPerS;
  r.counters.errors.timeout = 8;
  const std::string text = render_text(r);
  EXPECT_EQ(text.find("0.00us"), std::string::npos) << text;
  EXPECT_NE(text.find("Failed:"), std::string::npos) << text;
  expect_matches_golden(text, "text_no_response.txt");
}

}  // namespace
}  // namespace pacer::report
